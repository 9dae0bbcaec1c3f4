"""The move message names both the old and the new time (issue 9, item 5)."""

import datetime as dt
import html

import pytest
import time_machine
from django.urls import reverse

from draws.tests.factories import make_draw
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))


@time_machine.travel(dt.datetime(2025, 10, 20, 9, 0, tzinfo=SAST), tick=False)
def test_the_message_after_a_move_names_the_old_and_the_new_time_and_why(manager, reference_data):
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    draw = make_draw(series, dt.datetime(2025, 10, 23, 20, 0, tzinfo=SAST))
    response = manager.post(
        reverse("draws:move", args=[draw.pk]),
        {"scheduled_at": "2025-10-26T13:00", "reason": "The stage is booked for a concert."},
        follow=True,
    )
    page = html.unescape(response.content.decode())
    assert (
        "Test cash draw: Moved from Thu 23 Oct 2025 20:00 to Sun 26 Oct 2025 13:00 "
        "because The stage is booked for a concert." in page
    )


@time_machine.travel(dt.datetime(2025, 10, 20, 9, 0, tzinfo=SAST), tick=False)
def test_a_second_move_names_the_time_it_was_moved_from_this_time(manager, reference_data):
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    draw = make_draw(series, dt.datetime(2025, 10, 23, 20, 0, tzinfo=SAST))
    move = reverse("draws:move", args=[draw.pk])
    manager.post(move, {"scheduled_at": "2025-10-26T13:00", "reason": "Stage"})
    response = manager.post(move, {"scheduled_at": "2025-10-27T13:00", "reason": "Stage again"}, follow=True)
    assert "Moved from Sun 26 Oct 2025 13:00 to Mon 27 Oct 2025 13:00 because Stage again." in (
        html.unescape(response.content.decode())
    )
