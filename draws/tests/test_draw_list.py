"""The draws list (issue 9, item 6): paged with its count, filtered by property (the clerk's own
by default), promotion, status and dates, each draw's date written once."""

import datetime as dt
import html

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.audit import Actor
from core.roles import PROMOTIONS_MANAGER, REWARDS_DESK
from draws.models import Draw, DrawStatus
from draws.tests.factories import make_draw
from members.models import Property
from members.staff import staff_profile_set
from promotions.models import Promotion, PromotionStatus
from promotions.tests.factories import make_series
from testing.db import triggers_off

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)  # a Wednesday morning
DASH = "\N{EN DASH}"
ALL_DAY_BEFORE = [{"day": -1, "open": "00:00", "close_before": 5}]


def text(response) -> str:
    return html.unescape(response.content.decode())


def listed(client, **params) -> list[Draw]:
    response = client.get(reverse("draws:list"), params)
    assert response.status_code == 200
    return [row.draw for row in response.context["rows"]]


def at_property(role, user_for, client_for, code: str | None):
    from django.test import Client

    user = user_for(role, properties=())
    if code:
        staff_profile_set(actor=Actor.system("test"), user=user, home_property=Property.objects.get(code=code))
    client = Client()
    client.force_login(user)
    return client


def daily(series, first: dt.datetime, count: int) -> list[Draw]:
    return [make_draw(series, first + dt.timedelta(days=day)) for day in range(count)]


@time_machine.travel(NOW, tick=False)
def test_a_long_list_pages_and_says_how_many_there_are(manager, reference_data):
    draws = daily(make_series(), dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST), 120)
    first = manager.get(reverse("draws:list"), {"property": "all"})
    assert [row.draw for row in first.context["rows"]] == draws[:50]
    assert f"Showing 1{DASH}50 of 120 draws" in text(first)
    third = manager.get(reverse("draws:list"), {"property": "all", "page": 3})
    assert [row.draw for row in third.context["rows"]] == draws[100:]
    assert f"Showing 101{DASH}120 of 120 draws" in text(third)
    # The page links keep the filters.
    assert "?property=all&amp;page=2" in first.content.decode()


@time_machine.travel(NOW, tick=False)
def test_the_list_starts_at_the_clerks_property_and_can_show_every_property(user_for, client_for, reference_data):
    grc = make_draw(make_series(property_code="GRC"), dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST))
    gh = make_draw(make_series(property_code="GH"), dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST))
    clerk = at_property(REWARDS_DESK, user_for, client_for, "GH")
    assert listed(clerk) == [gh]
    assert set(listed(clerk, property="all")) == {grc, gh}
    assert listed(clerk, property="GRC") == [grc]
    # A user without a property (the auditor, say) starts at every property.
    nowhere = at_property(REWARDS_DESK, user_for, client_for, None)
    assert set(listed(nowhere)) == {grc, gh}


@time_machine.travel(NOW, tick=False)
def test_it_filters_by_promotion_status_and_johannesburg_dates(manager, reference_data):
    series = make_series(windows=ALL_DAY_BEFORE)
    other = Promotion.objects.create(
        code="other", name="Other promotion", starts_on="2025-01-01", ends_on="2099-12-31", status="published"
    )
    other.properties.add(Property.objects.get(code="GRC"))
    other_series = make_series()
    other_series.promotion = other
    other_series.save()
    # 00:30 on the 20th in Johannesburg is still the 19th in UTC: the day is Johannesburg's.
    early = make_draw(series, dt.datetime(2025, 10, 20, 0, 30, tzinfo=SAST))
    drawn = make_draw(series, dt.datetime(2025, 10, 21, 13, 0, tzinfo=SAST))
    running = make_draw(series, dt.datetime(2025, 10, 22, 13, 0, tzinfo=SAST))
    elsewhere = make_draw(other_series, dt.datetime(2025, 10, 21, 20, 0, tzinfo=SAST))
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=drawn.pk).update(status=DrawStatus.DRAWN)
        Draw.objects.filter(pk=running.pk).update(status=DrawStatus.RUNNING)

    assert set(listed(manager, property="all", promotion=other.pk)) == {elsewhere}
    assert listed(manager, property="all", status="drawn") == [drawn]
    assert listed(manager, property="all", status="running") == [running]
    assert listed(manager, property="all", date_from="2025-10-20", date_to="2025-10-20") == [early]
    assert set(listed(manager, property="all", date_from="2025-10-21")) == {drawn, running, elsewhere}
    # A date range without a preset shows every draw in it, past ones too.
    past = make_draw(series, dt.datetime(2025, 10, 10, 13, 0, tzinfo=SAST))
    assert listed(manager, property="all") == [early, drawn, elsewhere, running]
    assert listed(manager, property="all", date_to="2025-10-19") == [past]


@time_machine.travel(NOW, tick=False)
def test_each_status_choice_counts_its_draws_under_the_other_filters(manager, reference_data):
    series = make_series()
    for draw in daily(series, dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST), 3)[:2]:
        with triggers_off():  # a state the engine reaches in several steps
            Draw.objects.filter(pk=draw.pk).update(status=DrawStatus.DRAWN)
    response = manager.get(reverse("draws:list"), {"property": "all", "status": "drawn"})
    choices = dict(response.context["form"].fields["status"].choices)
    assert choices["drawn"] == "Drawn (2)"
    assert choices["scheduled"] == "Scheduled (1)"
    assert choices["running"] == "Drawing (0)"
    assert len(response.context["rows"]) == 2


@time_machine.travel(NOW, tick=False)
def test_the_draws_date_is_written_once_per_row(desk, reference_data):
    draw = make_draw(make_series(), dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST))
    assert draw.name == "Test cash draw, Thu 16 Oct 2025 13:00"
    page = text(desk.get(reverse("draws:list"), {"property": "all"}))
    assert page.count("Thu 16 Oct 2025 13:00") == 1
    assert ">Test cash draw</a>" in page
    assert f"08:00 {DASH} 12:55" in page  # the ticket window on the draw day: times alone


@time_machine.travel(NOW, tick=False)
def test_a_wrong_date_range_lists_nothing_and_says_why(manager, reference_data):
    make_draw(make_series(), dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST))
    response = manager.get(reverse("draws:list"), {"date_from": "2025-10-20", "date_to": "2025-10-01"})
    assert response.context["rows"] == []
    assert "The last day is before the first" in text(response)


@time_machine.travel(NOW, tick=False)
def test_the_desk_does_not_see_a_draft_promotion_or_its_draws(desk, manager, reference_data):
    series = make_series()
    draw = make_draw(series, dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST))
    Promotion.objects.filter(pk=series.promotion_id).update(status=PromotionStatus.DRAFT)
    response = desk.get(reverse("draws:list"), {"property": "all"})
    assert response.context["rows"] == []
    assert series.promotion_id not in dict(response.context["form"].fields["promotion"].choices)
    assert listed(manager, property="all") == [draw]


@time_machine.travel(NOW, tick=False)
def test_only_the_manager_can_choose_draws_to_cancel_and_only_those_that_can_be(manager, desk, reference_data):
    scheduled, drawn = daily(make_series(), dt.datetime(2025, 10, 16, 13, 0, tzinfo=SAST), 2)
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=drawn.pk).update(status=DrawStatus.DRAWN)
    page = manager.get(reverse("draws:list"), {"property": "all"}).content.decode()
    assert f'name="draw" value="{scheduled.pk}"' in page
    assert f'name="draw" value="{drawn.pk}"' not in page
    assert 'name="draw"' not in desk.get(reverse("draws:list"), {"property": "all"}).content.decode()


@time_machine.travel(NOW, tick=False)
def test_the_list_costs_the_same_queries_for_5_or_50_draws(user_for, client_for, reference_data):
    clerk = at_property(REWARDS_DESK, user_for, client_for, "GRC")
    series = make_series(windows=ALL_DAY_BEFORE)
    daily(series, dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST), 5)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert clerk.get(reverse("draws:list")).status_code == 200
        return len(captured)

    few = queries()
    daily(series, dt.datetime(2025, 10, 20, 13, 0, tzinfo=SAST), 45)
    assert queries() == few


def test_a_manager_of_two_properties_starts_at_the_home_one(user_for, reference_data):
    from django.test import Client

    manager = user_for(PROMOTIONS_MANAGER)
    staff_profile_set(
        actor=Actor.system("test"),
        user=manager,
        home_property=Property.objects.get(code="GRC"),
        other_properties=[Property.objects.get(code="GH")],
    )
    client = Client()
    client.force_login(manager)
    response = client.get(reverse("draws:list"))
    assert response.context["form"]["property"].value() == "GRC"
