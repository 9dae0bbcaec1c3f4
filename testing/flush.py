"""Empty the tables after a transactional test with DELETE, not TRUNCATE (pytest plugin).

A test that commits (`transactional_db`, `live_server`, the worker and browser tests) is followed
by Django's `flush`: one `TRUNCATE` of every table. PostgreSQL makes a new file for each table,
index and TOAST table it truncates (several hundred here) and syncs them at commit, which took
~6 s a flush on a loaded machine; deleting the handful of rows such a test leaves takes <1 s.
The audit log refuses DELETE (a row trigger), so the rows go with the row triggers off
(`session_replication_role = replica`, which also skips the foreign-key checks: every table is
emptied at once, in any order). Only a superuser may set that, as the suite's `postgres` does;
for any other test user, or a flush that restarts sequences or cascades, Django's TRUNCATE stands.
`flush` still sends post_migrate afterwards (roles, permissions, the application role's grants).
"""

import pytest
from django.db.backends.postgresql.operations import DatabaseOperations

_truncate = DatabaseOperations.sql_flush


def _is_superuser(connection) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        row = cursor.fetchone()
    return bool(row and row[0])


def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
    if not tables or reset_sequences or allow_cascade or not _is_superuser(self.connection):
        return _truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
    # flush runs these in one transaction (execute_sql_flush), so SET LOCAL ends with it.
    return [
        f"{style.SQL_KEYWORD('SET LOCAL')} session_replication_role = replica;",
        *(f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};" for table in tables),
    ]


def pytest_configure(config: pytest.Config) -> None:
    DatabaseOperations.sql_flush = sql_flush


def pytest_unconfigure(config: pytest.Config) -> None:
    DatabaseOperations.sql_flush = _truncate
