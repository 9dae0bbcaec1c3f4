"""A real Chromium (Debian's) driven by Playwright, for the journeys a person clicks through.

    from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

Users who log in through the page need PASSWORD (user_for(..., password=PASSWORD)).
"""

import os
import re

import pytest
from django.urls import reverse
from playwright.sync_api import sync_playwright

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
PASSWORD = "swipe-the-card-2026"  # noqa: S105 (test users only)
TIMEOUT_MS = 10_000


@pytest.fixture(scope="module", name="browser")
def browser_fixture():
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


def new_context(browser, live_server, **options):
    """A context on the live server, as every journey opens one: the suite's timeout, and reduced
    motion. Bootstrap scrolls smoothly otherwise, and Playwright's click waited for each scroll to
    a button below the fold to settle (about a second a click on the draw page)."""
    context = browser.new_context(base_url=live_server.url, reduced_motion="reduce", **options)
    context.set_default_timeout(TIMEOUT_MS)
    return context


@pytest.fixture(name="page")
def page_fixture(browser, live_server):
    context = new_context(browser, live_server)
    page = context.new_page()
    yield page
    context.close()


def log_in(page, user) -> None:
    page.goto(reverse("login"))
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/$"))
