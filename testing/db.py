"""Database helpers for tests that stage a state directly instead of living through it."""

from contextlib import contextmanager
from urllib.parse import quote

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


@contextmanager
def shared_rows(django_db_blocker):
    """For a fixture of module scope: the rows it makes inside the block stay for every test of
    the module and are rolled back after its last. A test's own transaction (pytest-django's
    `db`) nests inside as a savepoint, so what one test changes is gone before the next; a test
    that commits (`transactional_db`) cannot share them. For rows that take long to make (the
    demo): made once per module instead of once per test."""
    with django_db_blocker.unblock(), transaction.atomic():
        try:
            yield
        finally:
            transaction.set_rollback(True)


def server_url(settings_dict: dict, name: str | None = None) -> str:
    """A postgres:// URL for a DATABASES entry: its own database, or `name` on the same server
    (for a subprocess, or a connection made outside Django)."""
    user = quote(settings_dict.get("USER") or "", safe="")
    password = quote(settings_dict.get("PASSWORD") or "", safe="")
    credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or "5432"
    return f"postgres://{credentials}{host}:{port}/{quote(name or settings_dict['NAME'], safe='')}"
