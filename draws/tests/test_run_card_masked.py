"""Issue 12, "Smaller": the desk saw the current pick's full card number on the draw page. Those
who do not run draws see its last four digits (enough to match the winner's card); the team
running the draw keeps the full number."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.roles import AUDITOR, PROMOTIONS_MANAGER, REWARDS_DESK
from draws.engine import draw_start
from draws.models import DrawPick
from draws.tests.builders import SAST, closed_draw
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

DRAW_AT = dt.datetime(2025, 10, 15, 20, 0, tzinfo=SAST)


@pytest.fixture
def awaiting(reference_data):
    """A started draw whose first pick waits for its outcome."""
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):
        draw, _ = closed_draw(make_series(), DRAW_AT, [10] * 6)
        draw_start(actor=Actor.system("test-manager"), draw_id=draw.pk)
    return DrawPick.objects.get(draw=draw, outcome="")


def draw_page(client_for, role, pick) -> str:
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=2), tick=False):
        return client_for(role).get(reverse("draws:detail", args=[pick.draw_id])).content.decode()


@pytest.mark.parametrize("role", [REWARDS_DESK, AUDITOR])
def test_who_does_not_run_the_draw_sees_the_current_picks_card_masked(client_for, awaiting, role):
    page = draw_page(client_for, role, awaiting)
    assert 'id="awaiting-card"' in page
    assert f'<span class="mono">…{awaiting.card_number[-4:]}</span> · {awaiting.member.full_name}' in page
    if role == REWARDS_DESK:  # the auditor reads the picks table and the record, with the numbers
        assert awaiting.card_number not in page


def test_the_manager_running_the_draw_sees_the_full_card(client_for, awaiting):
    page = draw_page(client_for, PROMOTIONS_MANAGER, awaiting)
    assert f'<span class="mono">{awaiting.card_number}</span> · {awaiting.member.full_name}' in page
    assert 'id="outcome-present"' in page
