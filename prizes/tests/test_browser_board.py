"""A manager in a real Chromium at 1024x768 (issue 14 item 1): a Fast Lane Thursday Jack draw
cannot start while its five podiums have no amounts; the manager follows the draw page's link to
the board, fills the podiums — a total other than rule 41's R20,000 is refused in words — goes
back, and the draw's Start is offered. JOURNEY_SCREENSHOTS=dir keeps the screenshots."""

import datetime as dt
import os
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.audit import Actor
from core.roles import PROMOTIONS_MANAGER
from draws.seeds import grc_fast_lane_to_fortune, load_promotion
from draws.tests.builders import closed_draw
from prizes.seed_boards import load_seed_boards
from promotions.models import Promotion
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1024, "height": 768}  # the promotions office's laptops


def _screenshot(page, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path)
    page.screenshot(path=folder / f"journey-board-{name}.png", full_page=True)


def _podiums(page, *amounts: str) -> None:
    for n, amount in enumerate(amounts, 1):
        page.get_by_label(f"Podium {n}: amount").fill(amount)
    page.get_by_role("button", name="Save the prize board").click()


def test_a_manager_fills_the_jack_podiums_and_the_draw_may_start(page, live_server, user_for, reference_data, tmp_path):
    promotion, _ = load_promotion(grc_fast_lane_to_fortune.PROMOTION, actor=Actor.system("test"))
    load_seed_boards(actor=Actor.system("test"))
    series = promotion.series.get(code="thu-jack-1900")
    # The live server runs on the real clock: the draw is a few minutes ahead, its entries frozen
    # (the promotion stretched to today: the seed's quarter may be over).
    at = (timezone.now() + dt.timedelta(minutes=3)).replace(second=0, microsecond=0)
    Promotion.objects.filter(pk=promotion.pk).update(
        starts_on=min(promotion.starts_on, at.date() - dt.timedelta(days=1)),
        ends_on=max(promotion.ends_on, at.date() + dt.timedelta(days=1)),
    )
    # Its own window: the seed's opens at 08h00 on the draw's day, after `at` when the suite runs
    # between midnight and 08h00 (it closed before now, so the entries freeze).
    window = [(at - dt.timedelta(hours=2), at - dt.timedelta(minutes=10))]
    draw, _ = closed_draw(series, at, [5, 7, 3, 9, 4, 6], windows=window)
    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)

    page.set_viewport_size(VIEWPORT)
    log_in(page, manager)
    page.goto(reverse("draws:detail", args=[draw.pk]))
    expect(page.locator("#start-refusal")).to_contain_text("The draw cannot start until its prizes are set")
    expect(page.locator(".prize-settings-missing")).to_contain_text("the amount of Podium 1")
    expect(page.locator("#start-button")).to_have_count(0)
    _screenshot(page, tmp_path, "1-draw-waits")

    page.get_by_role("link", name="Prize boards").click()
    page.locator("#boards").get_by_role("link", name="Every tier, every date").click()
    expect(page.locator("#board-missing")).to_contain_text("the amount of Podium 5")

    # R19,000 on the podiums: not rule 41's R20,000 — refused, nothing saved.
    _podiums(page, "5000", "R 5,000.00", "5 000", "3000", "1000")
    expect(page.locator("#board-form .alert-danger")).to_have_text(
        "The prizes add up to R 19,000.00, not the board's total of R 20,000.00: correct them so they add up."
    )
    _screenshot(page, tmp_path, "2-wrong-total")
    _podiums(page, "5000", "R 5,000.00", "5 000", "3000", "2000")
    expect(page.get_by_role("alert")).to_contain_text("saved")
    expect(page.locator("#board-missing")).to_have_count(0)

    draw_url = reverse("draws:detail", args=[draw.pk])
    for _step in range(5):  # Back through the board's pages to the draw
        page.go_back()
        if page.url.endswith(draw_url):
            break
    assert page.url.endswith(draw_url)
    page.reload()
    expect(page.locator("#start-refusal")).to_have_count(0)
    expect(page.locator("#start-button")).to_be_visible()
    expect(page.locator(".prize-settings-missing")).to_have_count(0)
    _screenshot(page, tmp_path, "3-draw-may-start")
