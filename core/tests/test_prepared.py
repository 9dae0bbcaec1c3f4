"""core.prepared: the activation's statements are prepared on the server, still seen by
Django's query log, and plain statements when the setting is off."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.prepared import prepared_cursor

pytestmark = pytest.mark.django_db

SQL = "SELECT %(a)s::integer + %(b)s::integer, %(note)s::text /* core.prepared test */"


def _prepared_here() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE statement LIKE %s", ["%core.prepared test%"])
        return [row[0] for row in cursor.fetchall()]


def test_a_statement_is_prepared_once_and_run_again_with_new_values():
    answers = []
    for a in (1, 2, 3):
        with prepared_cursor() as cursor:
            cursor.execute(SQL, {"a": a, "b": 40, "note": None})
            answers.append(cursor.fetchone())
    assert answers == [(41, None), (42, None), (43, None)]
    assert len(_prepared_here()) == 1  # bound on the server: $1, $2, $3, never the values
    assert "$1" in _prepared_here()[0]


def test_the_query_log_shows_the_values():
    with CaptureQueriesContext(connection) as queries, prepared_cursor() as cursor:
        cursor.execute(SQL, {"a": 5, "b": 6, "note": "it's"})
    (logged,) = [q["sql"] for q in queries.captured_queries]
    assert "5::integer + 6::integer" in logged and "'it''s'::text" in logged


def test_switched_off_it_is_a_plain_cursor(monkeypatch):
    connection.ensure_connection()
    monkeypatch.setattr(connection.connection, "prepare_threshold", None)
    with prepared_cursor() as cursor:
        cursor.execute(SQL, {"a": 1, "b": 1, "note": "x"})
        assert cursor.fetchone() == (2, "x")
    assert _prepared_here() == []


def test_a_long_statement_is_converted_once_however_long():
    """psycopg alone re-parses a statement over 4,096 bytes on every run (core.prepared)."""
    from psycopg._queries import _query2pg

    long_sql = SQL + " /* " + "x" * 5000 + " */"
    with prepared_cursor() as cursor:
        cursor.execute(long_sql, {"a": 1, "b": 2, "note": "first"})
        assert cursor.fetchone() == (3, "first")
    hits = _query2pg.cache_info().hits
    for a in (10, 20):
        with prepared_cursor() as cursor:
            cursor.execute(long_sql, {"a": a, "b": 2, "note": None})
            assert cursor.fetchone() == (a + 2, None)
    assert _query2pg.cache_info().hits == hits + 2
