"""The desk is never offered what the service would refuse: the Activate button and link show
only when activation_create would accept, otherwise the reason stands in their place."""

import datetime as dt
import html

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from draws.models import Channel
from draws.services import activation_create, activation_refusal
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.models import PromotionStatus
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)  # tickets 08h00-12h55
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 50, tzinfo=SAST)


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(points_per_ticket=100), DRAW_AT)


def _member(reference_data, tier: str, card: str):
    member = MemberFactory(tier=reference_data["tiers"][tier], card_number=card)
    PointsEntryFactory(member=member, points=1400, earned_at=DRAW_AT - dt.timedelta(days=1))
    return member


def _page(client, draw, member) -> str:
    response = client.get(reverse("draws:activate", args=[draw.pk]), {"card": member.card_number})
    assert response.status_code == 200
    return html.unescape(response.content.decode())


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_ten_tier_member_is_shown_the_reason_not_a_button(desk, draw, reference_data):
    ten = _member(reference_data, "TEN", "4100000001")
    page = _page(desk, draw, ten)
    assert 'id="activate-button"' not in page
    assert "The desk prints tickets only for Queen, King, Ace members" in page
    # ... and the service agrees.
    refusal = activation_refusal(draw=draw, member=ten, channel=Channel.DESK, now=IN_WINDOW)
    assert refusal is not None and refusal.code == "desk_tier"


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_queen_is_offered_the_button_and_the_service_accepts(desk, draw, reference_data):
    queen = _member(reference_data, "QUEEN", "4100000002")
    assert "Activate 14 tickets" in _page(desk, draw, queen)
    activation = activation_create(
        actor=Actor.system("test"), draw_id=draw.pk, card_number=queen.card_number, channel=Channel.DESK
    )
    assert activation.tickets == 14


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_draft_promotions_draw_offers_no_button_and_never_reaches_the_desks_lists(desk, draw, reference_data):
    promotion = draw.series.promotion
    promotion.status = PromotionStatus.DRAFT
    promotion.save(update_fields=["status"])
    queen = _member(reference_data, "QUEEN", "4100000003")

    page = _page(desk, draw, queen)
    assert 'id="activate-button"' not in page
    assert "not published" in page
    assert draw.name not in html.unescape(desk.get(reverse("draws:list"), {"when": "all"}).content.decode())
    assert draw.name not in html.unescape(desk.get(reverse("members:detail", args=[queen.pk])).content.decode())


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_member_page_offers_activate_only_where_the_desk_may(desk, draw, reference_data):
    queen = _member(reference_data, "QUEEN", "4100000004")
    ten = _member(reference_data, "TEN", "4100000005")
    activate = reverse("draws:activate", args=[draw.pk])
    assert activate in desk.get(reverse("members:detail", args=[queen.pk])).content.decode()
    ten_page = html.unescape(desk.get(reverse("members:detail", args=[ten.pk])).content.decode())
    assert activate not in ten_page
    assert "The desk prints tickets only for Queen, King, Ace members" in ten_page


def test_the_window_shows_its_closing_date_and_the_time_left(desk, reference_data):
    # Friday 21h00 until Saturday 06h55 for a Saturday 07h00 draw: the close is on another day.
    series = make_series(windows=[{"day": -1, "open": "21:00", "close_before": 5}], points_per_ticket=100)
    draw = make_draw(series, dt.datetime(2025, 10, 18, 7, 0, tzinfo=SAST))
    with time_machine.travel(dt.datetime(2025, 10, 17, 23, 10, tzinfo=SAST), tick=False):
        page = html.unescape(desk.get(reverse("draws:activate", args=[draw.pk])).content.decode())
    assert "Fri 17 Oct 2025 21:00 \N{EN DASH} Sat 18 Oct 2025 06:55" in page
    assert "closes Sat 18 Oct 2025 06:55, in 7 h 45 min" in page


def test_after_the_close_the_page_says_when_it_closed(desk, draw):
    with time_machine.travel(DRAW_AT - dt.timedelta(minutes=5), tick=False):
        page = html.unescape(desk.get(reverse("draws:activate", args=[draw.pk])).content.decode())
    assert "closed at Wed 15 Oct 2025 12:55" in page
    assert 'id="window-open"' not in page
