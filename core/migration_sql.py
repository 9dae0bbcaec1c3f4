"""Raw SQL in migrations that only PostgreSQL runs (triggers, functions): SQLite, `make run`'s
zero-setup database, has neither, and its data is a demo's."""

from django.db import migrations

SCHEMA = "@schema@"


def postgresql_only(forward: str, backward: str, *, in_schema: bool = False) -> migrations.RunPython:
    """A migration step that executes `forward` (and `backward` when reversed) on PostgreSQL only.

    in_schema: every `@schema@` in the SQL becomes the (quoted) schema the migration runs in,
    so functions can name their tables and their search_path exactly: a trigger function that
    names a table without its schema reads whatever a session's search_path finds first, e.g. a
    TEMP table of the same name (pg_temp is searched first unless it is named last).
    """

    def run(sql: str):
        def step(apps, schema_editor):
            if schema_editor.connection.vendor != "postgresql":
                return
            text = sql
            if in_schema:
                with schema_editor.connection.cursor() as cursor:
                    cursor.execute("SELECT quote_ident(current_schema())")
                    text = sql.replace(SCHEMA, cursor.fetchone()[0])
            schema_editor.execute(text, params=None)

        return step

    return migrations.RunPython(run(forward), run(backward))
