"""The header's swipe field in a real Chromium: from any page a swipe lands on the member, the next
swipe on the next member, and the stripe with the member's name never goes over the wire."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from core.roles import REWARDS_DESK
from members.tests.factories import MemberFactory
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
