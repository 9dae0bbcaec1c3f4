import importlib

from django.db import migrations

from core.migration_sql import postgresql_only

# TH r69 (A20): the 9pm finalist draw picks until the car draw has six distinct finalists, so a
# running draw may come to want more winners (draws.winner_counts; engine._winners_wanted_raise).
# draws_draw_guard let a running draw change only its witness: running -> running now also lets
# winners_wanted rise, never fall. The function is 0013's, with that one branch extended.

_0013 = importlib.import_module("draws.migrations.0013_draw_software_version")

RUNNING = """    ELSIF step = 'running -> running' THEN
        -- The witness of a draw the tick started is named once.
        allowed := CASE WHEN OLD.witness_name = '' THEN ARRAY['witness_name'] ELSE '{}' END;
"""
RUNNING_RAISED = """    ELSIF step = 'running -> running' THEN
        -- The witness of a draw the tick started is named once; the winners wanted only rise
        -- (a finalist draw filling its places, TH r69).
        allowed := CASE WHEN OLD.witness_name = '' THEN ARRAY['witness_name'] ELSE '{}' END;
        IF NEW.winners_wanted > OLD.winners_wanted THEN
            allowed := allowed || ARRAY['winners_wanted'];
        END IF;
"""

OLD_GUARD = _0013.NEW_GUARD
if OLD_GUARD.count(RUNNING) != 1:
    raise ValueError("0013's draws_draw_guard changed: its running -> running branch is not there exactly once")
NEW_GUARD = OLD_GUARD.replace(RUNNING, RUNNING_RAISED)


class Migration(migrations.Migration):
    dependencies = [
        ("draws", "0015_carried_entries"),
    ]

    operations = [
        postgresql_only(NEW_GUARD, OLD_GUARD, in_schema=True),
    ]
