import importlib

import django.db.models.deletion
from django.db import migrations, models

from core.migration_sql import postgresql_only

# Nobody chooses a winner (issue 12): from the moment a draw's entries freeze, the database itself
# refuses every change to its entries, seed, commitments, settings, witness and picks except the
# engine's next step, whoever asks (the application's role included).
#
# - Every function names its tables with their schema and runs with a fixed search_path that
#   puts pg_temp last: a TEMP table called draws_draw cannot stand in for the real one
#   (core.dbroles also takes TEMPORARY away from the application's role).
# - draws_draw: a draw is created scheduled with nothing frozen or run; its status moves only
#   along the engine's steps (scheduled -> closed | cancelled, closed -> running | cancelled,
#   running -> drawn); each step may change only its own columns (below); a drawn or cancelled
#   draw never changes. The columns are compared as a whole row (to_jsonb), so a column added
#   later is frozen too unless a step names it.
# - Activations change only while their draw is scheduled and not frozen; a RAPS list and its
#   entries only until the session starts; a pick is made (and its outcome recorded) only while
#   its draw runs; picks are never deleted nor edited (0008, now with a fixed search_path).
# - draws_drawcommitment: each time a draw's entry-list hash or seed hash is set or replaced, a
#   SECURITY DEFINER trigger appends what they became; nobody updates or deletes a row, and a
#   row is written by that trigger only. Draws frozen before this migration get their rows from
#   the audit log's append-only events (the freeze; each RAPS upload before the start).

# Draws frozen before this migration: their commitments as the audit log recorded them.
BACKFILL = r"""
INSERT INTO @schema@.draws_drawcommitment (draw_id, step, entries_sha256, seed_sha256, recorded_at, db_user)
SELECT d.id, x.step, coalesce(x.entries_sha256, ''), coalesce(x.seed_sha256, ''), x.created_at,
       'from the audit log (migration 0010)'
  FROM @schema@.draws_draw AS d
  CROSS JOIN LATERAL (
      (SELECT 'entries_frozen' AS step, e.data->>'entries_sha256' AS entries_sha256,
              e.data->>'seed_sha256' AS seed_sha256, e.created_at, e.id
         FROM @schema@.core_auditevent AS e
        WHERE e.object_type = 'draws.draw' AND e.object_id = d.id::text AND e.action = 'draw.entries_frozen'
        ORDER BY e.created_at, e.id LIMIT 1)
      UNION ALL
      (SELECT 'raps_list', e.data->>'list_sha256', e.data->>'seed_sha256', e.created_at, e.id
         FROM @schema@.core_auditevent AS e
        WHERE d.method = 'raps' AND e.object_type = 'draws.draw' AND e.object_id = d.id::text
          AND e.action = 'draw.raps_list_uploaded'
          AND e.created_at < coalesce(
              (SELECT min(s.created_at) FROM @schema@.core_auditevent AS s
                WHERE s.object_type = 'draws.draw' AND s.object_id = d.id::text AND s.action = 'draw.started'),
              'infinity')
        ORDER BY e.created_at, e.id)
  ) AS x
 ORDER BY d.id, x.created_at, x.id;
"""

FORWARD = r"""
-- The old functions named their tables without a schema: gone.
DROP TRIGGER IF EXISTS draws_draw_record_frozen ON @schema@.draws_draw;
DROP FUNCTION IF EXISTS @schema@.draws_draw_record_frozen();
DROP TRIGGER IF EXISTS draws_activation_frozen ON @schema@.draws_activation;
DROP FUNCTION IF EXISTS @schema@.draws_activation_frozen();
DROP TRIGGER IF EXISTS draws_rapslist_frozen ON @schema@.draws_rapslist;
DROP TRIGGER IF EXISTS draws_rapsentry_frozen ON @schema@.draws_rapsentry;
DROP FUNCTION IF EXISTS @schema@.draws_raps_frozen();
DROP TRIGGER IF EXISTS draws_drawpick_write_once ON @schema@.draws_drawpick;

-- draws_draw ------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION @schema@.draws_draw_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    run_columns CONSTANT text[] := ARRAY['started_at', 'started_by', 'winners_wanted', 'win_once', 'witness_name',
                                         'completed_at', 'ended_short_reason'];
    frozen_columns CONSTANT text[] := ARRAY['entries_frozen_at', 'entries_count', 'tickets_total', 'entries_sha256',
                                            'seed_sha256', 'seed_hex'];
    every_column text[];
    changed text[];
    allowed text[];
    step text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'scheduled' OR NEW.entries_frozen_at IS NOT NULL OR NEW.entries_sha256 <> ''
           OR NEW.seed_sha256 <> '' OR NEW.seed_hex <> '' OR NEW.entries_count <> 0 OR NEW.tickets_total <> 0
           OR NEW.started_at IS NOT NULL OR NEW.started_by <> '' OR NEW.witness_name <> ''
           OR NEW.winners_wanted IS NOT NULL OR NEW.win_once <> '' OR NEW.completed_at IS NOT NULL
           OR NEW.ended_short_reason <> '' THEN
            RAISE EXCEPTION 'a draw is created scheduled, with nothing frozen or run yet: INSERT refused'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF OLD.status <> 'scheduled' OR OLD.entries_frozen_at IS NOT NULL THEN
            RAISE EXCEPTION 'draw % is %: it is never deleted', OLD.id, OLD.status
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN OLD;
    END IF;

    SELECT coalesce(array_agg(n.key ORDER BY n.key), '{}'), (SELECT array_agg(k) FROM jsonb_object_keys(to_jsonb(NEW)) AS k)
      INTO changed, every_column
      FROM jsonb_each(to_jsonb(NEW)) AS n JOIN jsonb_each(to_jsonb(OLD)) AS o ON o.key = n.key
     WHERE n.value IS DISTINCT FROM o.value;
    IF cardinality(changed) = 0 THEN
        RETURN NEW;
    END IF;
    IF OLD.status IN ('drawn', 'cancelled') THEN
        RAISE EXCEPTION 'draw % is %: nothing on it changes any more (refused: %)', OLD.id, OLD.status,
            array_to_string(changed, ', ') USING ERRCODE = 'insufficient_privilege';
    END IF;

    step := OLD.status || ' -> ' || NEW.status;
    IF step = 'scheduled -> scheduled' THEN
        -- Before the freeze: its time, windows, name, serial counter... but nothing of the run.
        SELECT coalesce(array_agg(c), '{}') INTO allowed FROM unnest(every_column) AS c
         WHERE c <> ALL (run_columns || frozen_columns);
    ELSIF step = 'scheduled -> closed' THEN
        -- The freeze: the entry list, its hash and the seed's commitment.
        IF NEW.entries_frozen_at IS NULL THEN
            RAISE EXCEPTION 'draw % is closed only when its entries are frozen: refused', OLD.id
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        SELECT coalesce(array_agg(c), '{}') INTO allowed FROM unnest(every_column) AS c WHERE c <> ALL (run_columns);
    ELSIF step IN ('scheduled -> cancelled', 'closed -> cancelled') THEN
        allowed := ARRAY['status', 'change_reason'];
    ELSIF step = 'closed -> closed' THEN
        -- A RAPS session's active-player list is replaced (list and seed) until the start.
        IF OLD.method = 'raps' AND OLD.started_at IS NULL AND NEW.entries_frozen_at IS NOT NULL THEN
            allowed := frozen_columns;
        ELSE
            allowed := '{}';
        END IF;
    ELSIF step = 'closed -> running' THEN
        IF NEW.started_at IS NULL OR NEW.entries_frozen_at IS NULL THEN
            RAISE EXCEPTION 'draw % starts with its start time, on frozen entries: refused', OLD.id
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        allowed := ARRAY['status', 'started_at', 'started_by', 'witness_name', 'winners_wanted', 'win_once'];
    ELSIF step = 'running -> running' THEN
        -- The witness of a draw the tick started is named once.
        allowed := CASE WHEN OLD.witness_name = '' THEN ARRAY['witness_name'] ELSE '{}' END;
    ELSIF step = 'running -> drawn' THEN
        IF NEW.completed_at IS NULL THEN
            RAISE EXCEPTION 'draw % completes with its completion time: refused', OLD.id
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        allowed := ARRAY['status', 'completed_at', 'ended_short_reason'];
    ELSE
        RAISE EXCEPTION 'a draw does not go from % to % (draw %): refused', OLD.status, NEW.status, OLD.id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT changed <@ allowed THEN
        RAISE EXCEPTION 'draw % (%): its entries, seed, settings and run are frozen: % refused',
            OLD.id, step, array_to_string(ARRAY(SELECT unnest(changed) EXCEPT SELECT unnest(allowed)), ', ')
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER draws_draw_guard
    BEFORE INSERT OR UPDATE OR DELETE ON @schema@.draws_draw
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_draw_guard();

-- The commitments: appended by the database whenever a draw's hashes are set or replaced.
CREATE OR REPLACE FUNCTION @schema@.draws_draw_commitment_record() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, @schema@, pg_temp AS $$
BEGIN
    INSERT INTO @schema@.draws_drawcommitment (draw_id, step, entries_sha256, seed_sha256, recorded_at, db_user)
    VALUES (
        NEW.id,
        CASE WHEN NEW.method = 'raps' AND EXISTS (
                 SELECT 1 FROM @schema@.draws_rapslist AS l WHERE l.draw_id = NEW.id AND l.list_sha256 = NEW.entries_sha256)
             THEN 'raps_list' ELSE 'entries_frozen' END,
        NEW.entries_sha256, NEW.seed_sha256, clock_timestamp(), session_user
    );
    RETURN NULL;
END;
$$;
REVOKE ALL ON FUNCTION @schema@.draws_draw_commitment_record() FROM PUBLIC;

CREATE TRIGGER draws_draw_commitment
    AFTER UPDATE ON @schema@.draws_draw
    FOR EACH ROW
    WHEN (NEW.entries_sha256 IS DISTINCT FROM OLD.entries_sha256 OR NEW.seed_sha256 IS DISTINCT FROM OLD.seed_sha256)
    EXECUTE FUNCTION @schema@.draws_draw_commitment_record();

CREATE OR REPLACE FUNCTION @schema@.draws_drawcommitment_append_only() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
BEGIN
    IF TG_OP = 'INSERT' AND pg_trigger_depth() > 1 THEN
        RETURN NEW;  -- from draws_draw_commitment_record, the one writer
    END IF;
    RAISE EXCEPTION 'a draw''s commitments are written by the database alone and never changed: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER draws_drawcommitment_append_only
    BEFORE INSERT OR UPDATE OR DELETE ON @schema@.draws_drawcommitment
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_drawcommitment_append_only();

-- Activations -----------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION @schema@.draws_activation_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    the_draw bigint;
    draw_status text;
    frozen_at timestamptz;
BEGIN
    FOREACH the_draw IN ARRAY CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW.draw_id]
                                         WHEN 'DELETE' THEN ARRAY[OLD.draw_id]
                                         ELSE ARRAY[OLD.draw_id, NEW.draw_id] END LOOP
        -- FOR SHARE: waits for a freeze in progress and then reads the draw as it left it.
        SELECT d.status, d.entries_frozen_at INTO draw_status, frozen_at
          FROM @schema@.draws_draw AS d WHERE d.id = the_draw FOR SHARE;
        IF draw_status IS DISTINCT FROM 'scheduled' OR frozen_at IS NOT NULL THEN
            RAISE EXCEPTION 'the entries of draw % are frozen: % refused on its activations', the_draw, TG_OP
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    END LOOP;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END;
$$;

CREATE TRIGGER draws_activation_guard
    BEFORE INSERT OR UPDATE OR DELETE ON @schema@.draws_activation
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_activation_guard();

-- RAPS lists and their entries ------------------------------------------------------------------
CREATE OR REPLACE FUNCTION @schema@.draws_raps_guard() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    ids bigint[];
    one bigint;
    the_draw bigint;
    draw_status text;
    started timestamptz;
BEGIN
    IF TG_TABLE_NAME = 'draws_rapsentry' THEN
        ids := CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW.raps_list_id] WHEN 'DELETE' THEN ARRAY[OLD.raps_list_id]
                          ELSE ARRAY[OLD.raps_list_id, NEW.raps_list_id] END;
    ELSE
        ids := CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW.draw_id] WHEN 'DELETE' THEN ARRAY[OLD.draw_id]
                          ELSE ARRAY[OLD.draw_id, NEW.draw_id] END;
    END IF;
    FOREACH one IN ARRAY ids LOOP
        IF TG_TABLE_NAME = 'draws_rapsentry' THEN
            SELECT l.draw_id INTO the_draw FROM @schema@.draws_rapslist AS l WHERE l.id = one;
        ELSE
            the_draw := one;
        END IF;
        SELECT d.status, d.started_at INTO draw_status, started
          FROM @schema@.draws_draw AS d WHERE d.id = the_draw FOR SHARE;
        IF draw_status IS NULL OR draw_status NOT IN ('scheduled', 'closed') OR started IS NOT NULL THEN
            RAISE EXCEPTION 'the RAPS session of draw % has started (or ended): % refused on %', the_draw, TG_OP,
                TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
        END IF;
    END LOOP;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END;
$$;

CREATE TRIGGER draws_rapslist_guard
    BEFORE INSERT OR UPDATE OR DELETE ON @schema@.draws_rapslist
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_raps_guard();
CREATE TRIGGER draws_rapsentry_guard
    BEFORE INSERT OR UPDATE OR DELETE ON @schema@.draws_rapsentry
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_raps_guard();

-- Picks -----------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION @schema@.draws_drawpick_write_once() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
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
$$;

CREATE TRIGGER draws_drawpick_write_once
    BEFORE UPDATE OR DELETE ON @schema@.draws_drawpick
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_drawpick_write_once();

CREATE OR REPLACE FUNCTION @schema@.draws_drawpick_while_running() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, @schema@, pg_temp AS $$
DECLARE
    draw_status text;
BEGIN
    SELECT d.status INTO draw_status FROM @schema@.draws_draw AS d WHERE d.id = NEW.draw_id FOR SHARE;
    IF draw_status IS DISTINCT FROM 'running' THEN
        RAISE EXCEPTION 'draw % is not running (%): % refused on its picks', NEW.draw_id, coalesce(draw_status, 'missing'), TG_OP
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER draws_drawpick_while_running
    BEFORE INSERT OR UPDATE ON @schema@.draws_drawpick
    FOR EACH ROW EXECUTE FUNCTION @schema@.draws_drawpick_while_running();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS draws_drawpick_while_running ON @schema@.draws_drawpick;
DROP FUNCTION IF EXISTS @schema@.draws_drawpick_while_running();
DROP TRIGGER IF EXISTS draws_drawpick_write_once ON @schema@.draws_drawpick;
DROP FUNCTION IF EXISTS @schema@.draws_drawpick_write_once();
DROP TRIGGER IF EXISTS draws_rapsentry_guard ON @schema@.draws_rapsentry;
DROP TRIGGER IF EXISTS draws_rapslist_guard ON @schema@.draws_rapslist;
DROP FUNCTION IF EXISTS @schema@.draws_raps_guard();
DROP TRIGGER IF EXISTS draws_activation_guard ON @schema@.draws_activation;
DROP FUNCTION IF EXISTS @schema@.draws_activation_guard();
DROP TRIGGER IF EXISTS draws_drawcommitment_append_only ON @schema@.draws_drawcommitment;
DROP FUNCTION IF EXISTS @schema@.draws_drawcommitment_append_only();
DROP TRIGGER IF EXISTS draws_draw_commitment ON @schema@.draws_draw;
DROP FUNCTION IF EXISTS @schema@.draws_draw_commitment_record();
DROP TRIGGER IF EXISTS draws_draw_guard ON @schema@.draws_draw;
DROP FUNCTION IF EXISTS @schema@.draws_draw_guard();
"""

# Reversed, the triggers of 0008 and 0009 come back as they were.
_PICKS_0008 = importlib.import_module("draws.migrations.0008_picks_append_only")
_FROZEN_0009 = importlib.import_module("draws.migrations.0009_frozen_record")


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0003_audit_created_at_by_database"),
        ("draws", "0009_frozen_record"),
    ]

    operations = [
        migrations.CreateModel(
            name="DrawCommitment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "step",
                    models.CharField(
                        choices=[("entries_frozen", "Entries frozen"), ("raps_list", "Active-player list uploaded")],
                        max_length=16,
                    ),
                ),
                ("entries_sha256", models.CharField(max_length=64)),
                ("seed_sha256", models.CharField(max_length=64)),
                ("recorded_at", models.DateTimeField(help_text="The database's clock when the row was written.")),
                ("db_user", models.CharField(help_text="The database login that wrote the draw.", max_length=150)),
                (
                    "draw",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="commitments", to="draws.draw"
                    ),
                ),
            ],
            options={"ordering": ["draw", "id"]},
        ),
        # Reversed (operations run backwards): once this migration's triggers are gone, 0008's and
        # 0009's come back as they were.
        postgresql_only("SELECT 1", _PICKS_0008.FORWARD + _FROZEN_0009.FORWARD),
        postgresql_only(BACKFILL, "SELECT 1", in_schema=True),
        postgresql_only(FORWARD, BACKWARD, in_schema=True),
    ]
