"""The desk's start page in a real Chromium (issue 9, item 10): today's draws at the clerk's
property, with their counts, one click from the draw. The live server runs on the real clock,
so the draws are placed around it, inside today whatever the hour."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.audit import Actor
from core.roles import REWARDS_DESK
from draws.tests.builders import add_entries
from draws.tests.factories import make_draw
from members.staff import staff_profile_set
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

EARLY = [{"day": -1, "open": "00:00", "close_before": 5}]


def later_today(now: dt.datetime, share: float) -> dt.datetime:
    """A moment `share` of the way from now to midnight; before now when midnight is too close
    for a draw to come (a draw earlier today is still today's)."""
    local = timezone.localtime(now)
    midnight = (local + dt.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    if midnight - local > dt.timedelta(minutes=20):
        return (local + (midnight - local) * share).replace(second=0, microsecond=0)
    return local.replace(hour=0, minute=30 + int(20 * share), second=0, microsecond=0)


def test_the_desks_start_page_lists_todays_draws_at_its_property(page, live_server, user_for, reference_data):
    clerk = user_for(REWARDS_DESK, username="grc.desk", password=PASSWORD, first_name="Dineo")
    properties = reference_data["properties"]
    staff_profile_set(actor=Actor.system("test"), user=clerk, home_property=properties["GRC"])
    now = timezone.now()
    grc = make_draw(make_series(property_code="GRC", windows=EARLY), later_today(now, 0.5))
    add_entries(grc, [3, 4, 5])
    elsewhere = make_draw(make_series(property_code="GH", windows=EARLY), later_today(now, 0.6))
    tomorrow = make_draw(make_series(property_code="GRC", windows=EARLY), later_today(now, 0.5) + dt.timedelta(days=1))

    log_in(page, clerk)
    expect(page.get_by_role("heading", name="Today's draws at Gold Reef City")).to_be_visible()
    table = page.locator("#today-draws")
    row = table.locator("tbody tr", has=page.locator(f'a[href="{reverse("draws:detail", args=[grc.pk])}"]'))
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(0)).to_have_text(f"{timezone.localtime(grc.scheduled_at):%H:%M}")
    expect(row.locator("td").nth(3)).to_have_text("3")  # activations
    expect(row.locator("td").nth(4)).to_have_text("12")  # tickets out
    expect(table.locator(f'a[href="{reverse("draws:detail", args=[elsewhere.pk])}"]')).to_have_count(0)
    expect(table.locator(f'a[href="{reverse("draws:detail", args=[tomorrow.pk])}"]')).to_have_count(0)
    expect(page.locator("body")).not_to_contain_text(re.compile(r"\btick\b|Scheduled jobs"))

    row.get_by_role("link").click()
    page.wait_for_url(f"**{reverse('draws:detail', args=[grc.pk])}")
