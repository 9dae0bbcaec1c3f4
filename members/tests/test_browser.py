"""The Rewards desk in a real Chromium: log in, swipe a card, find a member by name."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from core.roles import REWARDS_DESK
from members.tests.factories import MemberFactory
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser


@pytest.fixture
def clerk(user_for, reference_data):
    return user_for(REWARDS_DESK, username="nomsa.desk", first_name="Nomsa", password=PASSWORD)


def test_a_card_swipe_at_the_lookup_opens_the_member(page, live_server, clerk, reference_data):
    member = MemberFactory(
        card_number="1000000017",
        first_name="Naledi",
        last_name="Khumalo",
        tier=reference_data["tiers"]["QUEEN"],
        home_property=reference_data["properties"]["GRC"],
    )
    MemberFactory(card_number="1000000025", first_name="Naledi", last_name="Other")

    log_in(page, clerk)
    assert page.url == f"{live_server.url}/"
    expect(page.get_by_role("heading", name="Good day, Nomsa")).to_be_visible()

    page.locator("main").get_by_role("link", name="Member lookup").click()
    page.wait_for_url(f"{live_server.url}{reverse('members:lookup')}")
    lookup_field = page.locator("#id_q")
    expect(lookup_field).to_be_focused()  # autofocus: the reader types into it without a click

    # A keyboard-wedge reader: track 2 as keystrokes, then Enter, into whatever has the focus.
    page.keyboard.type(";1000000017?")
    page.keyboard.press("Enter")

    page.wait_for_url(f"{live_server.url}{reverse('members:detail', args=[member.pk])}")
    expect(page.locator("#member-name")).to_have_text("Naledi Khumalo")
    expect(page.get_by_text("Card 1000000017")).to_be_visible()
    expect(page.get_by_text("Queen", exact=True)).to_be_visible()


def test_a_partial_name_with_two_matches_lists_them_and_a_click_opens_one(page, live_server, clerk, reference_data):
    sipho = MemberFactory(card_number="1000000033", first_name="Sipho", last_name="Ndlovu")
    zanele = MemberFactory(card_number="1000000041", first_name="Zanele", last_name="Ndlovu")
    MemberFactory(card_number="1000000058", first_name="Thabo", last_name="Nkosi")

    log_in(page, clerk)
    page.goto(reverse("members:lookup"))
    expect(page.locator("#id_q")).to_be_focused()
    page.keyboard.type("ndlov")
    page.keyboard.press("Enter")

    page.wait_for_url(re.compile(r"\?q=ndlov$"))
    expect(page.get_by_text("2 members match “ndlov”")).to_be_visible()
    rows = page.locator("table tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Sipho Ndlovu")
    expect(rows.nth(1)).to_contain_text("Zanele Ndlovu")
    expect(page.get_by_text("Thabo Nkosi")).to_have_count(0)

    page.get_by_role("link", name="Zanele Ndlovu").click()

    page.wait_for_url(f"{live_server.url}{reverse('members:detail', args=[zanele.pk])}")
    expect(page.locator("#member-name")).to_have_text("Zanele Ndlovu")
    expect(page.get_by_text("Card 1000000041")).to_be_visible()
    assert sipho.pk != zanele.pk
