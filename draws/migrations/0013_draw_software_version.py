import importlib

from django.db import migrations, models

from core.migration_sql import postgresql_only

# DRAWS.md §6 format 2: the record names the software that ran the draw, stored when it starts.
# draws_draw_guard (0010) lets each step change only its own columns and freezes any column it
# does not name, so the new column joins the run's columns: never set before the start nor
# on INSERT, set by closed -> running, and frozen after. The function is the one 0012 made
# (0010's with the stage's columns), with software_version added to those three places (same
# schema qualification and fixed search_path: the text comes from those migrations themselves).

_0012 = importlib.import_module("draws.migrations.0012_stage_conduct")


def _replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise ValueError(f"0012's draws_draw_guard changed: {old!r} is not there exactly once")
    return text.replace(old, new)


OLD_GUARD = _0012.AFTER + "\n"
NEW_GUARD = _replace_once(
    _replace_once(
        _replace_once(
            OLD_GUARD,
            "'early_start_reason',\n                                         'completed_at', 'ended_short_reason'];",
            "'early_start_reason',\n                                         'completed_at', 'ended_short_reason', "
            "'software_version'];",
        ),
        "OR NEW.early_start_reason <> '' THEN",
        "OR NEW.early_start_reason <> '' OR NEW.software_version <> '' THEN",
    ),
    _0012.NEW_COLUMNS + "];",
    _0012.NEW_COLUMNS + ",\n                          'software_version'];",
)


class Migration(migrations.Migration):
    dependencies = [
        ("draws", "0012_stage_conduct"),
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
