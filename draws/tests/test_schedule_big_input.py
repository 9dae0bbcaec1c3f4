"""Issue 12, "Smaller": the schedule page's list of date-times reported each of 1,000,000 bad lines
(85 s, a 120 MB page). A list beyond SCHEDULE_MAX_LINES lines or SCHEDULE_MAX_CHARS characters is
refused before it is read and not sent back; within them, the first 20 bad lines are reported and
the rest counted."""

import datetime as dt
import html

import pytest
import time_machine
from django.urls import reverse

from draws.forms import SCHEDULE_BAD_LINES_SHOWN, SCHEDULE_MAX_CHARS, SCHEDULE_MAX_LINES
from draws.models import Draw
from promotions.models import Promotion
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2026, 11, 20, 9, 0, tzinfo=SAST)
PAGE_MAX_BYTES = 100_000  # the schedule page with a full report of errors stays far below this


@pytest.fixture
def series(reference_data):
    series = make_series()
    Promotion.objects.filter(pk=series.promotion_id).update(starts_on="2026-11-01", ends_on="2026-12-20")
    return series


def post(client, series, dates: str):
    return client.post(reverse("draws:series_schedule", args=[series.pk]), {"dates": dates})


def errors(response) -> list[str]:
    return response.context["form"].errors.get("dates", [])


@time_machine.travel(NOW, tick=False)
def test_a_million_bad_lines_are_refused_unread_in_a_small_page(manager, series):
    response = post(manager, series, "x\n" * 1_000_000)  # 2 MB: within the request size
    assert response.status_code == 200
    assert len(response.content) < PAGE_MAX_BYTES
    assert errors(response) == [
        "That list has 1,000,000 lines: at most 400 draws are scheduled at once, one date and time per line. "
        "Nothing was read: paste a shorter list."
    ]
    assert "x\nx" not in html.unescape(response.content.decode())  # not echoed back
    assert not Draw.objects.exists()


@time_machine.travel(NOW, tick=False)
def test_one_enormous_line_is_refused_unread(manager, series):
    response = post(manager, series, "2026-11-25 13:00" + " " * SCHEDULE_MAX_CHARS)
    assert len(response.content) < PAGE_MAX_BYTES
    assert errors(response)[0].startswith(f"That list has {SCHEDULE_MAX_CHARS + 16:,} characters:")


@time_machine.travel(NOW, tick=False)
def test_only_the_first_bad_lines_are_reported_and_the_rest_counted(manager, series):
    response = post(manager, series, "\n".join(f"bad {n}" for n in range(1, 101)))
    reported = errors(response)
    assert len(reported) == SCHEDULE_BAD_LINES_SHOWN + 1
    assert reported[0] == "Line 1: “bad 1” is not a date and time like 2026-07-25 21:00."
    assert reported[SCHEDULE_BAD_LINES_SHOWN - 1].startswith(f"Line {SCHEDULE_BAD_LINES_SHOWN}:")
    assert reported[-1] == f"… and {100 - SCHEDULE_BAD_LINES_SHOWN} more lines like these."
    assert len(response.content) < PAGE_MAX_BYTES


@time_machine.travel(NOW, tick=False)
def test_one_more_bad_line_than_shown_is_counted_in_the_singular(manager, series):
    response = post(manager, series, "\n".join(["bad"] * (SCHEDULE_BAD_LINES_SHOWN + 1)))
    assert errors(response)[-1] == "… and 1 more line like these."


@time_machine.travel(NOW, tick=False)
def test_a_list_at_the_line_limit_is_read_and_one_line_more_is_not(manager, series):
    at_limit = "2026-11-25 13:00\r\n" + " \r\n" * (SCHEDULE_MAX_LINES - 1)  # as a browser sends a textarea
    preview = post(manager, series, at_limit).context["preview"]
    assert [p.scheduled_at for p in preview.new] == [dt.datetime(2026, 11, 25, 13, 0, tzinfo=SAST)]
    over = post(manager, series, at_limit + " ")
    assert over.context["preview"] is None
    assert errors(over)[0].startswith(f"That list has {SCHEDULE_MAX_LINES + 1:,} lines:")
