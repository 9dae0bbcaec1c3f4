"""Database expressions shared by models (indexes) and hand-written SQL that must match them."""

from django.db import models


def utc_date_sql(column: str, vendor: str) -> str:
    """The UTC day of a timestamp column, as SQL. A query must spell it exactly like this for
    PostgreSQL to use an index on UtcDate (the planner matches the expression, not its meaning)."""
    if vendor == "postgresql":
        return f"(({column} AT TIME ZONE 'UTC'))::date"
    return f"date({column})"  # SQLite keeps aware datetimes as UTC text: its first 10 characters


class UtcDate(models.Func):
    """The UTC day of a datetime: the same day whatever the server's or the session's time zone,
    so it may key an index (TruncDate takes the current time zone, fixed only at migration)."""

    output_field = models.DateField()

    def as_sql(self, compiler, connection, **extra_context):
        column, params = compiler.compile(self.source_expressions[0])
        return utc_date_sql(column, connection.vendor), params
