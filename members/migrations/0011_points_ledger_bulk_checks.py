"""The points ledger without per-row foreign keys, and the points import's staging table
written by COPY (issue 17, item 3).

A 200,000-row points file paid three deferred foreign-key checks a row at COMMIT (each a
look-up that also locks the member's row, dirtying 200,000 member pages), and three indexes no
reader needs (member_id leads points_member_time_idx, and nothing reads the ledger by import
job); a draw's allocation read one property's rows through the property_id index, now through
points_property_time_idx (property, earned_at), which also bounds the earning period. Instead
of the foreign keys, on PostgreSQL:

- members_points_refs_check: after each INSERT or UPDATE statement on the ledger, one set-based
  look-up of the statement's members, properties and import jobs (its transition table); a
  missing one fails the statement with the foreign-key error code (23503), as the constraint did;
- members_points_refs_guard: a member, property or import job that has points cannot be deleted
  (or its id changed): refused with the same code (ON DELETE PROTECT in the database too).
  What the constraint also did and these do not: lock the member's row against a DELETE that
  races an INSERT. Nothing deletes members (the application has no such action), and a DBA's
  DELETE is refused once the points are committed.

The staging table (ImportStagedPoints) becomes UNLOGGED, without its per-row foreign key to the
job: an import a crash interrupts is read again from its file, and staging_clear deletes its rows.
"""

import django.db.models.deletion
from django.db import migrations, models

from core.migration_sql import postgresql_only

REFS = r"""
CREATE FUNCTION @schema@.members_points_refs_check() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    missing text;
BEGIN
    SELECT 'member ' || n.member_id INTO missing FROM new_rows n
     WHERE NOT EXISTS (SELECT FROM @schema@.members_member m WHERE m.id = n.member_id) LIMIT 1;
    IF missing IS NULL THEN
        SELECT 'property ' || n.property_id INTO missing
          FROM (SELECT DISTINCT property_id FROM new_rows) n
         WHERE NOT EXISTS (SELECT FROM @schema@.members_property p WHERE p.id = n.property_id) LIMIT 1;
    END IF;
    IF missing IS NULL THEN
        SELECT 'import job ' || n.import_job_id INTO missing
          FROM (SELECT DISTINCT import_job_id FROM new_rows WHERE import_job_id IS NOT NULL) n
         WHERE NOT EXISTS (SELECT FROM @schema@.members_importjob j WHERE j.id = n.import_job_id) LIMIT 1;
    END IF;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'members_pointsentry: % does not exist', missing USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER members_points_refs_insert AFTER INSERT ON @schema@.members_pointsentry
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION @schema@.members_points_refs_check();
CREATE TRIGGER members_points_refs_update AFTER UPDATE ON @schema@.members_pointsentry
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION @schema@.members_points_refs_check();

CREATE FUNCTION @schema@.members_points_refs_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    used boolean;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
        RETURN NEW;
    END IF;
    EXECUTE format('SELECT EXISTS (SELECT FROM @schema@.members_pointsentry WHERE %I = $1)', TG_ARGV[0])
       INTO used USING OLD.id;
    IF used THEN
        RAISE EXCEPTION '% % still has points in members_pointsentry', TG_TABLE_NAME, OLD.id
              USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END $$;

CREATE TRIGGER members_points_guard BEFORE DELETE OR UPDATE OF id ON @schema@.members_member
    FOR EACH ROW EXECUTE FUNCTION @schema@.members_points_refs_guard('member_id');
CREATE TRIGGER members_points_guard BEFORE DELETE OR UPDATE OF id ON @schema@.members_property
    FOR EACH ROW EXECUTE FUNCTION @schema@.members_points_refs_guard('property_id');
CREATE TRIGGER members_points_guard BEFORE DELETE OR UPDATE OF id ON @schema@.members_importjob
    FOR EACH ROW EXECUTE FUNCTION @schema@.members_points_refs_guard('import_job_id');

ALTER TABLE @schema@.members_importstagedpoints SET UNLOGGED;
"""

REFS_REVERSE = r"""
ALTER TABLE @schema@.members_importstagedpoints SET LOGGED;
DROP TRIGGER members_points_guard ON @schema@.members_importjob;
DROP TRIGGER members_points_guard ON @schema@.members_property;
DROP TRIGGER members_points_guard ON @schema@.members_member;
DROP FUNCTION @schema@.members_points_refs_guard();
DROP TRIGGER members_points_refs_update ON @schema@.members_pointsentry;
DROP TRIGGER members_points_refs_insert ON @schema@.members_pointsentry;
DROP FUNCTION @schema@.members_points_refs_check();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0010_list_keyset_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="importstagedpoints",
            name="card_number",
            field=models.CharField(blank=True, default="", max_length=20),
        ),
        migrations.AlterField(
            model_name="importstagedpoints",
            name="job",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="members.importjob",
            ),
        ),
        migrations.AlterField(
            model_name="importstagedpoints",
            name="member_id",
            field=models.BigIntegerField(null=True),
        ),
        migrations.AlterField(
            model_name="pointsentry",
            name="import_job",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="members.importjob",
            ),
        ),
        migrations.AlterField(
            model_name="pointsentry",
            name="member",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="points",
                to="members.member",
            ),
        ),
        migrations.AlterField(
            model_name="pointsentry",
            name="property",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="members.property",
            ),
        ),
        migrations.AddIndex(
            model_name="pointsentry",
            index=models.Index(fields=["property", "earned_at"], name="points_property_time_idx"),
        ),
        postgresql_only(REFS, REFS_REVERSE, in_schema=True),
    ]
