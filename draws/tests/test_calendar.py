"""The promotion page's calendar (issue 9, item 7): each draw once, on its Johannesburg day,
readably ("20:00 Queen Tier Cash draw"), today marked."""

import datetime as dt
import html
import re

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from draws.calendar import calendar_label, draw_calendar
from draws.models import Draw
from draws.services import draw_cancel
from draws.tests.factories import make_draw
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))


def entries(months) -> list[int]:
    return [entry.pk for month in months for week in month["weeks"] for cell in week if cell for entry in cell.draws]


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("Wednesday 13h00 Cash draw", "Cash draw"),
        ("Thursday Queen Tier Cash draw", "Queen Tier Cash draw"),
        ("Saturday 21h30 safe-share Cash draw", "Safe-share Cash draw"),
        ("Saturday 3pm Cash draw (Best Hand wins)", "Cash draw (Best Hand wins)"),
        ("Selected Saturday TEEDS draw, Queen tier", "Selected Saturday TEEDS draw, Queen tier"),
        ("Saturdays 20:00", "Saturdays 20:00"),  # nothing would be left: the name stays whole
    ],
)
def test_the_label_leaves_out_the_weekday_and_time_the_calendar_already_shows(name, label):
    assert calendar_label(name) == label


def test_each_draw_shows_once_even_where_weeks_straddle_months(reference_data):
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    # The last day of October and the first of November share a week; 23:30 on the 31st is
    # already 1 November in UTC, but the day is Johannesburg's.
    draws = [
        make_draw(series, dt.datetime(2025, 10, 31, 23, 30, tzinfo=SAST)),
        make_draw(series, dt.datetime(2025, 11, 1, 13, 0, tzinfo=SAST)),
        make_draw(series, dt.datetime(2025, 12, 1, 13, 0, tzinfo=SAST)),
    ]
    months = draw_calendar(Draw.objects.select_related("series").order_by("scheduled_at"))
    assert [m["title"] for m in months] == ["October 2025", "November 2025", "December 2025"]
    assert sorted(entries(months)) == sorted(d.pk for d in draws)
    october = {cell.day.day: cell for week in months[0]["weeks"] for cell in week if cell}
    assert [e.pk for e in october[31].draws] == [draws[0].pk]
    assert october[31].draws[0].time == "23:30"


def test_draws_of_one_day_are_in_time_order(reference_data):
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    late = make_draw(series, dt.datetime(2025, 10, 4, 21, 0, tzinfo=SAST))
    early = make_draw(series, dt.datetime(2025, 10, 4, 15, 0, tzinfo=SAST))
    (month,) = draw_calendar(Draw.objects.select_related("series").order_by("-scheduled_at"))
    saturday = next(cell for week in month["weeks"] for cell in week if cell and cell.day.day == 4)
    assert [e.pk for e in saturday.draws] == [early.pk, late.pk]


@time_machine.travel(dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST), tick=False)
def test_the_promotion_page_marks_today_and_names_each_draw_readably(manager, reference_data):
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    series.name = "Thursday Queen Tier Cash draw"
    series.save()
    draw = make_draw(series, dt.datetime(2025, 10, 16, 20, 0, tzinfo=SAST))
    cancelled = make_draw(series, dt.datetime(2025, 10, 23, 20, 0, tzinfo=SAST))
    draw_cancel(actor=Actor.system("t"), draw_id=cancelled.pk, reason="Stage")
    response = manager.get(reverse("promotions:detail", args=[series.promotion_id]))
    page = html.unescape(response.content.decode())
    assert re.search(r'aria-current="date" id="calendar-today">\s*<div class="text-muted">15 <span[^>]*>Today<', page)
    assert page.count('id="calendar-today"') == 1
    link = f'href="{reverse("draws:detail", args=[draw.pk])}" title="{draw.name}">'
    assert f"{link}<strong>20:00</strong> Queen Tier Cash draw</a>" in page
    assert "(cancelled)" in page


@time_machine.travel(dt.datetime(2026, 3, 1, 10, 0, tzinfo=SAST), tick=False)
def test_no_day_is_marked_today_outside_the_promotions_months(reference_data):
    series = make_series()
    make_draw(series, dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST))
    months = draw_calendar(Draw.objects.select_related("series"))
    assert not any(cell.is_today for month in months for week in month["weeks"] for cell in week if cell)
