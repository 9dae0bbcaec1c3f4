"""A manager schedules a month of weekly draws in a real Chromium: the preview lists the draws
and the refused date with its reason before anything is written, then one press schedules them."""

import datetime as dt
import os
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import PROMOTIONS_MANAGER
from draws.models import Draw
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1024, "height": 768}


def test_the_manager_previews_a_schedule_then_confirms_it(page, live_server, user_for, reference_data, tmp_path):
    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)
    series = make_series()  # Wednesdays' kind of draw: tickets 08:00-12:55, the draw at 13:00
    # The live server runs on the real clock: the schedule starts next week, and one typed
    # date lies in the past, which the preview refuses with its reason.
    first = timezone.localdate() + dt.timedelta(days=7)
    last = first + dt.timedelta(days=27)  # four weeks: four draws on first's weekday
    past = timezone.localdate() - dt.timedelta(days=3)
    page.set_viewport_size(VIEWPORT)

    log_in(page, manager)
    page.goto(reverse("draws:series_schedule", args=[series.pk]))
    page.get_by_label("Weekday").select_option(str(first.weekday()))
    page.get_by_label("First").fill(first.isoformat())
    page.get_by_label("Last").fill(last.isoformat())
    page.get_by_label("Time").fill("13:00")
    page.get_by_label("Dates").fill(f"{past.isoformat()} 13:00")
    page.get_by_role("button", name="Preview the draws").click()

    expect(page.locator("#schedule-preview h2").first).to_have_text("4 draws to schedule")
    expect(page.locator("#preview-new tbody tr")).to_have_count(4)
    expect(page.locator("#preview-new tbody tr").first).to_contain_text(f"{first:%a %d %b %Y} 13:00")
    expect(page.locator("#preview-refused tbody tr")).to_have_count(1)
    expect(page.locator("#preview-refused")).to_contain_text("would already be closed")
    assert not Draw.objects.exists()  # nothing written by the preview
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path) / "journey-schedule-preview.png")

    page.get_by_role("button", name="Schedule 4 draws").click()
    page.wait_for_url(f"**{reverse('promotions:detail', args=[series.promotion_id])}")
    expect(page.get_by_role("alert")).to_contain_text("4 draws scheduled for Test cash draw")
    assert sorted(timezone.localtime(d.scheduled_at).date() for d in Draw.objects.all()) == [
        first + dt.timedelta(days=7 * week) for week in range(4)
    ]
