"""A RAPS session's entries are guarded once per statement (issue 13, item 12; migration 0014):
the database checks each distinct list and its draw once, not each of an upload's 100,000 rows,
with 0010's refusal. Made as the application's role, as production's web and worker connect.
Timings are bench/raps_upload.py's business, never asserted here."""

import datetime as dt
import importlib

import pytest
from django.db import DatabaseError, connection

from core.tests.test_audit_role import as_app_role
from draws.engine import draw_start
from draws.models import RapsEntry
from draws.tests.raps_fixtures import (
    ACTOR,
    SESSION,
    UPLOAD_AT,
    closed_session,
    csv_text,
    floor_players,
    floor_rows,
    raps_series,
    upload,
)

pytestmark = pytest.mark.django_db

STARTED = r"the RAPS session of draw \d+ has started \(or ended\): (INSERT|UPDATE|DELETE) refused on draws_rapsentry"
MIGRATION = importlib.import_module("draws.migrations.0014_raps_guard_per_statement")


@pytest.fixture
def sessions(reference_data):
    """Two sessions with the same ten players on their lists: one started, one still open."""
    series = raps_series(winners=4)
    rows = floor_rows(floor_players())
    started = closed_session(series, at=SESSION)
    upload(started, csv_text(*rows), slot_quota=2, table_quota=2)
    assert draw_start(actor=ACTOR, draw_id=started.pk, now=UPLOAD_AT)
    later = SESSION + dt.timedelta(days=7)
    still_open = closed_session(series, at=later)
    upload(still_open, csv_text(*rows), slot_quota=2, table_quota=2, now=later + dt.timedelta(minutes=5))
    return started.raps_list.pk, still_open.raps_list.pk


def refused(sql: str, params) -> None:
    with pytest.raises(DatabaseError, match=STARTED), as_app_role() as cursor:
        cursor.execute(sql, params)


def accepted(sql: str, params) -> int:
    with as_app_role() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def entries(list_id: int) -> list[tuple]:
    return list(
        RapsEntry.objects.filter(raps_list_id=list_id).order_by("pool", "row").values_list("row", "spend_cents")
    )


def guard_triggers() -> list[tuple]:
    """(name, row level?, before?, events, old table, new table, function) of draws_rapsentry's
    guards (the records app's three-year retention trigger is its own: records/tests/test_retention.py)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.tgname, (t.tgtype & 1) <> 0, (t.tgtype & 2) <> 0, "
            "concat_ws(' ', CASE WHEN t.tgtype & 4 <> 0 THEN 'INSERT' END, "
            "CASE WHEN t.tgtype & 8 <> 0 THEN 'DELETE' END, CASE WHEN t.tgtype & 16 <> 0 THEN 'UPDATE' END), "
            "t.tgoldtable, t.tgnewtable, p.proname "
            "FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid "
            "WHERE t.tgrelid = 'draws_rapsentry'::regclass AND NOT t.tgisinternal AND t.tgname LIKE 'draws\\_%%' "
            "ORDER BY t.tgname"
        )
        return cursor.fetchall()


def test_the_entries_are_checked_once_per_statement_from_its_transition_tables(db):
    function = "draws_rapsentry_guard_statement"
    assert guard_triggers() == [
        ("draws_rapsentry_guard_delete", False, False, "DELETE", "old_rows", None, function),
        ("draws_rapsentry_guard_insert", False, False, "INSERT", None, "new_rows", function),
        ("draws_rapsentry_guard_update", False, False, "UPDATE", "old_rows", "new_rows", function),
    ]


def test_a_started_sessions_entries_are_refused_in_every_statement(sessions):
    started, _ = sessions
    before = entries(started)
    refused("UPDATE draws_rapsentry SET spend_cents = spend_cents + 1 WHERE raps_list_id = %s", [started])
    refused("DELETE FROM draws_rapsentry WHERE raps_list_id = %s", [started])
    refused(  # many rows at once: the whole statement goes
        "INSERT INTO draws_rapsentry (raps_list_id, pool, row, card_number, member_id, device_id, spend_cents) "
        "SELECT raps_list_id, pool, row + 100, card_number, member_id, device_id, spend_cents "
        "FROM draws_rapsentry WHERE raps_list_id = %s",
        [started],
    )
    assert entries(started) == before


def test_one_started_list_among_the_statements_lists_refuses_it_all(sessions):
    started, still_open = sessions
    before = entries(still_open)
    refused(
        "UPDATE draws_rapsentry SET spend_cents = spend_cents + 1 WHERE raps_list_id IN (%s, %s)",
        [still_open, started],
    )
    assert entries(still_open) == before


def test_rows_moved_between_sessions_are_refused_from_either_side(sessions):
    started, still_open = sessions
    move = "UPDATE draws_rapsentry SET raps_list_id = %s, row = row + 100 WHERE raps_list_id = %s AND row = 1"
    refused(move, [still_open, started])  # out of the started session: its old rows say so
    refused(move, [started, still_open])  # into it: its new rows say so


def test_an_open_sessions_entries_still_change_until_the_start(sessions):
    _, still_open = sessions
    changed = accepted("UPDATE draws_rapsentry SET spend_cents = spend_cents + 1 WHERE raps_list_id = %s", [still_open])
    assert changed == 10
    assert accepted("DELETE FROM draws_rapsentry WHERE raps_list_id = %s AND pool = 'table'", [still_open]) == 4
    assert accepted("UPDATE draws_rapsentry SET spend_cents = 0 WHERE raps_list_id = -1", []) == 0  # no list at all


def test_reversed_the_migration_brings_back_0010s_row_trigger_with_the_same_refusal(sessions):
    started, _ = sessions
    with connection.cursor() as cursor:
        cursor.execute(MIGRATION.BACKWARD.replace("@schema@", "public"))
    assert guard_triggers() == [
        ("draws_rapsentry_guard", True, True, "INSERT DELETE UPDATE", None, None, "draws_raps_guard"),
    ]
    refused("DELETE FROM draws_rapsentry WHERE raps_list_id = %s", [started])
    with connection.cursor() as cursor:  # and forward again (the test's transaction undoes both)
        cursor.execute(MIGRATION.FORWARD.replace("@schema@", "public"))
    assert [name for name, *_ in guard_triggers()] == [
        "draws_rapsentry_guard_delete",
        "draws_rapsentry_guard_insert",
        "draws_rapsentry_guard_update",
    ]
