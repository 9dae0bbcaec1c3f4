"""Members without per-row foreign keys to their tier and properties (issue 17, item 3).

A 100,000-row members import paid two deferred foreign-key checks a row at COMMIT (a look-up
that also locks the tier's or property's row, 200,000 times for a dozen rows): about a third of
the insert's CPU. Instead, on PostgreSQL, as the points ledger does (migration 0011):

- members_member_refs_insert: after each INSERT statement, one look-up of the statement's tiers
  and properties (its transition table), each locked FOR KEY SHARE as a foreign key's check
  locks it; a missing one fails the statement with the foreign-key error code (23503);
- members_member_refs_update: after an UPDATE of a row whose tier or property changed, the same
  for that row (a foreign key checks only a changed key too);
- members_member_refs_guard: a tier or property that a member names cannot be deleted (or its
  id changed): refused with the same code. It runs AFTER the delete, which waits for an insert
  holding the row's lock: the members that insert committed are then seen.

The index on playing_property_id keeps only members playing now (an imported member is not).
"""

import django.db.models.deletion
from django.db import migrations, models

from core.migration_sql import postgresql_only

REFS = r"""
CREATE FUNCTION @schema@.members_member_refs_missing(tiers bigint[], properties bigint[]) RETURNS text
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    missing text;
BEGIN
    PERFORM FROM @schema@.members_tier t WHERE t.id = ANY (tiers) FOR KEY SHARE;
    PERFORM FROM @schema@.members_property p WHERE p.id = ANY (properties) FOR KEY SHARE;
    SELECT 'tier ' || n.id INTO missing FROM unnest(tiers) n (id)
     WHERE NOT EXISTS (SELECT FROM @schema@.members_tier t WHERE t.id = n.id) LIMIT 1;
    IF missing IS NULL THEN
        SELECT 'property ' || n.id INTO missing FROM unnest(properties) n (id)
         WHERE n.id IS NOT NULL AND NOT EXISTS (SELECT FROM @schema@.members_property p WHERE p.id = n.id) LIMIT 1;
    END IF;
    RETURN missing;
END $$;

CREATE FUNCTION @schema@.members_member_refs_check() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    missing text;
BEGIN
    IF TG_LEVEL = 'STATEMENT' THEN
        -- One pass over the statement's rows, hashed: a few dozen combinations at most.
        SELECT @schema@.members_member_refs_missing(array_agg(g.t), array_agg(g.h) || array_agg(g.p)) INTO missing
          FROM (SELECT tier_id, home_property_id, playing_property_id FROM new_rows GROUP BY 1, 2, 3) g (t, h, p);
    ELSE
        missing := @schema@.members_member_refs_missing(
            ARRAY[NEW.tier_id], ARRAY[NEW.home_property_id, NEW.playing_property_id]
        );
    END IF;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'members_member: % does not exist', missing USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER members_member_refs_insert AFTER INSERT ON @schema@.members_member
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION @schema@.members_member_refs_check();
CREATE TRIGGER members_member_refs_update AFTER UPDATE OF tier_id, home_property_id, playing_property_id
    ON @schema@.members_member FOR EACH ROW
    WHEN (OLD.tier_id IS DISTINCT FROM NEW.tier_id OR OLD.home_property_id IS DISTINCT FROM NEW.home_property_id
          OR OLD.playing_property_id IS DISTINCT FROM NEW.playing_property_id)
    EXECUTE FUNCTION @schema@.members_member_refs_check();

CREATE FUNCTION @schema@.members_member_refs_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    column_name text;
    used boolean;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
        RETURN NULL;
    END IF;
    FOREACH column_name IN ARRAY TG_ARGV LOOP
        EXECUTE format('SELECT EXISTS (SELECT FROM @schema@.members_member WHERE %I = $1)', column_name)
           INTO used USING OLD.id;
        IF used THEN
            RAISE EXCEPTION '% % is still named by members_member.%', TG_TABLE_NAME, OLD.id, column_name
                  USING ERRCODE = 'foreign_key_violation';
        END IF;
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER members_member_refs_guard AFTER DELETE OR UPDATE OF id ON @schema@.members_tier
    FOR EACH ROW EXECUTE FUNCTION @schema@.members_member_refs_guard('tier_id');
CREATE TRIGGER members_member_refs_guard AFTER DELETE OR UPDATE OF id ON @schema@.members_property
    FOR EACH ROW EXECUTE FUNCTION @schema@.members_member_refs_guard('home_property_id', 'playing_property_id');
"""

REFS_REVERSE = r"""
DROP TRIGGER members_member_refs_guard ON @schema@.members_property;
DROP TRIGGER members_member_refs_guard ON @schema@.members_tier;
DROP FUNCTION @schema@.members_member_refs_guard();
DROP TRIGGER members_member_refs_update ON @schema@.members_member;
DROP TRIGGER members_member_refs_insert ON @schema@.members_member;
DROP FUNCTION @schema@.members_member_refs_check();
DROP FUNCTION @schema@.members_member_refs_missing(bigint[], bigint[]);
"""


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0016_staged_member_job_index"),
    ]

    operations = [
        migrations.AlterField(
            model_name="member",
            name="home_property",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="members",
                to="members.property",
            ),
        ),
        migrations.AlterField(
            model_name="member",
            name="playing_property",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="members.property",
            ),
        ),
        migrations.AlterField(
            model_name="member",
            name="tier",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="members",
                to="members.tier",
            ),
        ),
        migrations.AddIndex(
            model_name="member",
            index=models.Index(
                condition=models.Q(("playing_property__isnull", False)),
                fields=["playing_property"],
                name="member_playing_property_idx",
            ),
        ),
        postgresql_only(REFS, REFS_REVERSE, in_schema=True),
    ]
