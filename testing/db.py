"""Database helpers for tests that stage a state directly instead of living through it."""

from contextlib import contextmanager

from django.db import connection, transaction


@contextmanager
def triggers_off():
    """The block runs with the database's row triggers off (session_replication_role = replica),
    as the suite's superuser: for a test that puts a draw straight into a state the engine reaches
    in several steps (a drawn draw for a list page, a pick in a closed session). Only a superuser
    may do this; the application's role may not (core/tests/test_audit_role.py)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        yield
        cursor.execute("SET LOCAL session_replication_role = origin")
