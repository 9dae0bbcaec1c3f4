"""`make run`'s demo draws on a database of their own (test_demo_runs.py shares one demo across
its tests): yesterday's draws verified with one seed for all, and a demo first loaded weeks ago."""

import datetime as dt
import types

import pytest
import time_machine
from django.db import connection

import draws.seeding
from draws.commitments import draws_verify
from draws.demo import DEMO_PROMOTION_CODE, load_demo_promotion
from draws.models import DrawPick, DrawStatus, PickOutcome
from draws.tests.test_demo_runs import demo_draws, load_demo
from promotions.models import Promotion

pytestmark = pytest.mark.django_db


@pytest.fixture
def one_seed(monkeypatch):
    """Every draw gets the same seed: picks fixed from run to run, and this one redraws members
    who won at another casino that day (their winners overlap: see the assert below)."""
    seed = bytes(32)
    monkeypatch.setattr(draws.seeding, "secrets", types.SimpleNamespace(token_bytes=lambda n: seed[:n]))


@pytest.fixture
def members_from_one(db):
    """The demo's members numbered from 1, as on `make run`'s fresh database. The entries that
    the picks come from name member ids, and a sequence is not rolled back with a test: after
    whichever tests this process ran before, ids from 21,001 picked no member who had won at
    another casino that day, and the assert below failed."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT setval(pg_get_serial_sequence('members_member', 'id'), 1, false)")


def test_every_draw_of_yesterday_verifies_with_the_others(one_seed, members_from_one):
    """DRAWS.md §6: `verify_draw --promotion` on the demo. Each redraw_won_in_scope names the win
    at another casino it rests on, picked before it (issue 15: with the four draws' clocks
    overlapping, some rested on a win stamped after their pick and had no ref)."""
    load_demo()
    drawn = list(demo_draws(DrawStatus.DRAWN).order_by("started_at"))
    assert DrawPick.objects.filter(draw__in=drawn, outcome=PickOutcome.REDRAW_WON_IN_SCOPE).exists()
    reports = draws_verify(drawn)
    assert [(draw.name, report.failures) for draw, report in zip(drawn, reports, strict=True)] == [
        (draw.name, []) for draw in drawn
    ]
    assert all(report.holds for report in reports)


def test_a_demo_loaded_weeks_ago_still_loads_today(reference_data):
    """The demo promotion's dates were set at its first load: a later `make run` moves its end on."""
    first = dt.datetime(2026, 3, 4, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    with time_machine.travel(first, tick=False):
        assert load_demo_promotion() > 0
    later = first + dt.timedelta(days=45)
    with time_machine.travel(later, tick=False):
        assert load_demo_promotion() > 0  # today's and tomorrow's demo draws, inside the new dates
    assert Promotion.objects.get(code=DEMO_PROMOTION_CODE).ends_on == (later + dt.timedelta(days=30)).date()
