import importlib

from django.db import migrations, models

from core.migration_sql import postgresql_only

# DRAWS.md §6 format 2: the record names the software that ran the draw, stored when it starts.
# draws_draw_guard (0010) lets each step change only its own columns and freezes any column it
# does not name, so the new column joins the run's columns: never set before the start nor
# on INSERT, set by closed -> running, and frozen after. The function is 0010's, byte for byte,
# with software_version added to those three places (same schema qualification and fixed
# search_path: the text comes from 0010 itself).

_0010 = importlib.import_module("draws.migrations.0010_draw_commitments_and_locks")


def _guard(sql: str) -> str:
    """0010's CREATE OR REPLACE FUNCTION draws_draw_guard(), and nothing else of it."""
    start = sql.index("CREATE OR REPLACE FUNCTION @schema@.draws_draw_guard()")
    end = sql.index("$$;", start) + len("$$;")
    return sql[start:end] + "\n"


def _replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise ValueError(f"0010's draws_draw_guard changed: {old!r} is not there exactly once")
    return text.replace(old, new)


OLD_GUARD = _guard(_0010.FORWARD)
NEW_GUARD = _replace_once(
    _replace_once(
        _replace_once(
            OLD_GUARD,
            "'witness_name',\n                                         'completed_at', 'ended_short_reason'];",
            "'witness_name',\n                                         'completed_at', 'ended_short_reason', 'software_version'];",
        ),
        "OR NEW.ended_short_reason <> '' THEN",
        "OR NEW.ended_short_reason <> '' OR NEW.software_version <> '' THEN",
    ),
    "allowed := ARRAY['status', 'started_at', 'started_by', 'witness_name', 'winners_wanted', 'win_once'];",
    "allowed := ARRAY['status', 'started_at', 'started_by', 'witness_name', 'winners_wanted', 'win_once',\n"
    "                          'software_version'];",
)


class Migration(migrations.Migration):
    dependencies = [
        ("draws", "0010_draw_commitments_and_locks"),
    ]

    operations = [
        migrations.AddField(
            model_name="draw",
            name="software_version",
            field=models.CharField(
                blank=True,
                help_text="The commit (or release) of promodesk that started the draw (DRAWS.md §6).",
                max_length=80,
            ),
        ),
        postgresql_only(NEW_GUARD, OLD_GUARD, in_schema=True),
    ]
