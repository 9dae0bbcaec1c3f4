"""Moving a draw onto a time its series already uses is refused in words, never a 500."""

import datetime as dt
import html

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.errors import DomainError
from draws.services import draw_move
from draws.tests.factories import make_draw
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
BEFORE = dt.datetime(2025, 10, 1, 9, 0, tzinfo=SAST)


@pytest.fixture
def two_draws(reference_data):
    series = make_series()
    return make_draw(series, dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)), make_draw(
        series, dt.datetime(2025, 10, 22, 13, 0, tzinfo=SAST)
    )


@time_machine.travel(BEFORE, tick=False)
def test_moving_onto_the_time_of_another_draw_of_the_series_is_refused(two_draws):
    first, second = two_draws
    with pytest.raises(DomainError, match="already has a draw at Wed 22 Oct 2025 13:00") as refused:
        draw_move(actor=Actor.system("test"), draw_id=first.pk, scheduled_at=second.scheduled_at, reason="Clash")
    assert refused.value.code == "time_taken"
    first.refresh_from_db()
    assert first.moved_from is None


@time_machine.travel(BEFORE, tick=False)
def test_the_move_page_says_so_instead_of_failing(manager, two_draws):
    first, _ = two_draws
    response = manager.post(reverse("draws:move", args=[first.pk]), {"scheduled_at": "2025-10-22T13:00", "reason": "x"})
    assert response.status_code == 200
    assert "already has a draw at Wed 22 Oct 2025 13:00" in html.unescape(response.content.decode())


@time_machine.travel(BEFORE, tick=False)
def test_moving_to_a_free_time_of_the_series_still_works(two_draws):
    first, _ = two_draws
    moved = draw_move(
        actor=Actor.system("test"),
        draw_id=first.pk,
        scheduled_at=dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST),
        reason="Stage repairs",
    )
    assert moved.moved_from == dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
