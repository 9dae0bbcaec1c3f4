from django.db import migrations

from core.migration_sql import postgresql_only

# A draw's picks are its record: the database refuses to delete one, or to change one except to
# record the outcome of a pick that has none yet (DRAWS.md §3: kept, in order, never edited).
FORWARD = """
CREATE OR REPLACE FUNCTION draws_drawpick_write_once() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'draw picks are never deleted: DELETE refused on draws_drawpick'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF OLD.outcome <> '' OR NEW.outcome = ''
       OR ROW(NEW.id, NEW.draw_id, NEW.seq, NEW.pool, NEW.k, NEW.serial, NEW.member_id, NEW.card_number,
              NEW.picked_at, NEW.picked_by)
          IS DISTINCT FROM
          ROW(OLD.id, OLD.draw_id, OLD.seq, OLD.pool, OLD.k, OLD.serial, OLD.member_id, OLD.card_number,
              OLD.picked_at, OLD.picked_by)
    THEN
        RAISE EXCEPTION 'a draw pick is never edited: only the outcome of a pick without one is recorded'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER draws_drawpick_write_once
    BEFORE UPDATE OR DELETE ON draws_drawpick
    FOR EACH ROW EXECUTE FUNCTION draws_drawpick_write_once();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS draws_drawpick_write_once ON draws_drawpick;
DROP FUNCTION IF EXISTS draws_drawpick_write_once();
"""


class Migration(migrations.Migration):
    dependencies = [("draws", "0007_draw_runs")]
    operations = [postgresql_only(FORWARD, BACKWARD)]
