from django.db import migrations

from core.migration_sql import postgresql_only

# A prize line of a complete draw is never edited or deleted, whoever asks (the application's
# role included): a correction is a reversing line (prizes.services.prize_line_reverse), which
# this trigger holds to its shape: the same draw, pick, winner and kind as the line it reverses,
# for exactly the negative amount, and never of another reversal. A line is written only once
# its draw has started, for a pick of that draw and that pick's member. Named with the schema,
# with a fixed search_path (pg_temp last), like draws' guards (draws migration 0010).

FORWARD = r"""
CREATE OR REPLACE FUNCTION @schema@.prizes_prizeline_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    draw_status text;
    pick_row record;
    reversed record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT d.status INTO draw_status FROM @schema@.draws_draw AS d WHERE d.id = NEW.draw_id;
        IF draw_status IS DISTINCT FROM 'running' AND draw_status IS DISTINCT FROM 'drawn' THEN
            RAISE EXCEPTION 'draw % is %: prize lines are written only once it has started: refused',
                NEW.draw_id, draw_status USING ERRCODE = 'insufficient_privilege';
        END IF;
        SELECT p.draw_id, p.member_id INTO pick_row FROM @schema@.draws_drawpick AS p WHERE p.id = NEW.pick_id;
        IF pick_row.draw_id IS DISTINCT FROM NEW.draw_id OR pick_row.member_id IS DISTINCT FROM NEW.member_id THEN
            RAISE EXCEPTION 'a prize line belongs to a pick of its own draw and that pick''s member: refused'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF NEW.reverses_id IS NOT NULL THEN
            SELECT l.draw_id, l.pick_id, l.kind, l.amount_cents, l.source INTO reversed
              FROM @schema@.prizes_prizeline AS l WHERE l.id = NEW.reverses_id;
            IF reversed.draw_id IS DISTINCT FROM NEW.draw_id OR reversed.pick_id IS DISTINCT FROM NEW.pick_id
               OR reversed.kind IS DISTINCT FROM NEW.kind OR reversed.source = 'reversal'
               OR NEW.amount_cents IS DISTINCT FROM -reversed.amount_cents THEN
                RAISE EXCEPTION 'a reversing line is the exact negative of one line of the same winner: refused'
                    USING ERRCODE = 'insufficient_privilege';
            END IF;
        END IF;
        RETURN NEW;
    END IF;

    SELECT d.status INTO draw_status FROM @schema@.draws_draw AS d WHERE d.id = OLD.draw_id;
    IF draw_status = 'drawn' THEN
        RAISE EXCEPTION 'prize line % of complete draw % is never changed or deleted (add a reversing line): refused',
            OLD.id, OLD.draw_id USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    IF NEW.draw_id <> OLD.draw_id OR NEW.pick_id <> OLD.pick_id OR NEW.member_id <> OLD.member_id
       OR NEW.reverses_id IS DISTINCT FROM OLD.reverses_id THEN
        RAISE EXCEPTION 'prize line % stays with its draw, winner and the line it reverses: refused', OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER prizes_prizeline_guard BEFORE INSERT OR UPDATE OR DELETE ON @schema@.prizes_prizeline
    FOR EACH ROW EXECUTE FUNCTION @schema@.prizes_prizeline_guard();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS prizes_prizeline_guard ON @schema@.prizes_prizeline;
DROP FUNCTION IF EXISTS @schema@.prizes_prizeline_guard();
"""


class Migration(migrations.Migration):
    dependencies = [("prizes", "0001_boards_slots_lines")]

    operations = [postgresql_only(FORWARD, BACKWARD, in_schema=True)]
