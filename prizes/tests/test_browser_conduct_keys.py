"""The vault played from the keyboard at 1024x768 (SCREENS.md rule 5; GH r9, A2-A3: the last
Thursday's 3-ball vault, 2 white and 1 pink, Queen board of 30 Jul 2026: white R5,000, pink
R50,000). The focus is on the turn's White ball; W and K record the balls winner after winner,
a W typed in a text field records nothing, and Enter on Finish computes the jackpot."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from playwright.sync_api import expect

from core.roles import PROMOTIONS_MANAGER
from prizes.models import GamePlay, PrizeLine
from prizes.tests.test_conduct import LAST_THURSDAY, vault_draw
from testing.browser import PASSWORD, browser_fixture, log_in, new_context  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def on_stage():  # overrides test_conduct's frozen clock: the live server and the browser tick
    with time_machine.travel(LAST_THURSDAY + dt.timedelta(minutes=1), tick=True):
        yield


def test_the_conductor_records_the_vault_with_w_and_k_and_finishes_with_enter(
    browser, live_server, user_for, reference_data, on_stage
):
    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)
    draw, (first, second, third) = vault_draw()
    context = new_context(browser, live_server, viewport={"width": 1024, "height": 768})
    page = context.new_page()
    log_in(page, manager)
    page.goto(reverse("draws:detail", args=[draw.pk]))

    white = page.locator(f"#ball-white-{first.k}")
    expect(white).to_be_focused()  # the first winner's turn
    expect(white).to_have_text("W White ball")
    expect(page.locator(f"#ball-pink-{first.k}")).to_have_text("K Pink ball")
    expect(page.locator(f"#ball-pink-{second.k}")).to_have_text("Pink ball")  # not its turn: no key

    page.keyboard.press("w")
    expect(page.locator(f"#game-pick-{first.k} .game-event")).to_have_text("White ball")
    expect(page.locator(f"#ball-white-{second.k}")).to_be_focused()
    expect(page.locator("#vault-left")).to_have_text("1 white and 1 pink balls left in the vault")

    page.keyboard.press("k")
    expect(page.locator(f"#game-pick-{second.k} .game-event")).to_have_text("Pink ball")
    expect(page.locator(f"#ball-white-{third.k}")).to_be_focused()

    swipe = page.locator("#swipe")  # a text field: W is a letter there, not a ball
    swipe.focus()
    page.keyboard.press("w")
    expect(swipe).to_have_value("w")
    expect(page.locator("#vault-left")).to_have_text("1 white and 0 pink ball left in the vault")
    swipe.fill("")

    page.locator(f"#ball-white-{third.k}").focus()
    page.keyboard.press("w")
    expect(page.locator(f"#game-pick-{third.k} .game-event")).to_have_text("White ball")
    finish = page.locator("[id^=game-finish-]")
    expect(finish).to_be_focused()  # every turn is in
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_contain_text("3 prize lines recorded")
    jackpot = "Vault: pink ball, Queen jackpot of 30 Jul 2026: R 50,000.00"
    expect(page.locator(f"#game-pick-{second.k}")).to_contain_text(jackpot)
    assert [e["ball"] for e in GamePlay.objects.get(draw=draw).events] == ["white", "pink", "white"]
    assert PrizeLine.objects.get(pick=second).amount_cents == 5_000_000
    context.close()
