"""The auditor filters the audit log by a choice in words and downloads those events as CSV,
in a real Chromium."""

import csv
import datetime as dt
import os
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.audit import Actor, audit_log
from core.roles import AUDITOR, PROMOTIONS_MANAGER
from draws.services import draws_cancel
from draws.tests.factories import make_draw
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1024, "height": 768}


def test_the_auditor_downloads_the_cancelled_draws_as_csv(page, live_server, user_for, reference_data, tmp_path):
    auditor = user_for(AUDITOR, username="the.auditor", password=PASSWORD)
    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager")
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    soon = (timezone.now() + dt.timedelta(days=2)).replace(minute=0, second=0, microsecond=0)
    draws = [make_draw(series, soon + dt.timedelta(days=day)) for day in range(3)]
    draws_cancel(actor=Actor.for_user(manager), draw_ids=[d.pk for d in draws[:2]], reason="=Venue closed")
    audit_log(actor=Actor.system("tick"), action="draw.entries_frozen", obj=draws[2], data={"entries": 0})
    page.set_viewport_size(VIEWPORT)

    log_in(page, auditor)
    page.goto(reverse("audit"))
    page.get_by_label("What").select_option(label="Draw cancelled")
    page.get_by_role("button", name="Show").click()
    rows = page.locator("#audit-events tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("promo.manager cancelled Test cash draw")
    expect(rows.first.get_by_role("link", name=draws[1].name)).to_have_attribute(
        "href", reverse("draws:detail", args=[draws[1].pk])
    )
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path) / "journey-audit.png")

    with page.expect_download() as info:
        page.get_by_role("link", name="Download these events (CSV)").click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert info.value.suggested_filename.startswith("audit-log-")
    with path.open(encoding="utf-8", newline="") as file:
        lines = list(csv.reader(file))
    assert lines[0][:3] == ["When (Johannesburg)", "What happened", "Who"]
    assert [line[3] for line in lines[1:]] == ["Draw cancelled", "Draw cancelled"]
    assert {line[5] for line in lines[1:]} == {str(draws[0].pk), str(draws[1].pk)}
    assert all(line[6] == "Reason: =Venue closed; Other draws cancelled with it: 1" for line in lines[1:])
    assert all(line[1].endswith("because =Venue closed.") for line in lines[1:])
