"""The template filters that write moments, dates, money and ID numbers one way (SCREENS.md rule 4)."""

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.template import Context, Template

from core.templatetags.formats import day, masked_id, moment, rand

UTC = dt.UTC
JHB = ZoneInfo("Africa/Johannesburg")


def test_a_moment_is_johannesburg_time_24_hour_with_the_weekday():
    assert moment(dt.datetime(2026, 11, 30, 5, 0, tzinfo=UTC)) == "Mon 30 Nov 2026 07:00"
    assert moment(dt.datetime(2026, 11, 30, 19, 5, tzinfo=JHB)) == "Mon 30 Nov 2026 19:05"
    assert moment(dt.datetime(2026, 11, 30, 5, 0, 7, tzinfo=UTC), "seconds") == "Mon 30 Nov 2026 07:00:07"


def test_a_moment_of_a_plain_date_is_the_date_alone_and_nothing_is_empty():
    assert moment(dt.date(2026, 11, 30)) == "30 Nov 2026"
    assert moment(None) == ""
    assert moment("") == ""


def test_a_day_is_the_johannesburg_date():
    assert day(dt.date(2026, 11, 30)) == "30 Nov 2026"
    # 23:30 UTC on the 29th is already 01:30 on the 30th in Johannesburg.
    assert day(dt.datetime(2026, 11, 29, 23, 30, tzinfo=UTC)) == "30 Nov 2026"
    assert day(None) == ""


def test_money_from_cents_or_rand():
    assert rand(500000) == "R 5,000.00"
    assert rand(5) == "R 0.05"
    assert rand(0) == "R 0.00"
    assert rand(-150) == "-R 1.50"
    assert rand(123456789) == "R 1,234,567.89"
    assert rand(Decimal("5000")) == "R 5,000.00"
    assert rand(Decimal("1500.5")) == "R 1,500.50"
    assert rand("250.25") == "R 250.25"
    assert rand(None) == ""
    assert rand("not money") == ""


def test_an_id_number_shows_only_its_last_four_characters():
    assert masked_id("8001015009087") == "*********9087"
    assert masked_id("A123") == "A123"
    assert masked_id("") == ""
    assert masked_id(None) == ""


def test_the_filters_load_in_a_template():
    html = Template("{% load formats %}{{ at|moment }} · {{ at|day }} · {{ cents|rand }} · {{ idn|masked_id }}").render(
        Context({"at": dt.datetime(2026, 11, 30, 5, 0, tzinfo=UTC), "cents": 500000, "idn": "8001015009087"})
    )
    assert html == "Mon 30 Nov 2026 07:00 · 30 Nov 2026 · R 5,000.00 · *********9087"
