"""Raw SQL in migrations that only PostgreSQL runs (triggers, functions): SQLite, `make run`'s
zero-setup database, has neither, and its data is a demo's."""

from django.db import migrations
from django.db.migrations.operations.base import Operation

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


class UnlessPostgresql(Operation):
    """Schema operations that change Django's state everywhere but the database only where it is
    not PostgreSQL (SQLite, `make run`), for a change that PostgreSQL makes by raw SQL of its own
    (postgresql_only) because it cannot be said in Django's operations (a partitioned table)."""

    reversible = True

    def __init__(self, *operations):
        self.operations = operations

    def state_forwards(self, app_label, state):
        for operation in self.operations:
            operation.state_forwards(app_label, state)

    def _each(self, app_label, schema_editor, from_state, backwards: bool):
        states, state = [from_state], from_state
        for operation in self.operations:
            state = state.clone()
            operation.state_forwards(app_label, state)
            states.append(state)
        steps = list(zip(self.operations, states[:-1], states[1:], strict=True))
        for operation, before, after in reversed(steps) if backwards else steps:
            if backwards:
                operation.database_backwards(app_label, schema_editor, after, before)
            else:
                operation.database_forwards(app_label, schema_editor, before, after)

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor != "postgresql":
            self._each(app_label, schema_editor, from_state, backwards=False)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        # Django passes the state after this operation as from_state, the one before as to_state.
        if schema_editor.connection.vendor != "postgresql":
            self._each(app_label, schema_editor, to_state, backwards=True)

    def describe(self):
        return "Unless PostgreSQL: " + "; ".join(operation.describe() for operation in self.operations)


class RebuiltUnlessPostgresql(Operation):
    """State operations that Django cannot carry out on an existing table (a single primary key
    made composite), with the table rebuilt where the database is not PostgreSQL: made anew from
    the model as it is after them, and its rows copied by the columns both versions have (a
    column only the new one has must have a default; SQLite numbers a new integer key itself).
    PostgreSQL makes the change by raw SQL of its own (postgresql_only), keeping the rows in place."""

    reversible = True

    def __init__(self, model_name: str, *operations):
        self.model_name = model_name
        self.operations = operations

    def state_forwards(self, app_label, state):
        for operation in self.operations:
            operation.state_forwards(app_label, state)

    def _rebuild(self, app_label, schema_editor, before, after):
        if schema_editor.connection.vendor == "postgresql":
            return
        old = before.apps.get_model(app_label, self.model_name)
        new = after.apps.get_model(app_label, self.model_name)
        table, qn = old._meta.db_table, schema_editor.quote_name
        kept_columns = {field.column for field in old._meta.local_concrete_fields}
        columns = ", ".join(
            qn(field.column) for field in new._meta.local_concrete_fields if field.column in kept_columns
        )
        schema_editor.execute(f"ALTER TABLE {qn(table)} RENAME TO {qn(table + '__rebuilt')}")
        for index in old._meta.indexes:  # SQLite's index names are the database's, not the table's
            schema_editor.execute(f"DROP INDEX {qn(index.name)}")
        schema_editor.create_model(new)
        schema_editor.execute(
            f"INSERT INTO {qn(table)} ({columns}) SELECT {columns} FROM {qn(table + '__rebuilt')}"  # noqa: S608
        )
        schema_editor.execute(f"DROP TABLE {qn(table + '__rebuilt')}")

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        self._rebuild(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        # Django passes the state after this operation as from_state, the one before as to_state.
        self._rebuild(app_label, schema_editor, from_state, to_state)

    def describe(self):
        return f"Rebuild {self.model_name} unless PostgreSQL: " + "; ".join(o.describe() for o in self.operations)
