from django.db import migrations

from core.migration_sql import postgresql_only

# What a draw's record is computed from stays as it was when it was committed: once a draw has
# started, its frozen entry list, hashes, seed and run settings do not change; once its entries
# are frozen, its activations do not change; once it has started, its RAPS list does not
# change. (DRAWS.md: the hashes are published before the first pick.)
FORWARD = """
CREATE OR REPLACE FUNCTION draws_draw_record_frozen() RETURNS trigger AS $$
BEGIN
    IF OLD.started_at IS NOT NULL AND ROW(
        NEW.entries_frozen_at, NEW.entries_count, NEW.tickets_total, NEW.entries_sha256, NEW.seed_sha256,
        NEW.seed_hex, NEW.started_at, NEW.started_by, NEW.winners_wanted, NEW.win_once, NEW.method,
        NEW.scheduled_at, NEW.series_id, NEW.property_id
    ) IS DISTINCT FROM ROW(
        OLD.entries_frozen_at, OLD.entries_count, OLD.tickets_total, OLD.entries_sha256, OLD.seed_sha256,
        OLD.seed_hex, OLD.started_at, OLD.started_by, OLD.winners_wanted, OLD.win_once, OLD.method,
        OLD.scheduled_at, OLD.series_id, OLD.property_id
    ) THEN
        RAISE EXCEPTION 'draw % has started: its entries, seed and settings are never changed', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER draws_draw_record_frozen
    BEFORE UPDATE ON draws_draw
    FOR EACH ROW EXECUTE FUNCTION draws_draw_record_frozen();

CREATE OR REPLACE FUNCTION draws_activation_frozen() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM draws_draw WHERE id = OLD.draw_id AND entries_frozen_at IS NOT NULL) THEN
        RAISE EXCEPTION 'the entries of draw % are frozen: % refused on its activations', OLD.draw_id, TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER draws_activation_frozen
    BEFORE UPDATE OR DELETE ON draws_activation
    FOR EACH ROW EXECUTE FUNCTION draws_activation_frozen();

CREATE OR REPLACE FUNCTION draws_raps_frozen() RETURNS trigger AS $$
DECLARE
    draw_started timestamptz;
BEGIN
    IF TG_TABLE_NAME = 'draws_rapslist' THEN
        SELECT started_at INTO draw_started FROM draws_draw WHERE id = OLD.draw_id;
    ELSE
        SELECT d.started_at INTO draw_started
            FROM draws_rapslist l JOIN draws_draw d ON d.id = l.draw_id WHERE l.id = OLD.raps_list_id;
    END IF;
    IF draw_started IS NOT NULL THEN
        RAISE EXCEPTION 'the RAPS session has started: % refused on %', TG_OP, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER draws_rapslist_frozen
    BEFORE UPDATE OR DELETE ON draws_rapslist
    FOR EACH ROW EXECUTE FUNCTION draws_raps_frozen();
CREATE TRIGGER draws_rapsentry_frozen
    BEFORE UPDATE OR DELETE ON draws_rapsentry
    FOR EACH ROW EXECUTE FUNCTION draws_raps_frozen();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS draws_rapsentry_frozen ON draws_rapsentry;
DROP TRIGGER IF EXISTS draws_rapslist_frozen ON draws_rapslist;
DROP FUNCTION IF EXISTS draws_raps_frozen();
DROP TRIGGER IF EXISTS draws_activation_frozen ON draws_activation;
DROP FUNCTION IF EXISTS draws_activation_frozen();
DROP TRIGGER IF EXISTS draws_draw_record_frozen ON draws_draw;
DROP FUNCTION IF EXISTS draws_draw_record_frozen();
"""


class Migration(migrations.Migration):
    dependencies = [("draws", "0008_picks_append_only")]
    operations = [postgresql_only(FORWARD, BACKWARD)]
