"""Issue 14, item 9's journey in a real Chromium: a Golden Horse Thursday 8pm Queen draw of three
winners on a last Thursday (30 Jul 2026, GH r9, A2-A3: a 3-ball vault, 2 white and 1 pink).
The three winners are picked by the engine beforehand (the run page's Start/Present journey is
draws/tests/test_browser_draw_night.py); the conductor records the balls on the run page, a
second pink is refused in words, Finish computes the prizes, and the stage screen and the prize
record show the jackpot won by one of them."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from playwright.sync_api import expect

from core.roles import PROMOTIONS_MANAGER, STAGE_DISPLAY
from prizes.models import PrizeLine
from prizes.tests.test_conduct import LAST_THURSDAY, vault_draw
from testing.browser import PASSWORD, TIMEOUT_MS, browser_fixture, log_in  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def on_stage():  # overrides test_conduct's frozen clock: the live server and the browser tick
    with time_machine.travel(LAST_THURSDAY + dt.timedelta(minutes=1), tick=True):
        yield


def test_the_conductor_records_the_vault_and_the_stage_and_record_show_the_jackpot(
    browser, live_server, user_for, reference_data, on_stage
):
    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)
    screen_user = user_for(STAGE_DISPLAY, username="stage.screen", password=PASSWORD)
    draw, (first, second, third) = vault_draw()  # the Queen board of 30 Jul: white R5,000, pink R50,000
    pages = []
    for user in (manager, screen_user):
        context = browser.new_context(base_url=live_server.url)
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        log_in(page, user)
        pages.append(page)
    conductor, screen = pages
    conductor.goto(reverse("draws:detail", args=[draw.pk]))
    screen.goto(reverse("draws:stage", args=[draw.pk]))
    expect(conductor.locator("#vault-left")).to_have_text("2 white and 1 pink balls left in the vault")

    conductor.locator(f"#ball-white-{first.k}").click()
    expect(screen.locator("#stage-game")).to_contain_text(f"Pick {first.k}: white ball")
    conductor.locator(f"#ball-pink-{second.k}").click()
    conductor.locator(f"#ball-pink-{third.k}").click()  # impossible: one pink ball in the vault
    expect(conductor.locator("body")).to_contain_text("The pink ball was already drawn by winner 2")
    conductor.locator(f"#ball-white-{third.k}").click()
    expect(screen.locator("#stage-game")).to_contain_text(f"Pick {second.k}: pink ball")
    conductor.locator("[id^=game-finish-]").click()
    expect(conductor.locator("body")).to_contain_text("3 prize lines recorded")

    jackpot = "Vault: pink ball, Queen jackpot of 30 Jul 2026: R 50,000.00"
    expect(screen.locator("#stage-game")).to_contain_text(f"Pick {second.k}: pink ball. Won: {jackpot}")
    conductor.goto(reverse("prizes:draw", args=[draw.pk]))
    expect(conductor.locator("body")).to_contain_text(jackpot)
    assert PrizeLine.objects.get(pick=second).amount_cents == 5_000_000
