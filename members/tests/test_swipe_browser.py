"""The header's swipe field in a real Chromium: from any page a swipe lands on the member, the next
swipe on the next member, and the stripe with the member's name never goes over the wire."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.audit import Actor
from core.roles import REWARDS_DESK
from draws.models import Draw
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser


def track1(card, surname, name):
    return f"%B{card}^{surname}/{name}^28121010000000000000?"


@pytest.fixture
def clerk(user_for, reference_data):
    return user_for(REWARDS_DESK, username="thandi.desk", first_name="Thandi", password=PASSWORD)


@pytest.fixture
def sent(page):
    """Every address and request body the browser sends."""
    seen = []
    page.on("request", lambda request: seen.append(f"{request.url} {request.post_data or ''}"))
    return seen


def swipe(page, text):
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def test_a_swipe_from_the_member_page_lands_on_the_next_member(page, live_server, clerk, sent, reference_data):
    first = MemberFactory(card_number="1000012946", first_name="Pieter", last_name="Mabaso")
    second = MemberFactory(card_number="1000012953", first_name="Ayanda", last_name="Zulu")
    third = MemberFactory(card_number="1000012961", first_name="Lindiwe", last_name="Sithole")

    log_in(page, clerk)
    expect(page.locator("#swipe")).to_be_focused()  # the home page has no field of its own
    swipe(page, track1("1000012946", "MABASO", "PIETER"))
    page.wait_for_url(f"{live_server.url}{reverse('members:detail', args=[first.pk])}")
    expect(page.locator("#member-name")).to_have_text("Pieter Mabaso")

    # The member page: the header field has the keyboard, so the next swipe needs no click.
    expect(page.locator("#swipe")).to_be_focused()
    swipe(page, track1("1000012953", "ZULU", "AYANDA"))
    page.wait_for_url(f"{live_server.url}{reverse('members:detail', args=[second.pk])}")
    expect(page.locator("#member-name")).to_have_text("Ayanda Zulu")

    # Focus left on the page (a click on the name): the swipe is still caught, track 2 this time.
    page.locator("#member-name").click()
    swipe(page, ";1000012961=2812?")
    page.wait_for_url(f"{live_server.url}{reverse('members:detail', args=[third.pk])}")
    expect(page.locator("#member-name")).to_have_text("Lindiwe Sithole")

    assert [line for line in sent if re.search("MABASO|ZULU|%5E|\\^", line)] == []
    assert not any("1000012946" in line.split(" ")[0] for line in sent)  # posted, not in an address


def test_a_misread_swipe_is_not_sent_and_asks_for_another(page, live_server, clerk, sent, reference_data):
    log_in(page, clerk)
    sent.clear()
    swipe(page, "%BMABASO/PIETER^2812?")
    expect(page.locator("#swipe-form [data-swipe-note]")).to_have_text(re.compile("could not be read"))
    expect(page.locator("#swipe")).to_have_value("")
    expect(page.locator("#swipe")).to_be_focused()
    assert [line for line in sent if "/static/" not in line] == []


def test_a_name_typed_in_the_header_lists_the_matches(page, live_server, clerk, reference_data):
    MemberFactory(first_name="Sipho", last_name="Ndlovu")
    MemberFactory(first_name="Zanele", last_name="Ndlovu")
    log_in(page, clerk)
    page.goto(reverse("draws:list"))
    expect(page.locator("#swipe")).to_be_focused()
    swipe(page, "ndlovu")
    expect(page.get_by_text("2 members match “ndlovu”")).to_be_visible()
    assert page.url == f"{live_server.url}{reverse('members:lookup')}"  # nothing typed in the address


def test_a_page_with_a_field_of_its_own_keeps_the_keyboard(page, live_server, clerk, reference_data):
    log_in(page, clerk)
    page.goto(reverse("members:lookup"))
    expect(page.locator("#id_q")).to_be_focused()
    # ... but a swipe sent there by GET carries only the card number.
    member = MemberFactory(card_number="1000012979", first_name="Bongani", last_name="Khoza")
    swipe(page, track1("1000012979", "KHOZA", "BONGANI"))
    page.wait_for_url(f"{live_server.url}{reverse('members:detail', args=[member.pk])}")


def test_after_the_receipt_the_next_swipe_lands_on_the_next_member(page, live_server, clerk, reference_data):
    # The live server runs on the real clock: the draw is built around now.
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}], free_tickets_by_tier={"QUEEN": 2})
    draw = make_draw(series, timezone.now() + dt.timedelta(hours=3))
    first = MemberFactory(card_number="8000000011", tier=reference_data["tiers"]["QUEEN"])
    PointsEntryFactory(member=first, points=100, earned_at=timezone.now() - dt.timedelta(days=1))
    activation = activation_create(
        actor=Actor.system("test"), draw_id=draw.pk, card_number="8000000011", channel="desk"
    )
    following = MemberFactory(card_number="8000000029", first_name="Zodwa", last_name="Nene")

    log_in(page, clerk)
    page.goto(reverse("draws:receipt", args=[activation.pk]))
    expect(page.locator("#print-receipt")).to_be_focused()  # Enter prints
    swipe(page, track1("8000000029", "NENE", "ZODWA"))
    page.wait_for_url(f"{live_server.url}{reverse('members:detail', args=[following.pk])}")

    # A receipt number scanned from the slip's QR code opens the receipt again.
    swipe(page, activation.receipt_number)
    page.wait_for_url(f"{live_server.url}{reverse('draws:receipt', args=[activation.pk])}")


def test_a_form_with_a_swipe_field_of_its_own_keeps_the_swipe(page, live_server, clerk, reference_data):
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    draw = make_draw(series, timezone.now() + dt.timedelta(hours=3))
    Draw.objects.filter(pk=draw.pk).update(proxies_open_at=timezone.now() - dt.timedelta(hours=1))
    member = MemberFactory(card_number="8000000037")
    PointsEntryFactory(member=member, points=500, earned_at=timezone.now() - dt.timedelta(days=1))
    activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number="8000000037", channel="ehost")
    log_in(page, clerk)
    page.goto(reverse("proxies:member_nominate", args=[member.pk]))
    page.locator("h1").click()  # focus on the page, not in a field
    page.keyboard.type(track1("8000000045", "DUBE", "THULI"))  # the proxy's card
    expect(page.locator("#id_lookup")).to_have_value(re.compile("^%B8000000045"))
    expect(page.locator("#swipe")).to_have_value("")
    assert page.url.endswith(reverse("proxies:member_nominate", args=[member.pk]))
