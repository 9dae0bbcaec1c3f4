"""Fixtures of the prizes tests: draws run to a winner or to the end, and a manager acting."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from core.roles import AUDITOR, PROMOTIONS_MANAGER
from draws.engine import draw_start, pick_outcome_record
from draws.models import Draw, DrawPick, PickOutcome
from draws.tests.builders import MANAGER, SAST, closed_draw
from prizes.lines import LineKind, LineSource, LineSpec
from promotions.tests.factories import make_series

DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)


@pytest.fixture
def after_the_draw_time():
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):
        yield


def record_next_winner(draw: Draw) -> DrawPick:
    pick = DrawPick.objects.get(draw=draw, outcome="")
    pick_outcome_record(
        actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
    )
    return DrawPick.objects.get(pk=pick.pk)


def running_draw() -> tuple[Draw, DrawPick]:
    """A draw of 2 winners, running, its first winner recorded (the second pick awaits)."""
    series = make_series()
    series.winners_per_draw = 2
    series.save()
    draw, _ = closed_draw(series, DRAW_AT, [3, 40, 7, 50])
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    winner = record_next_winner(draw)
    return Draw.objects.get(pk=draw.pk), winner


def complete_draw(running: tuple[Draw, DrawPick]) -> tuple[Draw, DrawPick, DrawPick]:
    draw, first = running
    second = record_next_winner(draw)
    draw.refresh_from_db()
    assert draw.is_complete()
    return draw, first, second


def won_draw(complete: tuple[Draw, DrawPick, DrawPick]) -> tuple[Draw, DrawPick, DrawPick]:
    """The complete draw; its first winner won R5,000 cash and R500 +Play; the second a place."""
    draw, first, second = complete
    from prizes.tests.letter_helpers import place, play, store

    store(draw, first, cash(500_000), play(50_000))
    store(draw, second, place())
    return draw, first, second


@pytest.fixture
def running(reference_data, after_the_draw_time) -> tuple[Draw, DrawPick]:
    return running_draw()


@pytest.fixture
def complete(running) -> tuple[Draw, DrawPick, DrawPick]:
    return complete_draw(running)


def cash(amount_cents: int, words: str = "Podium 3", **data) -> LineSpec:
    return LineSpec(LineKind.CASH, amount_cents, LineSource.BOARD, words, data)


@pytest.fixture
def manager_actor(user_for) -> Actor:
    return Actor.for_user(user_for(PROMOTIONS_MANAGER))


@pytest.fixture
def auditor_actor(user_for) -> Actor:
    return Actor.for_user(user_for(AUDITOR))


def seed_load(module):
    """Load one seed promotion (a module of draws/seeds); return a finder of its draws."""
    from draws.seeds import load_promotion
    from draws.tests.builders import sast

    promotion, _ = load_promotion(module.PROMOTION, actor=Actor.system("test"))

    def draw(series_code: str, *when) -> Draw:
        return Draw.objects.get(series__promotion=promotion, series__code=series_code, scheduled_at=sast(*when))

    return draw


@pytest.fixture(scope="module")
def module_seed_boards(django_db_setup, django_db_blocker):
    """The seed promotions and their boards (what load_seed_boards answers), not yet their
    jackpots: made once for the module that asks, each test's changes rolled back to them
    (testing.db.shared_rows)."""
    from conftest import reference_rows
    from draws.seeds import load_seed_promotions
    from prizes.seed_boards import load_seed_boards
    from testing.db import shared_rows

    loader = Actor.system("test")
    with shared_rows(django_db_blocker):
        reference_rows()
        list(load_seed_promotions(actor=loader))
        yield load_seed_boards(actor=loader)


@pytest.fixture
def seed(reference_data):
    """One seed promotion loaded (draws' own fixture, reused): a finder of its draws."""
    return seed_load


@pytest.fixture
def won(complete):
    """The complete draw; its first winner won R5,000 cash and R500 +Play; the second a place."""
    return won_draw(complete)
