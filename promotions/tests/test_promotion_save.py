"""promotions.services.promotion_save: a promotion's dates and properties cannot shrink past
what it already holds (issue 6, item 2.8)."""

import datetime as dt

import pytest

from core.audit import Actor
from core.errors import DomainError
from draws.services import draw_cancel
from draws.tests.factories import make_draw
from members.models import Property
from promotions.models import Promotion
from promotions.services import promotion_save
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))


@pytest.fixture
def series(reference_data):
    series = make_series()  # the promotion runs 01 Jan 2025 - 31 Dec 2099 at Gold Reef City
    make_draw(series, dt.datetime(2026, 3, 4, 13, 0, tzinfo=SAST))
    return series


def save(promotion: Promotion, *, properties=None, **dates) -> Promotion:
    for name, value in dates.items():
        setattr(promotion, name, value)
    return promotion_save(
        actor=Actor.system("test"),
        promotion=promotion,
        properties=list(promotion.properties.all()) if properties is None else properties,
    )


def test_it_refuses_an_end_date_that_leaves_a_draw_outside(series):
    promotion = Promotion.objects.get(pk=series.promotion_id)
    with pytest.raises(DomainError) as caught:
        save(promotion, ends_on=dt.date(2026, 3, 3))
    assert caught.value.code == "outside_promotion"
    assert caught.value.message == (
        "Test promotion has 1 draw outside 01 Jan 2025 \N{EN DASH} 03 Mar 2026, "
        "the first on 04 Mar 2026 13:00: move or cancel it first."
    )
    promotion.refresh_from_db()
    assert promotion.ends_on == dt.date(2099, 12, 31)  # unchanged


def test_it_refuses_a_start_date_after_a_draw(series):
    promotion = Promotion.objects.get(pk=series.promotion_id)
    with pytest.raises(DomainError, match="1 draw outside 05 Mar 2026"):
        save(promotion, starts_on=dt.date(2026, 3, 5))


def test_the_last_day_counts_whole_in_johannesburg_time(series):
    make_draw(series, dt.datetime(2026, 3, 4, 23, 30, tzinfo=SAST))  # 21h30 UTC, still the 4th here
    promotion = Promotion.objects.get(pk=series.promotion_id)
    saved = save(promotion, ends_on=dt.date(2026, 3, 4))
    assert saved.ends_on == dt.date(2026, 3, 4)


def test_a_cancelled_draw_does_not_hold_the_dates(series):
    draw = series.draws.get()
    draw_cancel(actor=Actor.system("test"), draw_id=draw.pk, reason="The promotion ends early")
    promotion = Promotion.objects.get(pk=series.promotion_id)
    assert save(promotion, ends_on=dt.date(2026, 3, 1)).ends_on == dt.date(2026, 3, 1)


def test_it_refuses_to_drop_a_property_that_has_a_series(series):
    promotion = Promotion.objects.get(pk=series.promotion_id)
    with pytest.raises(DomainError) as caught:
        save(promotion, properties=[Property.objects.get(code="GH")])
    assert caught.value.message == (
        "Test promotion has series at Gold Reef City (Test cash draw): keep the property while its series are there."
    )
    assert list(promotion.properties.values_list("code", flat=True)) == ["GRC"]
