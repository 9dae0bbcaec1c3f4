import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.models import AuditEvent
from draws.models import Draw
from draws.tests.factories import make_draw
from draws.tests.scheduling_helpers import schedule
from promotions.models import DrawSeries, Promotion
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))


def series_post(reference_data, **overrides):
    tiers = reference_data["tiers"]
    data = {
        "series-code": "wed-1300",
        "series-name": "Wednesday 13h00 Cash draw",
        "series-property": reference_data["properties"]["GRC"].pk,
        "series-method": "electronic",
        "series-eligible_tiers": [t.pk for t in tiers.values()],
        "series-desk_assisted_tiers": [tiers["QUEEN"].pk, tiers["KING"].pk, tiers["ACE"].pk],
        "series-winners_per_draw": 5,
        "series-win_once_scope": "day",
        "series-schedule_text": "Every Wednesday at 13h00",
        "series-window1_day": 0,
        "series-window1_open": "08:00",
        "series-window1_close_before": 5,
        "series-proxies_open": "08:00",
        "series-proxies_close_minutes": 15,
        "rule-period_kind": "days_before",
        "rule-period_days": 7,
        "rule-period_start_time": "08:00",
        "rule-points_per_ticket": 100,
        "rule-minimum_points": 0,
        "rule-free_QUEEN": 10,
        "rule-bonus_app_registered": 0,
        "rule-bonus_age_50_plus": 0,
        "rule-bonus_active_at_property": 0,
        "rule-bonus_per_visit": 0,
        "rule-bonus_per_visit_app": 0,
    }
    return data | overrides


BEFORE_DECEMBER = dt.datetime(2026, 11, 20, 9, 0, tzinfo=SAST)


@time_machine.travel(BEFORE_DECEMBER, tick=False)
def test_a_manager_sets_up_a_promotion_a_series_and_its_weekly_draws(manager, reference_data):
    response = manager.post(
        reverse("promotions:new"),
        {
            "code": "summer-heat",
            "name": "Summer Heat",
            "properties": [reference_data["properties"]["GRC"].pk],
            "starts_on": "2026-12-01",
            "ends_on": "2027-01-31",
            "status": "draft",
        },
    )
    promotion = Promotion.objects.get(code="summer-heat")
    assert response["Location"] == reverse("promotions:detail", args=[promotion.pk])

    response = manager.post(reverse("promotions:series_new", args=[promotion.pk]), series_post(reference_data))
    assert response.status_code == 302, response.content.decode()[:2000]
    series = DrawSeries.objects.get(promotion=promotion)
    assert series.rule.free_tickets_by_tier == {"QUEEN": 10}

    response = schedule(manager, series, {"weekday": 2, "first": "2026-12-01", "last": "2026-12-31", "time": "13:00"})
    assert response.status_code == 302
    draws = list(Draw.objects.filter(series=series))
    assert [d.scheduled_at.astimezone(SAST).day for d in draws] == [2, 9, 16, 23, 30]
    first = draws[0]
    assert first.tickets_open_at == dt.datetime(2026, 12, 2, 8, 0, tzinfo=SAST)
    assert first.tickets_close_at == dt.datetime(2026, 12, 2, 12, 55, tzinfo=SAST)
    assert first.proxies_close_at == dt.datetime(2026, 12, 2, 12, 45, tzinfo=SAST)
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"promotion.created", "series.created", "draw.scheduled"} <= actions


@time_machine.travel(BEFORE_DECEMBER, tick=False)
def test_scheduling_the_same_draws_twice_adds_nothing(manager, reference_data):
    series = make_series()
    body = {"dates": "2026-12-05 21:00\n2026-12-12 21:00"}
    schedule(manager, series, body)
    schedule(manager, series, body)
    assert Draw.objects.filter(series=series).count() == 2


@time_machine.travel(BEFORE_DECEMBER, tick=False)
def test_a_bad_date_line_is_reported_by_line(manager, reference_data):
    series = make_series()
    response = manager.post(reverse("draws:series_schedule", args=[series.pk]), {"dates": "2026-12-05 21:00\n5 Dec"})
    assert "Line 2: “5 Dec” is not a date and time like 2026-07-25 21:00." in response.content.decode()
    assert not Draw.objects.exists()


@time_machine.travel(BEFORE_DECEMBER, tick=False)
def test_a_schedule_of_more_than_400_draws_is_refused_as_a_typing_mistake(manager, reference_data):
    series = make_series()
    body = {"weekday": 2, "first": "1900-01-01", "last": "2100-12-31", "time": "13:00"}
    response = manager.post(reverse("draws:series_schedule", args=[series.pk]), body)
    assert "more than 400 draws at once" in response.content.decode()
    assert not Draw.objects.exists()


@pytest.mark.parametrize(
    ("window", "message"),
    [
        ({"series-window1_open": ""}, "Window 1: give the time it opens."),
        ({"series-window1_open": "8 am"}, "Enter a valid time."),
        (
            {"series-window1_open": "13:00", "series-window1_close": "12:00", "series-window1_close_before": ""},
            "Window 1: it closes at 12:00, not after it opens at 13:00.",
        ),
        ({"series-window1_close": "12:55"}, "Window 1: give a closing time or the minutes before the draw"),
        ({"series-window1_close_before": ""}, "Window 1: give a closing time or the minutes before the draw"),
        ({"series-window1_close": "noon", "series-window1_close_before": ""}, "is not a time such as 08:00"),
        ({"series-window1_close_before": 721}, "Ensure this value is less than or equal to 720."),
        ({"series-window1_day": -8}, "Select a valid choice."),
        (
            {"series-window1_day": "", "series-window1_open": "", "series-window1_close_before": ""},
            "Give at least one ticket window.",
        ),
    ],
)
def test_a_ticket_window_the_scheduler_cannot_use_is_refused(manager, reference_data, window, message):
    promotion = Promotion.objects.create(code="p", name="P", starts_on="2026-01-01", ends_on="2026-12-31")
    promotion.properties.add(reference_data["properties"]["GRC"])
    response = manager.post(
        reverse("promotions:series_new", args=[promotion.pk]), series_post(reference_data, **window)
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not DrawSeries.objects.exists()


def test_the_calendar_shows_each_draw_on_its_day_and_marks_a_moved_one(manager, reference_data):
    from core.audit import Actor
    from draws.services import draw_move

    series = make_series()
    make_draw(series, dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST))
    moved = make_draw(series, dt.datetime(2025, 10, 22, 13, 0, tzinfo=SAST))
    draw_move(
        actor=Actor.system("t"),
        draw_id=moved.pk,
        scheduled_at=dt.datetime(2025, 10, 21, 13, 0, tzinfo=SAST),
        reason="Heritage",
        allow_past=True,
    )
    response = manager.get(reverse("promotions:detail", args=[series.promotion_id]))
    months = response.context["months"]
    assert months[0]["title"] == "October 2025"
    days = {cell[0].day: cell[1] for week in months[0]["weeks"] for cell in week if cell}
    assert [d.pk for d in days[21]] == [moved.pk] and days[22] == [] and len(days[15]) == 1
    assert "moved" in response.content.decode()


def test_the_desk_may_read_promotions_but_not_change_them(desk, reference_data):
    series = make_series()
    assert desk.get(reverse("promotions:detail", args=[series.promotion_id])).status_code == 200
    assert desk.get(reverse("promotions:series_edit", args=[series.pk])).status_code == 403
    assert desk.post(reverse("promotions:new"), {}).status_code == 403


@time_machine.travel(BEFORE_DECEMBER, tick=False)
def test_a_draw_whose_windows_have_all_closed_cannot_be_scheduled(manager, reference_data):
    series = make_series()
    response = manager.post(reverse("draws:series_schedule", args=[series.pk]), {"dates": "2026-11-19 13:00"})
    assert "would already be closed" in response.content.decode()
    assert not Draw.objects.exists()


@time_machine.travel(BEFORE_DECEMBER, tick=False)
def test_rescheduling_a_week_does_not_bring_back_a_moved_draw(manager, reference_data):
    from core.audit import Actor
    from draws.services import draw_move

    series = make_series()
    body = {"weekday": 2, "first": "2026-12-01", "last": "2026-12-10", "time": "13:00"}
    schedule(manager, series, body)
    first = Draw.objects.get(series=series, scheduled_at=dt.datetime(2026, 12, 2, 13, 0, tzinfo=SAST))
    draw_move(
        actor=Actor.system("t"),
        draw_id=first.pk,
        scheduled_at=dt.datetime(2026, 12, 1, 13, 0, tzinfo=SAST),
        reason="Stage",
    )
    schedule(manager, series, body)
    assert Draw.objects.filter(series=series).count() == 2


# Pinned: the draw must fall inside the test promotion's dates (make_series: 2025 to 2099).
@time_machine.travel(dt.datetime(2026, 3, 4, 10, 0, tzinfo=SAST), tick=False)
def test_a_series_with_tickets_out_for_an_open_draw_cannot_change_its_rule(manager, reference_data):
    from core.audit import Actor
    from draws.services import activation_create
    from members.tests.factories import MemberFactory, PointsEntryFactory

    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    draw = make_draw(series, dt.datetime.now(tz=SAST) + dt.timedelta(hours=2))
    PointsEntryFactory(member=MemberFactory(card_number="9100000001"), points=300)
    activation_create(actor=Actor.system("t"), draw_id=draw.pk, card_number="9100000001", channel="ehost")
    body = series_post(reference_data, **{"series-code": series.code, "rule-points_per_ticket": 50})
    response = manager.post(reverse("promotions:series_edit", args=[series.pk]), body)
    assert "Tickets are already activated" in response.content.decode()
    series.rule.refresh_from_db()
    assert series.rule.points_per_ticket == 100


def test_a_fixed_earning_period_needs_its_start(manager, reference_data):
    promotion = Promotion.objects.create(code="p", name="P", starts_on="2026-01-01", ends_on="2026-12-31")
    promotion.properties.add(reference_data["properties"]["GRC"])
    body = series_post(reference_data, **{"rule-period_kind": "fixed"})
    response = manager.post(reverse("promotions:series_new", args=[promotion.pk]), body)
    assert "A fixed earning period needs its start." in response.content.decode()
    assert not DrawSeries.objects.exists()


def test_a_manager_sets_the_collection_rules_and_empty_keeps_them(manager, reference_data):
    series = make_series()
    promotion = series.promotion
    data = {
        "code": promotion.code,
        "name": promotion.name,
        "properties": [p.pk for p in promotion.properties.all()],
        "starts_on": "2025-01-01",
        "ends_on": "2099-12-31",
        "status": promotion.status,
        "rules_text": "",
        "collection_days": "10",
        "collection_place": "the Customer Service Desk",
    }
    assert manager.post(reverse("promotions:edit", args=[promotion.pk]), data).status_code == 302
    promotion.refresh_from_db()
    assert (promotion.collection_days, promotion.collection_place) == (10, "the Customer Service Desk")
    manager.post(
        reverse("promotions:edit", args=[promotion.pk]), data | {"collection_days": "", "collection_place": ""}
    )
    promotion.refresh_from_db()
    assert (promotion.collection_days, promotion.collection_place) == (10, "the Customer Service Desk")
