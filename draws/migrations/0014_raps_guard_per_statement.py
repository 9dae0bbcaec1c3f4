from django.db import migrations

from core.migration_sql import postgresql_only

# A RAPS session's entries change only until the session starts (0010), now checked once per
# statement instead of once per row (issue 13, item 12): 0010's row trigger looked up the list
# and locked its draw for each of an upload's 100,000 rows, so the upload held the draw's row
# lock (taken by draws.raps for the write) for seconds while the tick and the draw page waited.
# The statement trigger reads the statement's rows from its transition tables and checks each
# distinct list and its draw once, with the same refusal. Transition tables need an AFTER
# trigger, one per event: a refused statement is undone with its transaction all the same.
# draws_rapslist (one row per upload) keeps 0010's row trigger.

FORWARD = r"""
DROP TRIGGER IF EXISTS draws_rapsentry_guard ON @schema@.draws_rapsentry;

CREATE OR REPLACE FUNCTION @schema@.draws_rapsentry_guard_statement() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    lists bigint[];
    one bigint;
    the_draw bigint;
    draw_status text;
    started timestamptz;
BEGIN
    -- Each trigger below names only the transition tables its event has.
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(DISTINCT n.raps_list_id) INTO lists FROM new_rows AS n;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(DISTINCT o.raps_list_id) INTO lists FROM old_rows AS o;
    ELSE
        SELECT array_agg(DISTINCT x.id) INTO lists
          FROM (SELECT o.raps_list_id FROM old_rows AS o UNION SELECT n.raps_list_id FROM new_rows AS n) AS x(id);
    END IF;
    FOREACH one IN ARRAY coalesce(lists, '{}') LOOP
        SELECT l.draw_id INTO the_draw FROM @schema@.draws_rapslist AS l WHERE l.id = one;
        -- FOR SHARE: waits for a start in progress and then reads the draw as it left it.
        SELECT d.status, d.started_at INTO draw_status, started
          FROM @schema@.draws_draw AS d WHERE d.id = the_draw FOR SHARE;
        IF draw_status IS NULL OR draw_status NOT IN ('scheduled', 'closed') OR started IS NOT NULL THEN
            RAISE EXCEPTION 'the RAPS session of draw % has started (or ended): % refused on %', the_draw, TG_OP,
                TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
        END IF;
    END LOOP;
    RETURN NULL;
END;
$$;

CREATE TRIGGER draws_rapsentry_guard_insert
    AFTER INSERT ON @schema@.draws_rapsentry REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @schema@.draws_rapsentry_guard_statement();
CREATE TRIGGER draws_rapsentry_guard_update
    AFTER UPDATE ON @schema@.draws_rapsentry REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @schema@.draws_rapsentry_guard_statement();
CREATE TRIGGER draws_rapsentry_guard_delete
    AFTER DELETE ON @schema@.draws_rapsentry REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @schema@.draws_rapsentry_guard_statement();
"""

# 0010's row trigger, on 0010's function (which still checks draws_rapslist).
BACKWARD = r"""
DROP TRIGGER IF EXISTS draws_rapsentry_guard_insert ON @schema@.draws_rapsentry;
DROP TRIGGER IF EXISTS draws_rapsentry_guard_update ON @schema@.draws_rapsentry;
DROP TRIGGER IF EXISTS draws_rapsentry_guard_delete ON @schema@.draws_rapsentry;
DROP FUNCTION IF EXISTS @schema@.draws_rapsentry_guard_statement();

CREATE TRIGGER draws_rapsentry_guard
    BEFORE INSERT OR UPDATE OR DELETE ON @schema@.draws_rapsentry
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_raps_guard();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("draws", "0013_draw_software_version"),
    ]

    operations = [
        postgresql_only(FORWARD, BACKWARD, in_schema=True),
    ]
