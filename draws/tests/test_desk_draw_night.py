"""The desk on draw night (issue 13 item 13): the member page puts what can be activated now
first; a refusal at a closed window names the draw of the series open now; Enter activates."""

import datetime as dt
import html
import re

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from draws.models import Channel
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
WINDOWS = [{"day": 0, "open": "08:00", "close_before": 5}]
EARLY = dt.datetime(2026, 3, 4, 13, 0, tzinfo=SAST)  # tickets 08h00-12h55
LATE = dt.datetime(2026, 3, 4, 18, 0, tzinfo=SAST)  # tickets 08h00-17h55
AFTER_EARLY = dt.datetime(2026, 3, 4, 12, 55, tzinfo=SAST)  # the 13:00 window has just closed


@pytest.fixture
def night(reference_data):
    series = make_series(points_per_ticket=100, windows=WINDOWS)
    queen = MemberFactory(tier=reference_data["tiers"]["QUEEN"], card_number="4300000001")
    PointsEntryFactory(member=queen, points=1400, earned_at=EARLY - dt.timedelta(days=1))
    return {"early": make_draw(series, EARLY), "late": make_draw(series, LATE), "queen": queen, "series": series}


def _text(response) -> str:
    assert response.status_code == 200
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode())).split())


# --- (b) a closed window names the draw open now ---------------------------------------------


@time_machine.travel(AFTER_EARLY, tick=False)
def test_a_refusal_at_a_closed_window_names_the_draw_of_the_series_open_now(desk, night):
    response = desk.post(reverse("draws:activate", args=[night["early"].pk]), {"card": "4300000001"})
    page = _text(response)
    assert (
        f"Ticket activation for {night['early'].name} closed at Wed 04 Mar 2026 12:55. "
        f"Tickets are open now for {night['late'].name} \N{EM DASH} activate there."
    ) in page
    # ... with the button that goes there, the card kept.
    late_url = f"{reverse('draws:activate', args=[night['late'].pk])}?card=4300000001"
    assert f'href="{late_url}"' in response.content.decode()


@time_machine.travel(dt.datetime(2026, 3, 4, 12, 54, 59, tzinfo=SAST), tick=False)
def test_no_draw_is_named_while_the_window_is_still_open(desk, night):
    response = desk.get(reverse("draws:activate", args=[night["early"].pk]), {"card": "4300000001"})
    assert "Tickets are open now for" not in _text(response)
    assert 'id="activate-button"' in response.content.decode()


@time_machine.travel(AFTER_EARLY, tick=False)
def test_no_draw_is_named_once_the_member_activated_it_nor_one_of_another_series(desk, night):
    make_draw(make_series(points_per_ticket=100, windows=WINDOWS), LATE)  # open now, but another series
    activation_create(actor=Actor.system("test"), draw_id=night["late"].pk, card_number="4300000001", channel="ehost")
    page = _text(desk.get(reverse("draws:activate", args=[night["early"].pk]), {"card": "4300000001"}))
    assert "closed at Wed 04 Mar 2026 12:55." in page and "Tickets are open now for" not in page


@time_machine.travel(AFTER_EARLY, tick=False)
def test_the_service_itself_names_the_open_draw_for_the_kiosk_and_the_api(night):
    from core.errors import DomainError

    with pytest.raises(DomainError) as refused:
        activation_create(
            actor=Actor.system("test"), draw_id=night["early"].pk, card_number="4300000001", channel=Channel.EHOST
        )
    assert refused.value.code == "window_closed"
    assert refused.value.message.endswith(f"Tickets are open now for {night['late'].name} \N{EM DASH} activate there.")


# --- (c) Enter activates ------------------------------------------------------------------------


@time_machine.travel(dt.datetime(2026, 3, 4, 10, 0, tzinfo=SAST), tick=False)
def test_once_the_button_is_offered_it_has_the_focus_not_the_card_field(desk, night):
    url = reverse("draws:activate", args=[night["early"].pk])
    before = desk.get(url).content.decode()
    assert re.search(r'<input[^>]*id="id_card"[^>]*autofocus', before)
    after = desk.get(url, {"card": "4300000001"}).content.decode()
    assert re.search(r'<button[^>]*id="activate-button"[^>]*autofocus', after)
    assert not re.search(r'<input[^>]*id="id_card"[^>]*autofocus', after)


# --- (a) the member page: what can be done now, first ------------------------------------------


@time_machine.travel(AFTER_EARLY, tick=False)
def test_the_member_page_puts_the_draw_open_now_first_as_a_large_button(desk, night):
    page = desk.get(reverse("members:detail", args=[night["queen"].pk])).content.decode()
    act_now = page[page.index('id="act-now"') : page.index("Other draws in the next 7 days")]
    activate_late = f"{reverse('draws:activate', args=[night['late'].pk])}?card=4300000001"
    assert activate_late in act_now and "btn-lg" in act_now
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", act_now)).split())
    assert "Activate 14 tickets · Test cash draw" in words
    assert "Draw today at 18:00 · window closes in 5 h 00 min" in words
    # The closed draw comes after, plainly, with no Activate of its own.
    rest = page[page.index("Other draws in the next 7 days") :]
    assert night["early"].name in html.unescape(rest)
    assert reverse("draws:activate", args=[night["early"].pk]) not in page


@time_machine.travel(dt.datetime(2026, 3, 3, 20, 0, tzinfo=SAST), tick=False)
def test_nothing_is_offered_first_before_any_window_opens(desk, night):
    page = desk.get(reverse("members:detail", args=[night["queen"].pk])).content.decode()
    assert 'id="act-now"' not in page and "Draws in the next 7 days" in page
