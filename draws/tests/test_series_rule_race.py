"""A rule change and an activation cannot cross: series_save checks "no tickets out" under the
draw-row lock that activation takes, and activation re-checks the rule under that same lock.
Each race is run on real PostgreSQL connections, with a control that shows the race is real."""

import datetime as dt
import threading

import pytest
import time_machine
from django.db import connection, transaction

from core.audit import Actor
from core.errors import DomainError
from draws import services as draw_services
from draws.models import Activation, Draw
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.models import DrawSeries
from promotions.services import series_save
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db(transaction=True)

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)


@pytest.fixture
def setup(reference_data):
    draw = make_draw(make_series(points_per_ticket=100), DRAW_AT)
    member = MemberFactory(tier=reference_data["tiers"]["QUEEN"], card_number="4200000001")
    PointsEntryFactory(member=member, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))
    return draw, member


def _save_rule(series_id: int, points_per_ticket: int) -> None:
    series = DrawSeries.objects.select_related("rule").get(pk=series_id)
    rule = series.rule
    rule.points_per_ticket = points_per_ticket
    series_save(
        actor=Actor.system("test"),
        series=series,
        eligible_tiers=list(series.eligible_tiers.all()),
        desk_tiers=list(series.desk_assisted_tiers.all()),
        rule=rule,
    )


def _rule_change_while_an_activation_holds_the_lock(draw, member, *, lock: bool) -> str:
    """Thread 1 takes the draw lock and writes an activation, then waits; the rule change runs
    meanwhile in thread 2. Returns what the rule change said."""
    locked, release = threading.Event(), threading.Event()
    outcome = {}

    def activation_in_flight():
        try:
            with transaction.atomic():
                Draw.objects.select_for_update().get(pk=draw.pk)
                Activation.objects.create(
                    draw_id=draw.pk, member=member, channel="ehost", first_serial=1, last_serial=5, tickets=5,
                    receipt_number="race-1", activated_at=IN_WINDOW,
                )  # fmt: skip
                locked.set()
                release.wait(5)
        finally:
            connection.close()

    def rule_change():
        try:
            _save_rule(draw.series_id, 50)
            outcome["said"] = "saved"
        except DomainError as error:
            outcome["said"] = error.code
        finally:
            connection.close()

    first = threading.Thread(target=activation_in_flight)
    first.start()
    assert locked.wait(5)
    second = threading.Thread(target=rule_change)
    original = DrawSeries.has_tickets_out
    if not lock:  # the control: check without taking the lock activation takes
        DrawSeries.has_tickets_out = lambda self, lock=False: original(self, lock=False)
    try:
        second.start()
        second.join(1.0)  # with the lock it waits for the activation's transaction
        release.set()
        first.join(5)
        second.join(5)
    finally:
        DrawSeries.has_tickets_out = original
    return outcome["said"]


def test_a_rule_change_waits_for_an_activation_in_flight_and_is_refused(setup):
    draw, member = setup
    assert _rule_change_while_an_activation_holds_the_lock(draw, member, lock=True) == "series_live"
    assert DrawSeries.objects.get(pk=draw.series_id).rule.points_per_ticket == 100


def test_control_without_the_lock_the_rule_changes_under_live_tickets(setup):
    draw, member = setup
    assert _rule_change_while_an_activation_holds_the_lock(draw, member, lock=False) == "saved"
    assert DrawSeries.objects.get(pk=draw.series_id).rule.points_per_ticket == 50


def test_an_activation_counted_before_a_rule_change_is_refused_under_the_lock(setup, monkeypatch):
    draw, _member = setup
    counted = draw_services.member_allocation

    def count_then_rule_changes(*args, **kwargs):
        standing = counted(*args, **kwargs)
        changer = threading.Thread(target=lambda: (_save_rule(draw.series_id, 50), connection.close()))
        changer.start()  # another manager saves the rule between the count and the lock
        changer.join(5)
        return standing

    monkeypatch.setattr(draw_services, "member_allocation", count_then_rule_changes)
    with time_machine.travel(IN_WINDOW, tick=False), pytest.raises(DomainError) as refused:
        activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number="4200000001", channel="ehost")
    assert refused.value.code == "rule_changed"
    assert not Activation.objects.exists()


def test_control_without_the_re_check_the_activation_lands_under_the_old_rule(setup, monkeypatch):
    draw, _member = setup
    counted = draw_services.member_allocation

    def count_then_rule_changes(*args, **kwargs):
        standing = counted(*args, **kwargs)
        changer = threading.Thread(target=lambda: (_save_rule(draw.series_id, 50), connection.close()))
        changer.start()
        changer.join(5)
        return standing

    monkeypatch.setattr(draw_services, "member_allocation", count_then_rule_changes)
    monkeypatch.setattr(draw_services, "_rule_fingerprint", lambda draw: ())  # the re-check switched off
    with time_machine.travel(IN_WINDOW, tick=False):
        activation = activation_create(
            actor=Actor.system("test"), draw_id=draw.pk, card_number="4200000001", channel="ehost"
        )
    # 500 points: 5 tickets at the old 100 a ticket, while the rule now says 50 (10 tickets).
    assert activation.tickets == 5
    assert DrawSeries.objects.get(pk=draw.series_id).rule.points_per_ticket == 50
