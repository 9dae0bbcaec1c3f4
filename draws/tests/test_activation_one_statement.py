"""The activation's one statement (issue 17): it takes the serials and writes the activation
and its audit event by itself, outside any transaction, so the draw's lock ends with it. Its
snapshot predates its wait for the lock, so what another desk commits meanwhile must reach it
through the draw row it waited for (Draw.activation_epoch, and the version draws 0022 keeps
there). Each race runs on real PostgreSQL connections, the activation made to wait behind the
other desk's open transaction; each control takes the epoch (and the version) away and shows the
race is real."""

import datetime as dt
import threading
import time
from contextlib import contextmanager

import pytest
import time_machine
from django.db import connection, transaction

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from draws import activation_cache
from draws import services as draw_services
from draws.models import Activation, Draw, DrawQuerySet
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.models import DrawSeries
from promotions.services import series_save
from promotions.tests.factories import make_series
from proxies.tests.factories import desk_actor, nominate

pytestmark = pytest.mark.django_db(transaction=True)

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)


def member(card: str):
    person = MemberFactory(card_number=card, first_name="Thandi", last_name=f"Nkosi{card[-2:]}")
    PointsEntryFactory(member=person, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))
    return person


def activate(person, draw: Draw) -> Activation:
    return activation_create(
        actor=Actor.system("test"), draw_id=draw.pk, card_number=person.card_number, channel="ehost"
    )


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(points_per_ticket=100), DRAW_AT)


def _waiting_for_the_draw_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock' AND query LIKE %s",
            ["%SET next_serial%"],
        )
        return cursor.fetchone()[0] > 0


def _activation_behind(change, person, draw) -> Activation | Exception:
    """`change` runs in another desk's transaction, kept open until this activation waits for the
    draw's lock behind it inside its one statement; then it commits. What the activation returned
    or raised."""
    changed, release = threading.Event(), threading.Event()
    outcome: dict = {}

    def other_desk():
        try:
            with transaction.atomic():
                change()
                changed.set()
                release.wait(10)
        except Exception as error:  # shown by the assertion on `changed` below
            outcome["desk"] = error
        finally:
            changed.set()
            connection.close()

    def activation():
        try:
            with time_machine.travel(IN_WINDOW, tick=False):
                outcome["activation"] = activate(person, draw)
        except Exception as error:
            outcome["activation"] = error
        finally:
            connection.close()

    desk = threading.Thread(target=other_desk)
    desk.start()
    assert changed.wait(10) and "desk" not in outcome, outcome
    activating = threading.Thread(target=activation)
    activating.start()
    deadline = time.monotonic() + 10
    while not _waiting_for_the_draw_lock() and time.monotonic() < deadline:
        time.sleep(0.02)
    waited = _waiting_for_the_draw_lock()
    release.set()
    desk.join(10)
    activating.join(10)
    assert waited, "the activation never waited for the draw's lock"
    return outcome["activation"]


def _without_the_epoch(monkeypatch):
    monkeypatch.setattr(DrawQuerySet, "bump_activation_epoch", lambda self: 0)


# What series_save writes: the rows whose triggers give the series' draws a new version.
SERIES_TABLES = (
    "promotions_drawseries",
    "promotions_earningrule",
    "promotions_drawseries_eligible_tiers",
    "promotions_drawseries_desk_assisted_tiers",
)


@contextmanager
def _without_the_version():
    """A rule saved leaves the draw's version as it was (draws 0022's triggers off meanwhile)."""
    with connection.cursor() as cursor:
        for table in SERIES_TABLES:
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER draws_copies_outdated")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            for table in SERIES_TABLES:
                cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER draws_copies_outdated")


@pytest.fixture
def participant_and_nominee(draw):
    participant, nominee = member("4700000001"), member("4700000009")
    with time_machine.travel(IN_WINDOW, tick=False):
        activate(participant, draw)
    return participant, nominee


def _nomination(participant, nominee, draw):
    actor = desk_actor()  # made in the test's connection, not the desk's
    return lambda: nominate(participant=participant, draw=draw, nominee=nominee, actor=actor, now=IN_WINDOW)


def test_a_nominee_registered_while_the_activation_waits_for_the_lock_is_refused(draw, participant_and_nominee):
    participant, nominee = participant_and_nominee

    outcome = _activation_behind(_nomination(participant, nominee, draw), nominee, draw)

    assert isinstance(outcome, DomainError), outcome
    assert outcome.code == "is_proxy"
    assert not Activation.objects.filter(draw=draw, member=nominee).exists()
    assert Draw.objects.get(pk=draw.pk).next_serial == 6  # the participant's five only


def test_control_without_the_epoch_the_waiting_nominee_activates(draw, participant_and_nominee, monkeypatch):
    participant, nominee = participant_and_nominee
    _without_the_epoch(monkeypatch)

    outcome = _activation_behind(_nomination(participant, nominee, draw), nominee, draw)

    assert isinstance(outcome, Activation), outcome  # a proxy holding tickets in the draw they stand in for


def _rule_change(draw):
    def save():
        series = DrawSeries.objects.select_related("rule").get(pk=draw.series_id)
        series.rule.points_per_ticket = 50
        series_save(
            actor=Actor.system("test"),
            series=series,
            eligible_tiers=list(series.eligible_tiers.all()),
            desk_tiers=list(series.desk_assisted_tiers.all()),
            rule=series.rule,
        )

    return save


def test_a_rule_saved_while_the_activation_waits_for_the_lock_refuses_it(draw):
    person = member("4700000002")

    outcome = _activation_behind(_rule_change(draw), person, draw)

    assert isinstance(outcome, DomainError), outcome
    assert outcome.code == "rule_changed"
    assert not Activation.objects.exists()
    # Counted again under the new rule, the member gets twice the tickets.
    with time_machine.travel(IN_WINDOW, tick=False):
        assert activate(person, draw).tickets == 10


def test_without_the_epoch_the_version_alone_refuses_a_rule_saved_while_the_activation_waits(draw, monkeypatch):
    person = member("4700000003")
    _without_the_epoch(monkeypatch)

    outcome = _activation_behind(_rule_change(draw), person, draw)

    assert isinstance(outcome, DomainError), outcome
    assert outcome.code == "rule_changed"
    assert not Activation.objects.exists()


def test_control_without_the_epoch_nor_the_version_the_waiting_activation_lands_under_the_old_rule(draw, monkeypatch):
    person = member("4700000002")
    _without_the_epoch(monkeypatch)

    with _without_the_version():
        outcome = _activation_behind(_rule_change(draw), person, draw)

    assert isinstance(outcome, Activation), outcome
    assert outcome.tickets == 5  # 500 points at the old 100 a ticket, under a rule of 50


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_statement_commits_by_itself_outside_a_transaction(draw):
    seen = []  # (in a transaction block, autocommit) when the statement that locks the draw runs

    def watch(execute, sql, params, many, context):
        if "SET next_serial" in sql:
            seen.append((connection.in_atomic_block, connection.get_autocommit()))
        return execute(sql, params, many, context)

    person = member("4700000003")
    with connection.execute_wrapper(watch):
        made = activate(person, draw)
    assert seen == [(False, True)]
    assert Activation.objects.filter(pk=made.pk, first_serial=1, last_serial=5).exists()


@time_machine.travel(IN_WINDOW, tick=False)
def test_inside_a_callers_transaction_a_refusal_leaves_it_usable(draw):
    person = member("4700000004")
    activate(person, draw)
    copy = activation_cache.load_draw(draw.pk)  # the worker's copy, as activation_create reads it
    with transaction.atomic():
        # The member activates again past the first look (as when two requests cross): the one
        # statement fails on the unique index, inside its savepoint.
        with pytest.raises(DomainError) as refused:
            draw_services._activate_at_once(
                actor=Actor.system("test"), draw=copy, member=person, channel="ehost", device=None, now=IN_WINDOW,
                standing=draw_services.member_allocation(copy, person, at=IN_WINDOW),
            )  # fmt: skip
        assert refused.value.code == "already_activated"
        assert "already activated 5 tickets for this draw at 10:00 (receipt" in refused.value.message
        assert Activation.objects.filter(member=person).count() == 1  # the transaction still answers


@time_machine.travel(IN_WINDOW, tick=False)
@pytest.mark.parametrize(("next_serial", "receipt_serial"), [(42, "00000042"), (123_456_789, "123456789")])
def test_the_receipt_number_pads_to_eight_digits_and_never_cuts(draw, next_serial, receipt_serial):
    Draw.objects.filter(pk=draw.pk).update(next_serial=next_serial)
    made = activate(member("4700000005"), draw)
    assert made.receipt_number == f"{draw.pk}-{receipt_serial}"
    assert Activation.objects.get(pk=made.pk).receipt_number == made.receipt_number


@time_machine.travel(IN_WINDOW, tick=False)
def test_both_paths_write_the_same_activation_and_audit_event(draw, monkeypatch):
    """The one statement and the re-checking path (taken when the draw changed) write alike."""
    one = activate(member("4700000006"), draw)
    monkeypatch.setattr(draw_services, "_activate_at_once", lambda **kwargs: None)
    other = activate(member("4700000007"), draw)

    def stored(activation):
        row = Activation.objects.values().get(pk=activation.pk)
        event = AuditEvent.objects.get(action="tickets.activated", object_id=str(activation.pk))
        return row, event

    (row_one, event_one), (row_other, event_other) = stored(one), stored(other)
    assert (row_one["first_serial"], row_one["last_serial"], row_other["first_serial"]) == (1, 5, 6)
    assert row_one["receipt_number"] == f"{draw.pk}-00000001" and row_other["receipt_number"] == f"{draw.pk}-00000006"
    assert event_one.data == {**event_other.data, "card_number": event_one.data["card_number"], "serials": [1, 5]}
    assert event_other.data["serials"] == [6, 10]
    assert (event_one.object_type, event_one.actor_label, event_one.action) == (
        event_other.object_type,
        event_other.actor_label,
        event_other.action,
    )
    for field in ("draw_id", "channel", "tickets", "breakdown", "activated_at", "device_id", "user_id"):
        assert row_one[field] == row_other[field], field


@pytest.mark.django_db
def test_the_receipt_has_its_unique_index_and_no_prefix_index():
    """Migration 0021: each activation writes no entry into an index nothing reads."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'draws_activation'")
        indexes = dict(cursor.fetchall())
    assert [d for d in indexes.values() if "(receipt_number)" in d and "UNIQUE" in d]
    assert not [d for d in indexes.values() if "receipt_number varchar_pattern_ops" in d]
