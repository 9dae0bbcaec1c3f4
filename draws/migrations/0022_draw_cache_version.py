"""A draw's version for the workers' copies (draws.activation_cache), kept by triggers.

It was an MD5 of the draw's row and of every row a copy holds, computed in every activation's and
every kiosk read's first statement: about a third of that statement's time. Now the database keeps
`draws_draw.cache_version` itself: a random UUID, new on every change to the draw (but its serial
counter) or to anything a copy of it holds.

- Random, so a version names one state: not given again after a rolled-back transaction (a
  test's), a restored backup or a recovery to an earlier moment, behind a pooler or not. The
  draws there are get one each when the column is added (a volatile default: no trigger fires).
- The draw's own row: on INSERT, and on an UPDATE that changes a column but `id` and
  `next_serial` (UPDATE OF those columns, so an activation's UPDATE of the serial counter alone
  fires nothing). `cache_version` is one of them: whoever sets it (the app's role by hand, say)
  gets a new random one, never a version of their choosing, such as an older one back. The trigger sorts after draws_draw_guard: the guard sees the row as the
  statement wrote it. draws/tests/test_activation_cache_version.py fails when a column is added
  to draws_draw without being added to this trigger.
- The rows a copy holds (its windows, series, earning rule, eligible and desk tiers, their names,
  the promotion, the property): a change makes a new version for the series' or property's draws
  that are still scheduled. Later steps refuse every other change of a draw (draws_draw_guard),
  and only a scheduled draw takes tickets.
PostgreSQL only: `make run`'s SQLite keeps no copies (draws.activation_cache.load_draw).
"""

from django.db import migrations

from core.migration_sql import postgresql_only

VERSION_NOW = "pg_catalog.gen_random_uuid()"

FORWARD = f"""
-- Each draw there is gets its own (the table is rewritten; no trigger fires).
ALTER TABLE @schema@.draws_draw ADD COLUMN cache_version uuid NOT NULL DEFAULT {VERSION_NOW};

CREATE FUNCTION @schema@.draws_draw_version() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    NEW.cache_version := {VERSION_NOW};
    RETURN NEW;
END $$;

CREATE TRIGGER draws_draw_version BEFORE INSERT ON @schema@.draws_draw
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_draw_version();

DO $$
DECLARE
    copied text;
BEGIN
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO copied
      FROM pg_catalog.pg_attribute AS a
     WHERE a.attrelid = '@schema@.draws_draw'::regclass AND a.attnum > 0 AND NOT a.attisdropped
       AND a.attname NOT IN ('id', 'next_serial');
    EXECUTE format('CREATE TRIGGER draws_draw_version_update BEFORE UPDATE OF %s ON @schema@.draws_draw
        FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION @schema@.draws_draw_version()', copied);
END $$;

-- TG_ARGV[0]: what the changed row is (window, series, promotion, tier, property);
-- TG_ARGV[1]: its column naming that draw, series, promotion, tier or property.
CREATE FUNCTION @schema@.draws_copies_outdated() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    before jsonb := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END;
    after jsonb := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END;
    keys bigint[];
    draws bigint[];
BEGIN
    IF before IS NOT DISTINCT FROM after THEN
        RETURN NULL;
    END IF;
    keys := ARRAY[(before ->> TG_ARGV[1])::bigint, (after ->> TG_ARGV[1])::bigint];
    -- Locked in id order, as every other path that locks several draws does (no deadlock).
    SELECT array_agg(locked.id) INTO draws FROM (
        SELECT d.id FROM @schema@.draws_draw AS d
         WHERE d.status = 'scheduled'
           AND CASE TG_ARGV[0]
           WHEN 'window' THEN d.id = ANY (keys)
           WHEN 'series' THEN d.series_id = ANY (keys)
           WHEN 'promotion' THEN d.series_id IN (
               SELECT s.id FROM @schema@.promotions_drawseries AS s WHERE s.promotion_id = ANY (keys))
           WHEN 'tier' THEN d.series_id IN (
               SELECT e.drawseries_id FROM @schema@.promotions_drawseries_eligible_tiers AS e WHERE e.tier_id = ANY (keys)
               UNION ALL
               SELECT k.drawseries_id FROM @schema@.promotions_drawseries_desk_assisted_tiers AS k
                WHERE k.tier_id = ANY (keys))
           WHEN 'property' THEN d.property_id = ANY (keys)
           END
         ORDER BY d.id FOR NO KEY UPDATE) AS locked;
    UPDATE @schema@.draws_draw AS d SET cache_version = {VERSION_NOW} WHERE d.id = ANY (draws);
    RETURN NULL;
END $$;

CREATE TRIGGER draws_copies_outdated AFTER INSERT OR UPDATE OR DELETE ON @schema@.draws_ticketwindow
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_copies_outdated('window', 'draw_id');
CREATE TRIGGER draws_copies_outdated AFTER UPDATE ON @schema@.promotions_drawseries
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_copies_outdated('series', 'id');
CREATE TRIGGER draws_copies_outdated AFTER INSERT OR UPDATE OR DELETE ON @schema@.promotions_earningrule
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_copies_outdated('series', 'series_id');
CREATE TRIGGER draws_copies_outdated AFTER INSERT OR UPDATE OR DELETE ON @schema@.promotions_drawseries_eligible_tiers
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_copies_outdated('series', 'drawseries_id');
CREATE TRIGGER draws_copies_outdated AFTER INSERT OR UPDATE OR DELETE ON @schema@.promotions_drawseries_desk_assisted_tiers
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_copies_outdated('series', 'drawseries_id');
CREATE TRIGGER draws_copies_outdated AFTER UPDATE ON @schema@.promotions_promotion
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_copies_outdated('promotion', 'id');
CREATE TRIGGER draws_copies_outdated AFTER UPDATE ON @schema@.members_tier
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_copies_outdated('tier', 'id');
CREATE TRIGGER draws_copies_outdated AFTER UPDATE ON @schema@.members_property
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_copies_outdated('property', 'id');
"""  # noqa: S608 (fixed SQL: VERSION_NOW is a constant of this file)

BACKWARD = """
DROP TRIGGER draws_copies_outdated ON @schema@.draws_ticketwindow;
DROP TRIGGER draws_copies_outdated ON @schema@.promotions_drawseries;
DROP TRIGGER draws_copies_outdated ON @schema@.promotions_earningrule;
DROP TRIGGER draws_copies_outdated ON @schema@.promotions_drawseries_eligible_tiers;
DROP TRIGGER draws_copies_outdated ON @schema@.promotions_drawseries_desk_assisted_tiers;
DROP TRIGGER draws_copies_outdated ON @schema@.promotions_promotion;
DROP TRIGGER draws_copies_outdated ON @schema@.members_tier;
DROP TRIGGER draws_copies_outdated ON @schema@.members_property;
DROP FUNCTION @schema@.draws_copies_outdated();
DROP TRIGGER draws_draw_version_update ON @schema@.draws_draw;
DROP TRIGGER draws_draw_version ON @schema@.draws_draw;
DROP FUNCTION @schema@.draws_draw_version();
ALTER TABLE @schema@.draws_draw DROP COLUMN cache_version;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("draws", "0021_drop_receipt_like_index"),
        ("promotions", "0005_callable_time_defaults"),
        ("members", "0022_staged_points_no_ref_index_on_postgresql"),
    ]

    operations = [postgresql_only(FORWARD, BACKWARD, in_schema=True)]
