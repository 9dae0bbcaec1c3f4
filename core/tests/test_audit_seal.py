"""The sealed audit log (issue 16, part 2; docs/audit-seal.md): the canonical form against the
spec's worked example, sealing each Johannesburg day after midnight (empty days too, once only,
never before a transaction begun that day has ended), and verify_audit catching a deleted,
changed or inserted event in a sealed day as the tables' owner could make them.

Events are dated by the database (a trigger stamps created_at), whose clock time-machine does
not move: these tests write events on chosen days as the owner with triggers off
(session_replication_role = replica), as a tamperer would.
"""

import contextlib
import datetime as dt
import json
import re
from pathlib import Path

import pytest
import time_machine
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections, transaction

from config import tasks
from core import audit_seal
from core.audit import Actor, audit_log
from core.audit_seal import latest_seal, seal_due, verify_chain
from core.models import AuditEvent, AuditSeal
from core.seal_digest import GENESIS, VERSION, ZONE, day_bounds, day_digest, event_line
from core.tests.test_audit_role import as_app_role

SPEC = Path(settings.BASE_DIR) / "docs" / "audit-seal.md"
D1, D2, D3, D4 = (dt.date(2026, 3, day) for day in (1, 2, 3, 4))


def local(day: dt.date, hour: int = 12, minute: int = 0, second: int = 0, micro: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute, second, micro), tzinfo=ZONE)


def after_midnight(day: dt.date, minutes: int = 10):
    """The clock pinned `minutes` after the end of `day` (Johannesburg)."""
    return time_machine.travel(local(day + dt.timedelta(days=1), 0, minutes), tick=False)


@contextlib.contextmanager
def owner_without_triggers():
    """A cursor of the tables' owner (the test database's superuser) with every trigger off,
    for this block only (SET LOCAL would otherwise outlive the savepoint)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        try:
            yield cursor
        finally:
            cursor.execute("SET LOCAL session_replication_role = origin")


def event_at(moment: dt.datetime, action: str = "test.happened", **data) -> int:
    with owner_without_triggers() as cursor:
        cursor.execute(
            "INSERT INTO core_auditevent (created_at, actor_label, action, object_type, object_id, data) "
            "VALUES (%s, 'test', %s, '', '', %s::jsonb) RETURNING id",
            [moment, action, json.dumps(data)],
        )
        return cursor.fetchone()[0]


@pytest.fixture
def three_sealed_days(db):
    """Events on 1, 2 and 3 March 2026, each day sealed; returns the events' ids by day."""
    ids = {
        D1: [event_at(local(D1, 9), n=1), event_at(local(D1, 15), n=2)],
        D2: [event_at(local(D2, 8), n=3), event_at(local(D2, 13), n=4), event_at(local(D2, 21), n=5)],
        D3: [event_at(local(D3, 10), n=6)],
    }
    with after_midnight(D3):
        assert [seal.day for seal in seal_due()] == [D1, D2, D3]
    return ids


# --- The canonical form: the spec's worked example ------------------------------------------

EXAMPLE_ROWS = [
    (
        41,
        dt.datetime(2026, 2, 28, 22, 0, 0, 120, tzinfo=dt.UTC),
        None,
        "system:tick",
        "draw.entries_frozen",
        "draws.draw",
        "7",
        None,
        {"tickets": 1200, "entries": 310},
    ),
    (
        43,
        local(D1, 20, 30, 5, 500000),
        3,
        "desk",
        "member.signed_up",
        "members.member",
        "1000000017",
        "10.0.0.5",
        {"name": "Zoë Nkosi", "card": {"tier": "Queen", "last4": "0017"}, "note": "line one\nline two"},
    ),
]


def spec_value(label: str) -> str:
    match = re.search(rf"{re.escape(label)}: `([0-9a-f]{{64}})`", SPEC.read_text(encoding="utf-8"))
    assert match, f"docs/audit-seal.md gives no {label}"
    return match.group(1)


def test_the_worked_example_of_the_spec():
    spec = SPEC.read_text(encoding="utf-8")
    first = day_digest(D1, GENESIS, EXAMPLE_ROWS)
    assert first.digest == spec_value("digest of 2026-03-01")
    assert (first.count, first.first_id, first.last_id) == (2, 41, 43)
    for row in EXAMPLE_ROWS:  # the bytes of each event, as the spec prints them
        assert event_line(row).decode("ascii").rstrip("\n") in spec
    empty = day_digest(D2, first.digest, [])
    assert empty.digest == spec_value("digest of 2026-03-02")
    assert (empty.count, empty.first_id, empty.last_id) == (0, None, None)


def test_the_digest_changes_with_any_field_the_order_or_the_previous_day():
    base = day_digest(D1, GENESIS, EXAMPLE_ROWS).digest
    changed = [list(row) for row in EXAMPLE_ROWS]
    changed[1][8] = {**EXAMPLE_ROWS[1][8], "name": "Zoe Nkosi"}
    assert day_digest(D1, GENESIS, changed).digest != base
    assert day_digest(D1, "1" * 64, EXAMPLE_ROWS).digest != base
    assert day_digest(D2, GENESIS, EXAMPLE_ROWS).digest != base
    with pytest.raises(ValueError, match="increasing id order"):
        day_digest(D1, GENESIS, list(reversed(EXAMPLE_ROWS)))


def test_a_johannesburg_day_runs_from_22h00_utc_to_22h00_utc():
    assert day_bounds(D1) == (dt.datetime(2026, 2, 28, 22, tzinfo=dt.UTC), dt.datetime(2026, 3, 1, 22, tzinfo=dt.UTC))


def test_the_version_tag_is_hashed():
    assert VERSION == "promodesk-audit-seal/1"
    assert f"`{VERSION}`" in SPEC.read_text(encoding="utf-8")


# --- Sealing ----------------------------------------------------------------------------------


def test_yesterday_is_sealed_after_midnight_and_not_before(db):
    first = event_at(local(D1, 0, 0, 0, 0))  # the day's first instant
    noon = event_at(local(D1, 12))
    last = event_at(local(D1, 23, 59, 59, 999999))
    event_at(local(D2, 0, 0, 0, 0))  # the next day's

    with time_machine.travel(local(D1, 23, 59), tick=False):
        assert seal_due() == []
    with after_midnight(D1, minutes=1):
        assert seal_due() == []  # within the grace period
    with after_midnight(D1, minutes=6):
        [seal] = seal_due()
    assert seal.day == D1
    assert (seal.event_count, seal.first_event_id, seal.last_event_id) == (3, first, last)
    assert seal.previous_digest == GENESIS
    assert seal.version == VERSION
    assert seal.sealed_at == local(D1 + dt.timedelta(days=1), 0, 6)
    rows = AuditEvent.objects.filter(pk__in=[first, noon, last]).order_by("id").values_list(*audit_seal.FIELDS)
    assert seal.digest == day_digest(D1, GENESIS, rows).digest
    assert latest_seal() == seal

    with after_midnight(D2):
        [second] = seal_due()
    assert (second.day, second.event_count, second.previous_digest) == (D2, 1, seal.digest)


def test_empty_days_are_sealed_too_so_the_chain_has_no_gap(db):
    event_at(local(D1, 10))
    event_at(local(D4, 10))
    with after_midnight(D4):
        seals = seal_due()
    assert [(s.day, s.event_count, s.first_event_id, s.last_event_id) for s in seals][1:3] == [
        (D2, 0, None, None),
        (D3, 0, None, None),
    ]
    assert [s.day for s in seals] == [D1, D2, D3, D4]
    assert [s.previous_digest for s in seals] == [GENESIS] + [s.digest for s in seals[:-1]]
    assert seals[1].digest == day_digest(D2, seals[0].digest, []).digest
    assert verify_chain().ok


def test_nothing_is_sealed_before_the_first_event(db):
    with after_midnight(D1):
        assert seal_due() == []
    assert verify_chain().ok
    assert verify_chain().message == "No day of the audit log is sealed yet: nothing to check."


def test_a_doubled_tick_seals_each_day_once(three_sealed_days):
    with after_midnight(D3):
        assert seal_due() == []
        assert seal_due() == []
    assert list(AuditSeal.objects.order_by("day").values_list("day", flat=True)) == [D1, D2, D3]


def test_max_days_seals_the_oldest_first_and_the_next_call_goes_on(db):
    for day in (D1, D2, D3):
        event_at(local(day))
    with after_midnight(D3):
        assert [s.day for s in seal_due(max_days=2)] == [D1, D2]
        assert [s.day for s in seal_due(max_days=2)] == [D3]


def test_the_tick_seals(db, monkeypatch):
    assert ("seal yesterday's audit log", seal_due) in tasks.TICK_STEPS
    event_at(local(D1))
    with after_midnight(D1):
        assert tasks.tick() == []
    assert latest_seal().day == D1


def test_the_sealer_never_holds_up_a_writer_of_the_audit_log(db, monkeypatch):
    """While a sealer reads a day under its lock, another connection appends to the audit log
    at once (lock_timeout 1 s would fail it if it had to wait)."""
    event_at(local(D1))
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    written = []
    reading = audit_seal.day_rows

    def rows_while_someone_writes(day):
        # Rolled back: this test's own rows vanish with its transaction, the other's would not.
        other.ensure_connection()
        raw = other.connection
        raw.execute("BEGIN")
        raw.execute("SET LOCAL lock_timeout = '1s'")
        written.append(
            raw.execute(
                "INSERT INTO core_auditevent (actor_label, action, object_type, object_id, data) "
                "VALUES ('desk', 'test.during_seal', '', '', '{}') RETURNING id"
            ).fetchone()[0]
        )
        raw.execute("ROLLBACK")
        return reading(day)

    monkeypatch.setattr(audit_seal, "day_rows", rows_while_someone_writes)
    try:
        with after_midnight(D1):
            assert [s.day for s in seal_due()] == [D1]
    finally:
        other.close()
    assert written


@pytest.mark.django_db(transaction=True)
def test_a_tick_while_another_sealer_holds_the_lock_skips_without_waiting():
    event_at(local(D1))
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(hashtext(%s))", [audit_seal.LOCK_NAME])
        with after_midnight(D1):
            assert seal_due() == []
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(hashtext(%s))", [audit_seal.LOCK_NAME])
        with after_midnight(D1):
            assert [s.day for s in seal_due()] == [D1]
    finally:
        other.close()


@pytest.mark.django_db(transaction=True)
def test_a_day_waits_for_a_transaction_begun_before_its_end_to_commit():
    """An event stamped at 23:59:59 by a transaction that commits after midnight is invisible
    until it commits: the seal waits for it rather than leave it out."""
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        other.ensure_connection()
        raw = other.connection
        raw.execute("BEGIN")
        raw.execute("SELECT 1")  # the transaction has begun (xact_start is set)
        stamped = raw.execute(
            "INSERT INTO core_auditevent (actor_label, action, object_type, object_id, data) "
            "VALUES ('desk', 'test.late_commit', '', '', '{}') RETURNING id, created_at"
        ).fetchone()
        late_id, late_at = stamped
        # The database's real clock dates it: seal its day from just after that day's end.
        day = late_at.astimezone(ZONE).date()
        audit_log(actor=Actor.system("test"), action="test.committed")  # the same day (or the next, at midnight)
        with after_midnight(day):
            assert all(seal.day < day for seal in seal_due())  # the day waits
            assert not AuditSeal.objects.filter(day__gte=day).exists()
        raw.execute("COMMIT")
        with after_midnight(day):
            sealed = {seal.day: seal for seal in seal_due()}
        assert day in sealed
        assert sealed[day].last_event_id >= late_id
        assert AuditEvent.objects.filter(
            pk=late_id, created_at__range=day_bounds(day)
        ).exists()  # the late event is in the sealed day
        check = verify_chain()
        assert check.ok, check.message
    finally:
        other.close()


# --- Verifying --------------------------------------------------------------------------------


def test_verify_audit_passes_on_an_intact_chain(three_sealed_days, capsys):
    check = verify_chain()
    assert check.ok
    assert (check.first_bad_day, check.days_checked, check.events_checked) == (None, 3, 6)
    assert check.latest == latest_seal()
    call_command("verify_audit")
    out = capsys.readouterr().out.strip()
    assert "\n" not in out
    assert out.startswith("The audit log holds: 3 sealed days from 2026-03-01 to 2026-03-03, 6 events")
    assert latest_seal().digest in out


def _delete(ids):
    with owner_without_triggers() as cursor:
        cursor.execute("DELETE FROM core_auditevent WHERE id = %s", [ids[D2][1]])


def _change(ids):
    with owner_without_triggers() as cursor:
        cursor.execute("UPDATE core_auditevent SET data = '{\"n\": 40}' WHERE id = %s", [ids[D2][1]])


def _change_actor(ids):
    with owner_without_triggers() as cursor:
        cursor.execute("UPDATE core_auditevent SET actor_label = 'manager' WHERE id = %s", [ids[D2][0]])


def _insert(ids):
    event_at(local(D2, 17), n=99)


def _move_out(ids):
    with owner_without_triggers() as cursor:
        cursor.execute("UPDATE core_auditevent SET created_at = %s WHERE id = %s", [local(D4, 9), ids[D2][2]])


@pytest.mark.parametrize(
    ("tamper", "words"),
    [
        (_delete, "1 event missing (sealed 3, found 2)"),
        (_change, "an event was changed"),
        (_change_actor, "an event was changed"),
        (_insert, "1 event inserted (sealed 3, found 4)"),
        (_move_out, "1 event missing"),
    ],
)
def test_one_event_deleted_changed_or_inserted_in_a_sealed_day_fails_and_names_it(three_sealed_days, tamper, words):
    assert verify_chain().ok
    tamper(three_sealed_days)
    check = verify_chain()
    assert not check.ok
    assert check.first_bad_day == D2
    assert check.message.startswith(f"The audit log of 2026-03-02 does not match its seal: {words}")
    with pytest.raises(CommandError, match=r"The audit log of 2026-03-02 does not match its seal"):
        call_command("verify_audit")
    # Checking from the day after, the tampered day is not recomputed (its seal still links).
    assert verify_chain(from_day=D3).ok


def test_an_event_inserted_before_the_first_sealed_day_fails(three_sealed_days):
    event_at(local(D1 - dt.timedelta(days=3)))
    check = verify_chain()
    assert (check.ok, check.first_bad_day) == (False, D1 - dt.timedelta(days=3))
    assert "inserted before the first sealed day" in check.message


def test_a_rewritten_seal_breaks_the_link_to_the_next_day(three_sealed_days):
    with owner_without_triggers() as cursor:
        cursor.execute("UPDATE core_auditseal SET previous_digest = %s WHERE day = %s", ["f" * 64, D3])
    check = verify_chain()
    assert (check.ok, check.first_bad_day) == (False, D3)
    assert "broken link" in check.message


def test_a_removed_seal_is_named(three_sealed_days):
    with owner_without_triggers() as cursor:
        cursor.execute("DELETE FROM core_auditseal WHERE day = %s", [D2])
    check = verify_chain()
    assert (check.ok, check.first_bad_day) == (False, D2)
    assert "seal is missing" in check.message


def test_verify_audit_from_a_day(three_sealed_days, capsys):
    call_command("verify_audit", "--from", "2026-03-02")
    assert "2 sealed days from 2026-03-02 to 2026-03-03" in capsys.readouterr().out
    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        call_command("verify_audit", "--from", "2 March")


# --- The database guards the seals ------------------------------------------------------------


@pytest.mark.parametrize(
    "attempt",
    ["UPDATE core_auditseal SET digest = repeat('0', 64)", "DELETE FROM core_auditseal"],
)
def test_the_app_role_cannot_update_or_delete_a_seal(three_sealed_days, attempt):
    with pytest.raises(DatabaseError, match="permission denied"), as_app_role() as cursor:
        cursor.execute(attempt)
    assert AuditSeal.objects.count() == 3


@pytest.mark.parametrize(
    "attempt",
    ["UPDATE core_auditseal SET digest = repeat('0', 64)", "DELETE FROM core_auditseal"],
)
def test_not_even_the_owner_updates_or_deletes_a_seal_with_the_triggers_on(three_sealed_days, attempt):
    with (
        pytest.raises(DatabaseError, match="audit seals are append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(attempt)
    assert verify_chain().ok


def test_the_app_role_may_only_read_and_append_seals(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT privilege_type FROM information_schema.role_table_grants "
            "WHERE grantee = %s AND table_name = 'core_auditseal' ORDER BY 1",
            [settings.DB_APP_ROLE],
        )
        assert [row[0] for row in cursor.fetchall()] == ["INSERT", "SELECT"]


def test_the_app_role_can_seal(db):
    """The tick runs as the application's role in production: it reads what it needs and inserts."""
    event_at(local(D1))
    with as_app_role(), after_midnight(D1):
        assert [s.day for s in seal_due()] == [D1]
    assert verify_chain().ok
