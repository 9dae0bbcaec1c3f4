"""The Rewards desk in a real Chromium: log in, swipe a card, find a member by name."""

import os
import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect, sync_playwright

from core.roles import REWARDS_DESK
from members.tests.factories import MemberFactory

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "swipe-the-card-2026"
TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def browser():
    # Playwright's sync API keeps an asyncio loop running in this thread, which makes Django
    # refuse ORM calls from the test itself (fixtures, flushes) unless told it is safe here.
    saved = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        playwright.stop()
        if saved is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def clerk(user_for, reference_data):
    return user_for(REWARDS_DESK, username="nomsa.desk", first_name="Nomsa", password=PASSWORD)


def log_in(page, user) -> None:
    page.goto(reverse("login"))
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/$"))


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
