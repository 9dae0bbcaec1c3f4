"""`make run`'s demo draws (issue 8, item 9): at each property an electronic draw completed
yesterday evening, with a no-show and its redraw, and a closed draw waiting for Start this
evening (issue 13: its registers are proxies/tests/test_demo.py's); loading again adds nothing.
The demo is loaded once for the module; test_demo_runs_fresh.py has the tests that load their own."""

import datetime as dt
import hashlib
import itertools

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from conftest import make_user, reference_rows
from core.models import AuditEvent
from core.roles import PROMOTIONS_MANAGER
from draws.demo import DEMO_PROMOTION_CODE, load_demo_promotion
from draws.demo_runs import ENTRANTS, DemoRuns, load_demo_runs
from draws.engine import draws_start_due
from draws.models import WINNING_OUTCOMES, Activation, Draw, DrawPick, DrawStatus, PickOutcome
from members.demo import seed_members
from members.models import Property
from promotions.models import DrawMethod
from testing.db import shared_rows

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2025, 10, 16, 10, 0, tzinfo=SAST)
YESTERDAY = dt.date(2025, 10, 15)


def load_demo() -> tuple:
    """The demo as `make run` loads it, the clock pinned at 10h00."""
    with time_machine.travel(NOW, tick=False):
        reference_rows()
        manager = make_user(PROMOTIONS_MANAGER, username="manager")
        seed_members(count=300, recorder=manager)
        load_demo_promotion(now=NOW)
        return manager, load_demo_runs(now=NOW)


@pytest.fixture(scope="module")
def module_demo(django_db_setup, django_db_blocker):
    """Loaded once for the module (a minute and more under load); each test's changes are
    rolled back (testing.db.shared_rows). Tests that need a database without it live in
    test_demo_runs_fresh.py."""
    with shared_rows(django_db_blocker):
        yield load_demo()


@pytest.fixture
def demo(module_demo, db):
    return module_demo


def demo_draws(status: str):
    return Draw.objects.filter(series__promotion__code=DEMO_PROMOTION_CODE, status=status)


def test_each_property_has_an_electronic_draw_completed_yesterday_with_a_redraw(demo):
    _, runs = demo
    assert runs.completed == Property.objects.count() == 4
    for number, prop in enumerate(Property.objects.order_by("code")):
        draw = demo_draws(DrawStatus.DRAWN).get(property=prop)
        assert draw.method == DrawMethod.ELECTRONIC
        at = dt.datetime(2025, 10, 15, 19, 10, tzinfo=SAST) + number * dt.timedelta(minutes=10)
        assert timezone.localtime(draw.scheduled_at) == at
        assert timezone.localdate(draw.completed_at) == YESTERDAY and not draw.ended_short_reason
        assert draw.started_by == "manager" and draw.witness_name
        assert draw.entries_count == ENTRANTS == draw.activations.count()
        picks = list(draw.picks.order_by("seq"))
        # The first pick put to the stage is a no-show, and its redraw follows (automatic
        # redraws may come before it: a member who won at another casino that day).
        no_show = next(p for p in picks if not p.outcome.startswith("redraw"))
        assert no_show.outcome == PickOutcome.NO_SHOW and picks[-1].seq > no_show.seq
        assert all(p.outcome for p in picks)
        winners = [p for p in picks if p.outcome in WINNING_OUTCOMES]
        assert len(winners) == draw.winners_wanted == 5
        assert draw.revealed_seed() == draw.seed_hex
        assert hashlib.sha256(bytes.fromhex(draw.revealed_seed())).hexdigest() == draw.seed_sha256


def test_yesterdays_picks_are_stamped_yesterday_evening(demo):
    """Every pick of yesterday's run carries yesterday's time: the picks that follow an outcome
    need pick_outcome_record to hand its `now` on to draw_advance."""
    for draw in demo_draws(DrawStatus.DRAWN):
        moments = [timezone.localtime(p.picked_at) for p in draw.picks.order_by("seq")]
        assert all(m.date() == YESTERDAY and m.hour == 19 for m in moments), (draw.name, moments)


def test_yesterdays_draws_follow_one_another(demo):
    """Run one after another, their clocks must not overlap (issue 15): each draw's picks and
    outcomes come before the next draw's start."""
    drawn = list(demo_draws(DrawStatus.DRAWN).order_by("started_at"))
    for draw, following in itertools.pairwise(drawn):
        last = draw.picks.order_by("-seq").first()
        assert last.outcome_at <= draw.completed_at < following.started_at, (draw.name, following.name)


def test_each_property_has_a_closed_draw_whose_page_offers_start_to_a_manager(demo, client):
    manager, runs = demo
    assert runs.waiting == 4
    client.force_login(manager)
    for prop in Property.objects.all():
        draw = demo_draws(DrawStatus.CLOSED).get(property=prop)
        assert draw.method == DrawMethod.ELECTRONIC and draw.entries_frozen_at <= NOW
        assert timezone.localtime(draw.scheduled_at) == dt.datetime(2025, 10, 16, 20, 30, tzinfo=SAST)  # tonight
        assert draw.entries_count == ENTRANTS and draw.tickets_total > ENTRANTS and not draw.picks.exists()
        html = client.get(reverse("draws:detail", args=[draw.pk])).content.decode()
        assert 'id="start-button"' in html, draw.name
        yesterdays = demo_draws(DrawStatus.DRAWN).get(property=prop)
        entrants = set(draw.activations.values_list("member", flat=True))
        assert not entrants & set(yesterdays.activations.values_list("member", flat=True))  # other people
    assert draws_start_due(now=NOW) == 0  # before its time the tick leaves it to the manager


def counts() -> tuple[int, ...]:
    return tuple(m.objects.count() for m in (Draw, Activation, DrawPick, AuditEvent))


@pytest.mark.parametrize("later", [dt.timedelta(0), dt.timedelta(hours=1, minutes=40)])
def test_loading_again_the_same_day_adds_nothing(demo, later):
    before = counts()
    with time_machine.travel(NOW + later, tick=False):
        assert load_demo_runs(now=NOW + later) == DemoRuns()
    assert counts() == before


def test_a_day_later_the_demo_gains_that_days_draws(demo):
    later = NOW + dt.timedelta(days=1)
    with time_machine.travel(later, tick=False):
        assert load_demo_runs(now=later) == DemoRuns(completed=4, waiting=4)
    assert demo_draws(DrawStatus.DRAWN).count() == 8
    assert demo_draws(DrawStatus.CLOSED).filter(scheduled_at__gt=later).count() == 4
