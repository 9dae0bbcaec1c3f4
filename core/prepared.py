"""Server-side prepared statements, for the few statements every activation sends.

Django's PostgreSQL backend binds values on the client (psycopg's ClientCursor) and so never
prepares: PostgreSQL parses and plans each statement anew. The activation's statements take
longer to plan (0.3-1 ms each) than to run. `prepared_cursor()` is Django's own cursor wrapper
(execute wrappers, CaptureQueriesContext and the debug log still see every statement) around a
psycopg cursor that binds on the server and prepares each statement the first time this
connection runs it, so later runs skip the parse and the plan.

Values bound on the server carry their types: a None that becomes a column's value needs a
cast in the SQL (`%(device)s::bigint`), as text would not fit the column.

psycopg turns a statement's `%(name)s` placeholders into `$1` once per text, but only for texts
of at most 4,096 bytes and 50 values (its cache is for ORM statements, which rarely repeat); a
longer one is parsed again in Python on every run. The statements here are few and repeat on
every request, so `_PreparingCursor` caches every text (the activation's first statement, which
counts the member's tickets too, is over 4 KB).

Switched by the setting DB_PREPARED_STATEMENTS (psycopg prepares only when the connection has a
prepare threshold; config/settings.py sets one when it is on). Off, or on SQLite, this is a
plain cursor. Turn it off behind a pooler that cannot keep prepared statements (PgBouncer before
1.21, or without max_prepared_statements): docs/scaling.md.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper

try:
    import psycopg
except ImportError:  # SQLite only (make run's zero-setup defaults)
    psycopg = None


if psycopg is not None:
    from psycopg._queries import PostgresQuery, _query2pg  # psycopg is pinned (requirements.txt)

    class _CachedQuery(PostgresQuery):
        """psycopg's conversion of the placeholders, from its cache whatever the statement's size."""

        def convert(self, query, vars):
            if vars is None or not isinstance(query, str | bytes):  # no values, or a t-string Template
                return super().convert(query, vars)
            query = self._ensure_bytes(query)
            self.query, self._want_formats, self._order, self._parts = _query2pg(query, self._tx.encoding)
            self.dump(vars)

    class _PreparingCursor(psycopg.Cursor):
        """Binds on the server and prepares every statement it runs."""

        _query_cls = _CachedQuery

        def execute(self, query, params=None, *, prepare=None, binary=None):
            return super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)


class _DebugWrapper(CursorDebugWrapper):
    """Logs each statement with its values (connection.queries, CaptureQueriesContext): Django's
    reads them back from the cursor, which a statement bound on the server does not keep."""

    def debug_sql(self, sql=None, params=None, use_last_executed_query=False, many=False):
        if use_last_executed_query and not many:
            sql, use_last_executed_query = self.db.ops.compose_sql(sql, params), False
        return super().debug_sql(sql, params, use_last_executed_query, many)


@contextmanager
def prepared_cursor() -> Iterator[CursorWrapper]:
    """A cursor on Django's connection whose statements are prepared (see the module)."""
    db = connections[DEFAULT_DB_ALIAS]  # once: each attribute of the `connection` proxy is a lookup
    if db.vendor != "postgresql":
        with db.cursor() as cursor:
            yield cursor
        return
    db.close_if_health_check_failed()
    db.ensure_connection()
    if db.connection.prepare_threshold is None:  # DB_PREPARED_STATEMENTS off
        with db.cursor() as cursor:
            yield cursor
        return
    db.validate_thread_sharing()
    with db.wrap_database_errors:
        raw_cursor = _PreparingCursor(db.connection)
    wrapper = _DebugWrapper if db.queries_logged else CursorWrapper
    with wrapper(raw_cursor, db) as cursor:
        yield cursor
