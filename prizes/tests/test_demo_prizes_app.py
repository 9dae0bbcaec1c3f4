"""`make run`'s prize demo with every member on the app (test_demo_prizes.py shares one demo, as
members/demo.py leaves it, across its tests): the demo copies' winners get their seeds' add-ons."""

import datetime as dt

import pytest
import time_machine

from core.roles import PROMOTIONS_MANAGER
from members.demo import seed_members
from members.models import Member
from prizes.demo import load_demo_prizes
from prizes.models import PrizeLine
from prizes.tests.test_demo_prizes import NOW, demo_draw

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_on_the_app(reference_data, user_for):
    """The demo with every member on the app since before the demo day (members/demo.py gives
    the flag to some at random)."""
    with time_machine.travel(NOW, tick=False):
        manager = user_for(PROMOTIONS_MANAGER, username="manager")
        seed_members(count=300, recorder=manager)
        Member.objects.update(app_registered_on=dt.date(2026, 1, 1), playtsogo_active_since=None)
        load_demo_prizes(now=NOW)


def test_the_demo_copies_winners_on_the_app_get_their_seeds_add_ons(demo_on_the_app):
    """FL r116 (R200) and TH r64 (R500, Thursday Queens) reach the demo copies' winners; GH's
    only add-on is Thursday midday's (A6), DT gives entries instead (r8): none there."""
    for seed, amount in (("grc-fast-lane-to-fortune", 200_00), ("grc-turn-up-the-heat", 500_00)):
        draw = demo_draw(seed)
        addons = PrizeLine.objects.filter(draw=draw, source="add_on")
        assert sorted(addons.values_list("pick", flat=True)) == sorted(
            draw.picks.filter(outcome="present").values_list("pk", flat=True)
        )
        assert set(addons.values_list("amount_cents", flat=True)) == {amount}
    for seed in ("golden-horse-prive-powerplay", "emnotweni-daytime-playtime"):
        assert not PrizeLine.objects.filter(draw=demo_draw(seed), source="add_on").exists()
