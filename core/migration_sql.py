"""Raw SQL in migrations that only PostgreSQL runs (triggers, functions): SQLite, `make run`'s
zero-setup database, has neither, and its data is a demo's."""

from django.db import migrations


def postgresql_only(forward: str, backward: str) -> migrations.RunPython:
    """A migration step that executes `forward` (and `backward` when reversed) on PostgreSQL only."""

    def run(sql: str):
        def step(apps, schema_editor):
            if schema_editor.connection.vendor == "postgresql":
                schema_editor.execute(sql, params=None)

        return step

    return migrations.RunPython(run(forward), run(backward))
