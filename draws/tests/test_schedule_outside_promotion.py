"""draws.services.draw_schedule and draw_move refuse a draw outside its promotion's dates, with
the reason (issue 6, item 2.8)."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from core.errors import DomainError
from draws.models import Draw
from draws.services import draw_move, draw_schedule
from draws.tests.factories import make_draw
from promotions.models import Promotion
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2025, 9, 20, 10, 0, tzinfo=SAST)


@pytest.fixture
def series(reference_data):
    series = make_series(windows=[{"day": 0, "open": "08:00", "close_before": 5}])
    Promotion.objects.filter(pk=series.promotion_id).update(
        name="Turn Up the Heat", starts_on=dt.date(2025, 10, 1), ends_on=dt.date(2025, 12, 31)
    )
    series.promotion.refresh_from_db()
    return series


@time_machine.travel(NOW, tick=False)
def test_a_draw_after_the_promotions_end_is_refused_with_the_reason(series):
    with pytest.raises(DomainError) as caught:
        draw_schedule(actor=Actor.system("t"), series=series, scheduled_at=dt.datetime(2026, 1, 5, 20, 0, tzinfo=SAST))
    assert caught.value.code == "outside_promotion"
    assert (
        caught.value.message
        == "Turn Up the Heat runs 01 Oct 2025 \N{EN DASH} 31 Dec 2025; 05 Jan 2026 is after its end."
    )
    assert not Draw.objects.exists()


@time_machine.travel(NOW, tick=False)
def test_a_draw_before_the_promotions_start_is_refused(series):
    with pytest.raises(DomainError, match="30 Sep 2025 is before its start"):
        draw_schedule(actor=Actor.system("t"), series=series, scheduled_at=dt.datetime(2025, 9, 30, 20, 0, tzinfo=SAST))


@time_machine.travel(NOW, tick=False)
def test_the_first_and_last_days_take_draws_in_johannesburg_time(series):
    first = draw_schedule(
        actor=Actor.system("t"), series=series, scheduled_at=dt.datetime(2025, 10, 1, 13, 0, tzinfo=SAST)
    )
    # 23h30 on 31 December here is 21h30 UTC: still the promotion's last day.
    last = draw_schedule(
        actor=Actor.system("t"), series=series, scheduled_at=dt.datetime(2025, 12, 31, 23, 30, tzinfo=SAST)
    )
    assert Draw.objects.filter(pk__in=[first.pk, last.pk]).count() == 2


@time_machine.travel(NOW, tick=False)
def test_a_draw_cannot_be_moved_past_the_promotions_end(series):
    draw = make_draw(series, dt.datetime(2025, 12, 31, 20, 0, tzinfo=SAST))
    with pytest.raises(DomainError) as caught:
        draw_move(
            actor=Actor.system("t"),
            draw_id=draw.pk,
            scheduled_at=dt.datetime(2026, 1, 1, 13, 0, tzinfo=SAST),
            reason="Stage booked",
        )
    assert (
        caught.value.message
        == "Turn Up the Heat runs 01 Oct 2025 \N{EN DASH} 31 Dec 2025; 01 Jan 2026 is after its end."
    )
    draw.refresh_from_db()
    assert draw.scheduled_at == dt.datetime(2025, 12, 31, 20, 0, tzinfo=SAST)


@time_machine.travel(NOW, tick=False)
def test_the_draw_page_move_form_shows_the_reason(series, manager):
    from django.urls import reverse

    draw = make_draw(series, dt.datetime(2025, 12, 31, 20, 0, tzinfo=SAST))
    response = manager.post(
        reverse("draws:move", args=[draw.pk]), {"scheduled_at": "2026-01-05T20:00", "reason": "Stage booked"}
    )
    assert "05 Jan 2026 is after its end." in response.content.decode()
