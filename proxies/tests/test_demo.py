"""Issue 13, item 15: `make run`'s demo has draw night ready. At each property the demo draw
waiting for Start is this evening, its entries frozen, with a registered proxy and a decline
among its entrants (made through the desk's services); loading again adds nothing; the draw
runs end to end and its record verifies."""

import datetime as dt
import json

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from conftest import make_user, reference_rows
from core.audit import Actor
from core.models import AuditEvent
from core.roles import PROMOTIONS_MANAGER, REWARDS_DESK
from draws.commitments import draw_verify
from draws.demo import load_demo_promotion
from draws.demo_runs import load_demo_runs
from draws.engine import draw_start, pick_outcome_record
from draws.models import DrawStatus, PickOutcome
from draws.record import record_json
from members.demo import seed_members
from members.models import Property
from proxies.demo import DemoRegisters, load_demo_registers, waiting_demo_draws
from proxies.models import DeclineRegistration, ProxyNomination
from testing.db import shared_rows

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2025, 10, 16, 10, 0, tzinfo=SAST)
TONIGHT = dt.datetime(2025, 10, 16, 20, 30, tzinfo=SAST)
CLERK_AT = {"GRC": "desk", "GH": "manager", "EMN": "admin", "MC": "admin"}


def load(now: dt.datetime) -> DemoRegisters:
    with time_machine.travel(now, tick=False):
        load_demo_promotion(now=now)
        load_demo_runs(now=now)
        return load_demo_registers(now=now)


@pytest.fixture(scope="module")
def module_logins(django_db_setup, django_db_blocker):
    """The demo's logins where seed_demo puts them, and its members: made once for the module,
    each test's changes rolled back (testing.db.shared_rows)."""
    with shared_rows(django_db_blocker):
        with time_machine.travel(NOW, tick=False):
            reference_rows()
            manager = make_user(PROMOTIONS_MANAGER, username="manager", properties=("GRC", "GH"))
            make_user(REWARDS_DESK, username="desk", properties=("GRC",))
            make_user("superuser", username="admin")
            seed_members(count=300, recorder=manager)
        yield manager


@pytest.fixture
def logins(module_logins, db):
    return module_logins


@pytest.fixture
def demo(logins):
    return load(NOW)


def test_each_property_has_a_draw_tonight_with_a_proxy_and_a_decline_among_its_entrants(demo, logins, client):
    assert demo == DemoRegisters(nominations=4, declines=4)
    client.force_login(logins)
    for prop in Property.objects.all():
        draw = waiting_demo_draws(NOW).get(property=prop)
        assert draw.scheduled_at == TONIGHT and draw.entries_frozen_at <= NOW and draw.status == DrawStatus.CLOSED
        entrants = set(draw.activations.values_list("member", flat=True))
        nomination = ProxyNomination.objects.live().get(draw=draw)
        decline = DeclineRegistration.objects.live().get(draw=draw)
        assert nomination.participant_id in entrants and decline.member_id in entrants
        assert nomination.participant_id != decline.member_id
        assert nomination.nominee_member is not None and nomination.nominee_member_id not in entrants
        # Through the services, by a clerk of that casino, audited.
        assert nomination.registered_by.username == decline.registered_by.username == CLERK_AT[prop.code]
        assert AuditEvent.objects.filter(action="proxy.nominated", object_id=str(nomination.pk)).exists()
        assert AuditEvent.objects.filter(action="decline.registered", object_id=str(decline.pk)).exists()
        html = client.get(reverse("draws:detail", args=[draw.pk])).content.decode()
        assert "Proxies: 1 · Declines: 1" in html


def counts() -> tuple[int, ...]:
    registers = AuditEvent.objects.filter(action__in=["proxy.nominated", "decline.registered"])
    return (ProxyNomination.objects.count(), DeclineRegistration.objects.count(), registers.count())


def test_loading_again_adds_nothing(demo):
    before = counts()
    assert load(NOW + dt.timedelta(hours=2)) == DemoRegisters()  # the same draws waiting: nothing to add
    assert counts() == before


def test_late_in_the_evening_the_draw_is_three_hours_ahead_and_still_has_both(logins):
    late = dt.datetime(2025, 10, 16, 19, 10, tzinfo=SAST)
    assert load(late) == DemoRegisters(nominations=4, declines=4)
    for draw in waiting_demo_draws(late):
        assert timezone.localtime(draw.scheduled_at) == dt.datetime(2025, 10, 16, 22, 30, tzinfo=SAST)


def test_after_21h_the_proxy_waits_for_the_forms_to_open_and_the_command_says_so(logins):
    """The draw falls after midnight and its proxy forms open at midnight: the decline is
    registered now; the proxy is left for a later load, and the reason is given."""
    late = dt.datetime(2025, 10, 16, 22, 0, tzinfo=SAST)
    added = load(late)
    assert (added.nominations, added.declines) == (0, 4)
    assert len(added.notes) == 4 and all("no proxy: Proxy nominations for" in note for note in added.notes)
    after_midnight = late + dt.timedelta(hours=2, minutes=30)
    with time_machine.travel(after_midnight, tick=False):
        assert load_demo_registers(now=after_midnight) == DemoRegisters(nominations=4)


def test_draw_night_runs_end_to_end_and_its_record_verifies(demo, logins):
    """At Gold Reef City the manager starts tonight's draw early (with a reason) and records
    what the registers allow: Declined for the decliner, Proxy present for the represented
    member, Present for the others."""
    draw = waiting_demo_draws(NOW).get(property__code="GRC")
    decliner = DeclineRegistration.objects.get(draw=draw).member_id
    represented = ProxyNomination.objects.get(draw=draw).participant_id
    manager = Actor.for_user(logins)
    moment = NOW + dt.timedelta(minutes=5)
    assert draw_start(actor=manager, draw_id=draw.pk, early_start_reason="Demo: trying draw night.", now=moment)
    for _ in range(50):
        draw.refresh_from_db()
        pick = draw.picks.filter(outcome="").first()
        if draw.status != DrawStatus.RUNNING or pick is None:
            break
        outcome = {decliner: PickOutcome.DECLINED, represented: PickOutcome.PROXY_PRESENT}.get(
            pick.member_id, PickOutcome.PRESENT
        )
        moment = pick.picked_at + dt.timedelta(seconds=30)
        pick_outcome_record(
            actor=manager,
            draw_id=draw.pk,
            pick_id=pick.pk,
            outcome=outcome,
            id_type_seen="" if outcome == PickOutcome.DECLINED else "sa_id",
            now=moment,
        )
    assert draw.status == DrawStatus.DRAWN
    record = json.loads(record_json(draw))
    assert [n["member_id"] for n in record["registers"]["proxy"]] == [represented]
    assert [d["member_id"] for d in record["registers"]["decline"]] == [decliner]
    report = draw_verify(draw)
    assert report.holds, report.text()
