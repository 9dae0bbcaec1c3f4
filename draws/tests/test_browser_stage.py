"""The stage screen in a real Chromium (issue 13, item 8): opened before the draw, it shows the
draw's entries and hashes, then follows the scheduler's start and each outcome without a reload,
keeps going after the server stops answering for a moment, and ends on "Complete". Screenshots
at 1920x1080 and 1280x720 (JOURNEY_SCREENSHOTS=dir keeps them), and tonight's page at 1024x768."""

import datetime as dt
import os
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.audit import Actor
from core.roles import PROMOTIONS_MANAGER, STAGE_DISPLAY
from draws.engine import draws_start_due, pick_outcome_record
from draws.models import DrawPick, PickOutcome
from draws.stage import evening, stage_name
from draws.tests.builders import closed_draw
from members.tests.factories import MemberFactory
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

NAMES = ["Lerato Mokoena", "Sipho Dlamini", "Naledi Khumalo", "Thabo Nkosi"]


def _shot(page, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path)
    page.screenshot(path=folder / f"stage-{name}.png")


def test_the_stage_screen_follows_the_draw_without_a_reload(page, live_server, user_for, reference_data, tmp_path):
    screen_user = user_for(STAGE_DISPLAY, username="stage.screen", password=PASSWORD)
    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)
    # The live server runs on the real clock: a draw whose time is now, its entries frozen.
    at = timezone.now().replace(microsecond=0) - dt.timedelta(seconds=5)
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    series.winners_per_draw = 2
    series.save()
    members = [
        MemberFactory(first_name=name.split()[0], last_name=name.split()[1], card_number=f"70000000{n:02d}")
        for n, name in enumerate(NAMES, 1)
    ]
    draw, _ = closed_draw(series, at, [10] * len(NAMES), members)

    page.set_viewport_size({"width": 1920, "height": 1080})
    log_in(page, screen_user)
    page.goto(reverse("draws:stage", args=[draw.pk]))
    expect(page.locator("#stage-entries")).to_have_text("4 entries · 40 tickets")
    expect(page.locator("#stage-hashes")).to_contain_text(draw.entries_sha256)
    _shot(page, tmp_path, "before-1920")

    draws_start_due()  # the scheduler starts the draw and makes pick 1
    pick = DrawPick.objects.get(draw=draw, outcome="")
    expect(page.locator("#stage-pick-name")).to_have_text(stage_name(pick), timeout=3000)
    expect(page.locator("#stage-pick-card")).to_have_text(f"…{pick.card_number[-4:]}")
    expect(page.locator("#stage-countdown")).to_have_text(re.compile(r"^1:[0-2]\d$"))
    _shot(page, tmp_path, "pick-1920")
    page.set_viewport_size({"width": 1280, "height": 720})
    _shot(page, tmp_path, "pick-1280")

    # The network drops: the screen says so and carries on when it is back.
    page.route("**/stage/state/", lambda route: route.abort())
    expect(page.locator("#stage-connection")).to_be_visible(timeout=5000)
    page.unroute("**/stage/state/")
    pick_outcome_record(
        actor=Actor.system("test-manager"),
        draw_id=draw.pk,
        pick_id=pick.pk,
        outcome=PickOutcome.PRESENT,
        id_type_seen="sa_id",
    )
    second = DrawPick.objects.get(draw=draw, outcome="")
    expect(page.locator("#stage-pick-name")).to_have_text(stage_name(second), timeout=20000)
    expect(page.locator("#stage-connection")).to_be_hidden()
    expect(page.locator("#stage-winners")).to_contain_text(stage_name(pick))

    pick_outcome_record(
        actor=Actor.system("test-manager"),
        draw_id=draw.pk,
        pick_id=second.pk,
        outcome=PickOutcome.PRESENT,
        id_type_seen="sa_id",
    )
    expect(page.locator("#stage-complete")).to_have_text("Complete", timeout=3000)
    page.set_viewport_size({"width": 1920, "height": 1080})
    _shot(page, tmp_path, "complete-1920")
    body = page.locator("body").inner_text()
    assert not any(m.last_name in body or m.id_number in body or m.card_number in body for m in members)

    # Off the stage first: its poll, redirected to sign-in once the cookies are gone, reloads the
    # page (stage.js), and that reload would abort the sign-in's own navigation below.
    page.goto("about:blank")
    page.context.clear_cookies()
    page.set_viewport_size({"width": 1024, "height": 768})
    log_in(page, manager)
    page.goto(reverse("draws:tonight"))
    # The live server's real clock: from 06:00 to 12:00 Johannesburg a draw of "now" belongs to no
    # evening (12:00 to 06:00 the next morning), so the page rightly leaves it out.
    start, end = evening(timezone.now())
    if start <= draw.scheduled_at < end:
        expect(page.locator("#tonight-draws")).to_contain_text(draw.name)
    else:
        expect(page.locator("#tonight-none")).to_contain_text("No draws this evening")
    page.screenshot(path=Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path) / "tonight-1024.png", full_page=True)
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.screenshot(path=Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path) / "tonight-1920.png", full_page=True)
