"""Nobody chooses a winner (issue 12, findings 1 and 2): every attempt of the security test, made
AS THE APPLICATION'S DATABASE ROLE on real draws, is refused by PostgreSQL itself; the engine's
own steps still work as that role; and a seed swapped where a lock were missing fails Verify.

Each attempt runs in a savepoint with SET LOCAL ROLE (core/tests/test_audit_role.py), as
production's web, worker and beat connect as that role.
"""

import datetime as dt
import hashlib
import importlib
import re

import pytest
import time_machine
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.urls import reverse

from core.models import AuditEvent
from core.tests.test_audit_role import as_app_role
from draws.commitments import AUDIT_CHECK, DATABASE_CHECK, draw_verify, raps_uploads
from draws.engine import draw_start, draw_witness_record, pick_outcome_record
from draws.models import Activation, CommitmentStep, Draw, DrawCommitment, DrawPick, DrawStatus, PickOutcome
from draws.record import draw_record_files
from draws.services import draw_close_window, draws_cancel
from draws.tests.builders import MANAGER, SAST, add_entries, closed_draw
from draws.tests.factories import make_draw
from draws.tests.raps_fixtures import closed_session, csv_text, floor_players, floor_rows, raps_series, upload
from draws.tests.test_record_pages import pdf_text
from draws.verification import verify_record
from members.tests.factories import MemberFactory
from promotions.tests.factories import make_series
from testing.db import triggers_off

pytestmark = pytest.mark.django_db

ROLE = settings.DB_APP_ROLE
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
SESSION_AT = DRAW_AT - dt.timedelta(hours=1)  # a RAPS session an hour earlier, closed at its start
REFUSED = r"refused|permission denied|must be owner|is frozen|never|does not go|not running|has started"
CHOSEN_SEED = bytes(range(32))  # "a seed chosen offline"


@pytest.fixture(autouse=True)
def after_the_draw_time():
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):
        yield


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run_to_the_end(draw: Draw) -> Draw:
    while (pick := DrawPick.objects.filter(draw=draw, outcome="").first()) is not None:
        pick_outcome_record(
            actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
        )
    return Draw.objects.get(pk=draw.pk)


@pytest.fixture
def series(reference_data):
    series = make_series()
    series.winners_per_draw = 2
    series.save()
    return series


@pytest.fixture
def frozen(series) -> Draw:
    """Entries frozen, seed committed, not started: the window finding 1 used."""
    return closed_draw(series, DRAW_AT, [3, 40, 7, 50])[0]


@pytest.fixture
def running(series) -> Draw:
    draw, _ = closed_draw(series, DRAW_AT + dt.timedelta(minutes=1), [3, 40, 7, 50])
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    return Draw.objects.get(pk=draw.pk)


@pytest.fixture
def completed(series) -> Draw:
    draw, _ = closed_draw(series, DRAW_AT + dt.timedelta(minutes=2), [3, 40, 7, 50])
    # The clock stands a minute before its time: an early start, with its reason (issue 13).
    assert draw_start(
        actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness", early_start_reason="The stage is ready."
    )
    draw = run_to_the_end(draw)
    assert draw.status == DrawStatus.DRAWN
    return draw


@pytest.fixture
def raps_started(reference_data) -> Draw:
    """A RAPS session whose list was uploaded, then started (its first pick made)."""
    draw = closed_session(raps_series(winners=4), at=SESSION_AT)
    upload(draw, csv_text(*floor_rows(floor_players())), slot_quota=2, table_quota=2, now=SESSION_AT)
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness", now=SESSION_AT)
    return Draw.objects.get(pk=draw.pk)


def refused(sql: str, params=None, *, match: str = REFUSED) -> None:
    """`sql` run as the application's role is refused by the database."""
    with pytest.raises(DatabaseError, match=match), as_app_role() as cursor:
        cursor.execute(sql, params)


def row(draw: Draw) -> tuple:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_jsonb(d) FROM draws_draw d WHERE id = %s", [draw.pk])
        return cursor.fetchone()


# --- Finding 1: the seed swap between the freeze and Start --------------------------------------


def test_the_seed_and_its_commitment_cannot_be_swapped_after_the_freeze_before_start(frozen):
    before = row(frozen)
    refused(
        "UPDATE draws_draw SET seed_hex = %s, seed_sha256 = %s WHERE id = %s",
        [CHOSEN_SEED.hex(), sha256(CHOSEN_SEED), frozen.pk],
    )
    for column, value in [
        ("seed_hex", CHOSEN_SEED.hex()),
        ("seed_sha256", sha256(CHOSEN_SEED)),
        ("entries_sha256", sha256(b"")),
        ("tickets_total", 1),
        ("entries_frozen_at", None),
        ("status", "scheduled"),  # unfreeze, to freeze again with a chosen seed
        ("scheduled_at", DRAW_AT + dt.timedelta(days=1)),
        ("method", "manual"),
    ]:
        refused(f"UPDATE draws_draw SET {column} = %s WHERE id = %s", [value, frozen.pk])  # noqa: S608 (our names)
    assert row(frozen) == before
    assert [(c.entries_sha256, c.seed_sha256) for c in frozen.commitments.all()] == [
        (frozen.entries_sha256, frozen.seed_sha256)
    ]


def test_a_frozen_draw_is_not_deleted_nor_copied_and_a_scheduled_one_does_not_skip_the_freeze(frozen):
    refused("DELETE FROM draws_draw WHERE id = %s", [frozen.pk])
    columns = ", ".join(f.column for f in Draw._meta.concrete_fields if f.column != "id")
    refused(  # a copy of the frozen row, seed included, as a new draw
        f"INSERT INTO draws_draw ({columns}) SELECT {columns} FROM draws_draw WHERE id = %s",  # noqa: S608 (our names)
        [frozen.pk],
    )
    scheduled = make_draw(frozen.series, DRAW_AT + dt.timedelta(days=3))
    for overrides in (
        {"status": "drawn"},
        {"status": "running", "started_at": DRAW_AT},
        {"status": "closed"},  # closed without freezing its entries
        {"entries_frozen_at": DRAW_AT, "seed_hex": CHOSEN_SEED.hex(), "seed_sha256": sha256(CHOSEN_SEED)},
    ):
        sets = ", ".join(f"{key} = %s" for key in overrides)
        refused(f"UPDATE draws_draw SET {sets} WHERE id = %s", [*overrides.values(), scheduled.pk])  # noqa: S608
    assert not scheduled.commitments.exists()


# --- Finding 2: sidestepping the triggers with a TEMP table of the same name --------------------


@pytest.mark.parametrize("table", ["draws_draw", "draws_rapslist", "draws_activation", "draws_drawcommitment"])
def test_the_app_role_cannot_create_a_temp_table(db, table):
    refused(f"CREATE TEMP TABLE {table} (id int)", match="permission denied to create temporary tables")
    refused(f"CREATE TABLE pg_temp.{table} (id int)", match="permission denied to create temporary tables")


def test_the_app_role_holds_no_temp_and_only_reads_the_commitments(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT has_database_privilege(%s, current_database(), 'TEMPORARY')", [ROLE])
        assert cursor.fetchone()[0] is False
        cursor.execute(
            "SELECT privilege_type FROM information_schema.role_table_grants "
            "WHERE grantee = %s AND table_name = 'draws_drawcommitment' ORDER BY 1",
            [ROLE],
        )
        assert [r[0] for r in cursor.fetchall()] == ["SELECT"]


def shadow_and_attack(cursor, completed: Draw, running: Draw, raps_started: Draw) -> None:
    """With TEMP tables that say every draw is still scheduled, first on the search_path, try
    what the security test did; each statement must still be refused."""
    cursor.execute("CREATE TEMP TABLE draws_draw AS SELECT * FROM public.draws_draw")
    cursor.execute("UPDATE pg_temp.draws_draw SET status = 'scheduled', entries_frozen_at = NULL, started_at = NULL")
    cursor.execute("CREATE TEMP TABLE draws_rapslist AS SELECT * FROM public.draws_rapslist")
    cursor.execute("SET LOCAL search_path = pg_temp, public")
    member = MemberFactory().pk
    for sql, params in [
        ("DELETE FROM public.draws_activation WHERE draw_id = %s", [completed.pk]),
        ("UPDATE public.draws_activation SET member_id = %s WHERE draw_id = %s", [member, running.pk]),
        ("UPDATE public.draws_rapsentry SET card_number = card_number", []),
        ("UPDATE public.draws_draw SET status = 'running' WHERE id = %s", [completed.pk]),
    ]:
        cursor.execute("SAVEPOINT attempt")
        with pytest.raises(DatabaseError, match=REFUSED):
            cursor.execute(sql, params)
        cursor.execute("ROLLBACK TO SAVEPOINT attempt")
    cursor.execute("DROP TABLE pg_temp.draws_draw, pg_temp.draws_rapslist")


def test_a_temp_shadow_does_not_fool_the_triggers_even_for_a_role_that_has_temp(completed, running, raps_started):
    """The functions' fixed search_path (pg_temp last) and schema-qualified names: proven as the
    app role given TEMP for this test only (rolled back), and as the suite's superuser."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT quote_ident(current_database())")
        database = cursor.fetchone()[0]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f'GRANT TEMPORARY ON DATABASE {database} TO "{ROLE}"')
        cursor.execute(f'SET LOCAL ROLE "{ROLE}"')
        shadow_and_attack(cursor, completed, running, raps_started)
        cursor.execute("RESET ROLE")
        cursor.execute(f'REVOKE TEMPORARY ON DATABASE {database} FROM "{ROLE}"')
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        assert cursor.fetchone()[0] != ROLE
        shadow_and_attack(cursor, completed, running, raps_started)
    assert Activation.objects.filter(draw=completed).count() == 4


def test_every_guard_function_names_its_search_path_with_pg_temp_last(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.proname, p.proconfig FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid "
            "JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal "
            "AND (c.relname LIKE 'draws\\_%%' OR c.relname LIKE 'prizes\\_%%')"
        )
        functions = dict(cursor.fetchall())
    # draws: 0014 added the RAPS entries' statement guard; prizes: lines, jackpots; records: the
    # three-year retention (its row guard and the RAPS entries' statement guard); 0022 the draw's
    # version for the workers' copies (its own row's and the rows a copy holds).
    assert len(functions) == 14
    for name, config in functions.items():
        assert config is not None and config[-1].startswith("search_path="), name
        assert config[-1].replace(" ", "").endswith(",pg_temp"), name


# --- Finding 2: activations, RAPS rows, picks, status and witness --------------------------------


def test_the_activations_of_a_completed_draw_are_neither_deleted_nor_updated(completed):
    refused("DELETE FROM draws_activation WHERE draw_id = %s", [completed.pk])
    refused("UPDATE draws_activation SET tickets = tickets WHERE draw_id = %s", [completed.pk])
    refused("UPDATE draws_activation SET draw_id = %s WHERE draw_id = %s", [completed.pk, completed.pk])


def test_the_tickets_of_a_running_draw_cannot_be_given_to_one_member(running):
    chosen = MemberFactory()
    refused("UPDATE draws_activation SET member_id = %s WHERE draw_id = %s", [chosen.pk, running.pk])
    assert not Activation.objects.filter(draw=running, member=chosen).exists()


@pytest.mark.parametrize("draw_name", ["frozen", "completed"])
def test_no_activation_is_added_to_a_frozen_or_completed_draw(draw_name, request):
    draw = request.getfixturevalue(draw_name)
    member = MemberFactory()
    refused(
        "INSERT INTO draws_activation (draw_id, member_id, channel, first_serial, last_serial, tickets, breakdown, "
        "receipt_number, activated_at) VALUES (%s, %s, 'desk', %s, %s, 1000, '{}', 'X-1', now())",
        [draw.pk, member.pk, draw.tickets_total + 1, draw.tickets_total + 1000],
    )


def test_the_rows_of_a_started_raps_session_are_not_rewritten(raps_started):
    raps_list = raps_started.raps_list
    chosen = MemberFactory()
    entries = [(e.pool, e.row, e.member_id) for e in raps_list.entries.order_by("pool", "row")]
    refused("UPDATE draws_rapsentry SET member_id = %s WHERE raps_list_id = %s", [chosen.pk, raps_list.pk])
    refused("DELETE FROM draws_rapsentry WHERE raps_list_id = %s", [raps_list.pk])
    refused(
        "INSERT INTO draws_rapsentry (raps_list_id, pool, row, card_number, member_id, device_id, spend_cents) "
        "VALUES (%s, 'slot', 99, %s, %s, 'S99', 100)",
        [raps_list.pk, chosen.card_number, chosen.pk],
    )
    refused("UPDATE draws_rapslist SET canonical = '', list_sha256 = %s WHERE id = %s", [sha256(b""), raps_list.pk])
    refused("DELETE FROM draws_rapslist WHERE id = %s", [raps_list.pk])
    assert [(e.pool, e.row, e.member_id) for e in raps_list.entries.order_by("pool", "row")] == entries


@pytest.mark.parametrize("draw_name", ["frozen", "completed", "cancelled"])
def test_no_pick_is_added_to_a_draw_that_is_not_running(draw_name, request, series):
    if draw_name == "cancelled":
        draw = closed_draw(series, DRAW_AT + dt.timedelta(minutes=3), [5])[0]
        draws_cancel(actor=MANAGER, draw_ids=[draw.pk], reason="Venue closed")
    else:
        draw = request.getfixturevalue(draw_name)
    member = Activation.objects.filter(draw=draw).first().member
    refused(
        "INSERT INTO draws_drawpick (draw_id, seq, pool, k, serial, member_id, card_number, picked_at, picked_by, "
        "outcome, reason, outcome_by) VALUES (%s, 99, '', 99, 1, %s, %s, now(), 'x', 'present', '', 'x')",
        [draw.pk, member.pk, member.card_number],
    )


def test_the_picks_of_a_completed_draw_stay_as_they_were(completed):
    refused("UPDATE draws_drawpick SET outcome = 'no_show' WHERE draw_id = %s", [completed.pk])
    refused("DELETE FROM draws_drawpick WHERE draw_id = %s", [completed.pk])


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("status", "running"),
        ("status", "cancelled"),
        ("witness_name", "Somebody Else"),
        ("completed_at", DRAW_AT),
        ("ended_short_reason", "changed"),
        ("name", "Another name"),
        ("seed_hex", CHOSEN_SEED.hex()),
        ("early_start_reason", "another reason"),
        ("presentation_seconds", 900),
        ("one_selection_per_draw", True),
    ],
)
def test_a_completed_draw_does_not_change(completed, column, value):
    before = row(completed)
    refused(f"UPDATE draws_draw SET {column} = %s WHERE id = %s", [value, completed.pk])  # noqa: S608 (our names)
    assert row(completed) == before


def test_the_witness_is_named_once_while_the_draw_runs(running):
    refused("UPDATE draws_draw SET witness_name = 'Somebody Else' WHERE id = %s", [running.pk])
    # Issue 13: the stage's window, one selection per draw and the early start reason are the start's.
    refused("UPDATE draws_draw SET presentation_seconds = 3600 WHERE id = %s", [running.pk])
    refused("UPDATE draws_draw SET early_start_reason = 'rewritten' WHERE id = %s", [running.pk])
    refused("UPDATE draws_draw SET one_selection_per_draw = true WHERE id = %s", [running.pk])
    refused("UPDATE draws_draw SET winners_wanted = 1 WHERE id = %s", [running.pk])
    refused("UPDATE draws_draw SET status = 'closed' WHERE id = %s", [running.pk])


def test_the_serial_counters_fast_path_lets_through_the_counter_alone(series, frozen):
    """Migration 0018: a scheduled draw's update that moves only next_serial (every activation)
    skips the column-by-column comparison; anything with it, or the counter of a frozen draw,
    still meets every check, as the application's role."""
    scheduled = make_draw(series, DRAW_AT + dt.timedelta(days=1))
    with as_app_role() as cursor:
        cursor.execute("UPDATE draws_draw SET next_serial = next_serial + 5 WHERE id = %s", [scheduled.pk])
    assert Draw.objects.get(pk=scheduled.pk).next_serial == scheduled.next_serial + 5
    for also in ("seed_hex = 'ab'", "entries_count = 9", "started_by = 'x'", "status = 'running'"):
        before = row(scheduled)
        refused(f"UPDATE draws_draw SET next_serial = next_serial + 1, {also} WHERE id = %s", [scheduled.pk])  # noqa: S608
        assert row(scheduled) == before
    before = row(frozen)
    refused("UPDATE draws_draw SET next_serial = next_serial + 1 WHERE id = %s", [frozen.pk])
    assert row(frozen) == before


def test_a_running_draw_may_come_to_want_more_winners_never_fewer(running):
    """Migration 0016 (TH r69): the last finalist draw picks one more for each winner who already
    held a car draw place; the number only rises, and nothing else changes with it."""
    refused("UPDATE draws_draw SET winners_wanted = 1 WHERE id = %s", [running.pk])
    refused("UPDATE draws_draw SET winners_wanted = 3, seed_hex = 'ab' WHERE id = %s", [running.pk])
    with as_app_role() as cursor:
        cursor.execute("UPDATE draws_draw SET winners_wanted = 3 WHERE id = %s", [running.pk])
    assert Draw.objects.get(pk=running.pk).winners_wanted == 3


def test_nobody_writes_the_commitments_but_the_database(completed):
    commitment = completed.commitments.get()
    refused(
        "INSERT INTO draws_drawcommitment (draw_id, step, entries_sha256, seed_sha256, recorded_at, db_user) "
        "VALUES (%s, 'entries_frozen', '', '', now(), 'x')",
        [completed.pk],
    )
    refused("UPDATE draws_drawcommitment SET seed_sha256 = '' WHERE id = %s", [commitment.pk])
    refused("DELETE FROM draws_drawcommitment WHERE id = %s", [commitment.pk])
    # Not even the owner, short of switching the triggers off.
    with pytest.raises(DatabaseError, match="written by the database alone"), transaction.atomic():
        DrawCommitment.objects.filter(pk=commitment.pk).update(seed_sha256="")


@pytest.mark.parametrize(
    "attempt",
    [
        "ALTER TABLE draws_draw DISABLE TRIGGER draws_draw_guard",
        "ALTER TABLE draws_activation DISABLE TRIGGER ALL",
        "DROP TRIGGER draws_drawpick_while_running ON draws_drawpick",
        "SET session_replication_role = replica",
        "CREATE OR REPLACE FUNCTION draws_draw_guard() RETURNS trigger AS $$ BEGIN RETURN NEW; END $$ LANGUAGE plpgsql",
        "TRUNCATE draws_drawcommitment",
    ],
)
def test_the_app_role_cannot_switch_the_guards_off(db, attempt):
    refused(attempt, match="permission denied|must be owner")


# --- The engine's own steps still work as the application's role --------------------------------


def test_freeze_start_picks_outcomes_and_completion_work_as_the_app_role(series):
    draw = make_draw(series, DRAW_AT)
    with as_app_role():
        add_entries(draw, [3, 40, 7, 50])  # activations while scheduled
        assert draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
        assert draw_start(actor=MANAGER, draw_id=draw.pk)
        draw_witness_record(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
        draw = run_to_the_end(draw)
    assert draw.status == DrawStatus.DRAWN and draw.witness_name == "Thandi Witness"
    assert [(c.step, c.entries_sha256, c.seed_sha256) for c in draw.commitments.all()] == [
        (CommitmentStep.ENTRIES_FROZEN, draw.entries_sha256, draw.seed_sha256)
    ]
    report = draw_verify(draw)
    assert report.holds, report.text()
    assert {line.check for line in report.lines} >= {DATABASE_CHECK, AUDIT_CHECK}


def test_a_raps_list_is_replaced_before_the_start_as_the_app_role_and_the_uploads_are_counted(reference_data, manager):
    draw = closed_session(raps_series(winners=4), at=SESSION_AT)
    players = floor_players()
    with as_app_role():
        upload(draw, csv_text(*floor_rows(players)), slot_quota=2, table_quota=2, now=SESSION_AT)
        upload(
            draw,
            csv_text(*floor_rows(players)[1:]),
            slot_quota=2,
            table_quota=2,
            now=SESSION_AT,
            reason="A player left out by mistake",
        )
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness", now=SESSION_AT)
        draw = run_to_the_end(draw)
    assert draw.status == DrawStatus.DRAWN
    assert raps_uploads(draw) == 2
    steps = [c.step for c in draw.commitments.all()]
    assert steps == [CommitmentStep.ENTRIES_FROZEN, CommitmentStep.RAPS_LIST, CommitmentStep.RAPS_LIST]
    report = draw_verify(draw)
    assert report.holds, report.text()
    assert "uploaded 2 times" in next(line.detail for line in report.lines if line.check == DATABASE_CHECK)
    page = manager.get(reverse("draws:record", kwargs={"draw_id": draw.pk})).content.decode()
    assert re.search(r'id="raps-uploads">\s*uploaded 2 times', page)
    certificate = manager.get(reverse("draws:certificate", kwargs={"draw_id": draw.pk})).content
    assert "uploaded 2 times" in pdf_text(certificate)


def test_cancelling_a_frozen_draw_works_as_the_app_role(frozen):
    with as_app_role():
        draws_cancel(actor=MANAGER, draw_ids=[frozen.pk], reason="Venue closed")
    assert Draw.objects.get(pk=frozen.pk).status == DrawStatus.CANCELLED
    refused("UPDATE draws_draw SET status = 'closed' WHERE id = %s", [frozen.pk])


# --- Verify holds the record against the commitments, even where a lock were missing -----------


def swap_seed_and_run(draw: Draw) -> Draw:
    Draw.objects.filter(pk=draw.pk).update(seed_hex=CHOSEN_SEED.hex(), seed_sha256=sha256(CHOSEN_SEED))
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    return run_to_the_end(draw)


def test_a_seed_swapped_where_the_guard_were_missing_fails_verify_though_the_files_hold(frozen):
    with connection.cursor() as cursor:  # as the owner: the guard is gone (rolled back with the test)
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE waits for no pending check
        cursor.execute("ALTER TABLE draws_draw DISABLE TRIGGER draws_draw_guard")
    draw = swap_seed_and_run(frozen)
    files = draw_record_files(draw)
    assert verify_record(files.json, files.entries).holds  # the files alone cannot tell
    report = draw_verify(draw)
    assert not report.holds
    failed = {line.check: line.detail for line in report.failures}
    assert set(failed) == {DATABASE_CHECK, AUDIT_CHECK}
    assert "2 commitments" in failed[DATABASE_CHECK]
    assert frozen.seed_sha256 in failed[AUDIT_CHECK] and sha256(CHOSEN_SEED) in failed[AUDIT_CHECK]


def test_a_seed_swapped_with_every_trigger_off_fails_verify_on_the_commitment(frozen):
    with triggers_off():  # as the owner: no guard, and no commitment recorded for the swap
        Draw.objects.filter(pk=frozen.pk).update(seed_hex=CHOSEN_SEED.hex(), seed_sha256=sha256(CHOSEN_SEED))
    assert draw_start(actor=MANAGER, draw_id=frozen.pk)
    draw = run_to_the_end(frozen)
    files = draw_record_files(draw)
    assert verify_record(files.json, files.entries).holds
    report = draw_verify(draw)
    failed = {line.check: line.detail for line in report.failures}
    assert set(failed) == {DATABASE_CHECK, AUDIT_CHECK}
    assert frozen.seed_sha256 in failed[DATABASE_CHECK] and "not the ones committed" in failed[DATABASE_CHECK]


def test_the_verify_command_fails_on_a_swapped_seed(frozen):
    from django.core.management import CommandError, call_command

    with triggers_off():
        Draw.objects.filter(pk=frozen.pk).update(seed_hex=CHOSEN_SEED.hex(), seed_sha256=sha256(CHOSEN_SEED))
    assert draw_start(actor=MANAGER, draw_id=frozen.pk)
    run_to_the_end(frozen)
    with pytest.raises(CommandError, match=r"DOES NOT HOLD|DO NOT HOLD"):
        call_command("verify_draw", frozen.pk)


# --- Draws frozen before the migration get their commitments from the audit log -----------------


def test_the_migration_recovers_the_commitments_of_earlier_draws_from_the_audit_log(completed, raps_started):
    migration = importlib.import_module("draws.migrations.0010_draw_commitments_and_locks")
    before = [
        (c.draw_id, c.step, c.entries_sha256, c.seed_sha256) for c in DrawCommitment.objects.order_by("draw_id", "id")
    ]
    assert len(before) == 3  # the completed draw's freeze; the session's freeze and its upload
    with triggers_off(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM draws_drawcommitment")
        cursor.execute(migration.BACKFILL.replace("@schema@", "public"))
    after = [
        (c.draw_id, c.step, c.entries_sha256, c.seed_sha256) for c in DrawCommitment.objects.order_by("draw_id", "id")
    ]
    assert after == before
    assert AuditEvent.objects.filter(action="draw.entries_frozen").count() == 2
    assert draw_verify(completed).holds
