import importlib

from django.db import migrations

from core.migration_sql import postgresql_only

# Issue 17: every activation moves a draw's serial counter (draws.services._take_serials), under
# the draw's row lock. draws_draw_guard compared the old and new rows column by column through
# jsonb (about 0.3 ms, a sixth of the lock) before allowing it. Now a scheduled draw whose update
# changes nothing but next_serial is let through at once: the same answer the comparison gives
# (scheduled -> scheduled allows the counter), found by comparing the whole rows with the
# counter put back. Any other change, or any other step, still goes through every check below.

_0016 = importlib.import_module("draws.migrations.0016_winners_wanted_raised")

DECLARE = """    step text;
BEGIN
"""
DECLARE_FAST = """    step text;
    counter_put_back @schema@.draws_draw;
BEGIN
"""
COMPARE = """    SELECT coalesce(array_agg(n.key ORDER BY n.key), '{}'), (SELECT array_agg(k) FROM jsonb_object_keys(to_jsonb(NEW)) AS k)
"""
COMPARE_FAST = (
    """    IF OLD.status = 'scheduled' AND NEW.status = 'scheduled' THEN
        -- Activations: only the serial counter moved (the row with it put back is the old one).
        counter_put_back := NEW;
        counter_put_back.next_serial := OLD.next_serial;
        IF counter_put_back IS NOT DISTINCT FROM OLD THEN
            RETURN NEW;
        END IF;
    END IF;

"""
    + COMPARE
)

OLD_GUARD = _0016.NEW_GUARD
for part in (DECLARE, COMPARE):
    if OLD_GUARD.count(part) != 1:
        raise ValueError(f"0016's draws_draw_guard changed: {part!r} is not there exactly once")
NEW_GUARD = OLD_GUARD.replace(DECLARE, DECLARE_FAST).replace(COMPARE, COMPARE_FAST)


class Migration(migrations.Migration):
    dependencies = [
        ("draws", "0017_list_keyset_index"),
    ]

    operations = [
        postgresql_only(NEW_GUARD, OLD_GUARD, in_schema=True),
    ]
