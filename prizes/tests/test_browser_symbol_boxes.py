"""Turn Up the Heat Saturday 3pm's symbol boxes driven through the run page's controls in a real
Chromium at 1024x768 (TH r102-r107, A19; PRIZES.md §5 example 18). Six winners: the first four's
randomisers give the podiums (each offered once), the last two the bonus feature with their
symbols (typed as the conductor types them; a symbol taken is refused in words). The boxes are
opened alternately, the earlier bonus pick first (the later one out of turn is refused in words);
once a box is open nobody may decline. Y completes three Stars first: Y R10,000, X R7,500."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from playwright.sync_api import expect

from core.roles import PROMOTIONS_MANAGER
from prizes.models import BoardGame, GamePlay, PrizeLine
from prizes.tests.test_conduct import LAST_THURSDAY, draw_of
from prizes.tests.test_conduct_symbol_boxes import BOARD
from testing.browser import PASSWORD, browser_fixture, log_in, new_context  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PODIUMS = ["R 4,000.00", "R 3,000.00", "R 2,000.00", "R 1,000.00"]  # the board's podiums 1-4


@pytest.fixture
def on_stage():  # the live server and the browser tick
    with time_machine.travel(LAST_THURSDAY + dt.timedelta(minutes=1), tick=True):
        yield


def test_the_conductor_plays_the_podiums_the_bonus_symbols_and_the_boxes_and_finishes(
    browser, live_server, user_for, reference_data, on_stage
):
    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)
    draw, picks = draw_of(6, BoardGame.SYMBOL_BOXES, BOARD)  # six winners, present
    x, y = picks[4], picks[5]
    context = new_context(browser, live_server, viewport={"width": 1024, "height": 768})
    page = context.new_page()
    alert = page.get_by_role("alert")

    def event_of(pick):
        return page.locator(f"#game-pick-{pick.k} .game-event")

    try:
        log_in(page, manager)
        page.goto(reverse("draws:detail", args=[draw.pk]))

        # The randomisers: each podium is offered until it is given (r104).
        for n, pick in enumerate(picks[:4], 1):
            podium = page.locator(f"#podium-{pick.k}")
            expect(podium.locator("option")).to_have_text([f"Podium {i}" for i in range(n, 5)])
            podium.select_option(str(n))
            page.locator(f"#podium-record-{pick.k}").click()
            expect(alert).to_have_text("Recorded.")
            expect(event_of(pick)).to_have_text(f"Podium {n}")
        # Every podium given: the last two randomisers can only be the bonus feature's.
        expect(page.locator(f"#podium-{x.k}")).to_have_count(0)
        expect(page.locator(f"#podium-record-{y.k}")).to_have_count(0)

        page.locator(f"#bonus-{x.k}").fill("  flame ")
        page.locator(f"#bonus-record-{x.k}").click()
        expect(event_of(x)).to_have_text("The bonus feature, symbol Flame")
        expect(page.locator(f"#box-record-{x.k}")).to_have_count(0)  # not before both are known
        expect(page.locator(f"#game-pick-{x.k}")).to_contain_text("The boxes open once both bonus winners are known.")
        page.locator(f"#bonus-{y.k}").fill("FLAME")
        page.locator(f"#bonus-record-{y.k}").click()
        expect(alert).to_have_text("The two bonus winners have different symbols: Flame is taken (A19).")
        page.locator(f"#bonus-{y.k}").fill("Star")
        page.locator(f"#bonus-record-{y.k}").click()
        expect(event_of(y)).to_have_text("The bonus feature, symbol Star")

        # The boxes: X (the earlier pick) first; Y out of turn is refused.
        expect(page.locator(f"#shows-{x.k} option")).to_have_text(["Flame", "Star", "Blank"])
        expect(page.locator(f"#bonus-declines-{x.k}")).to_be_visible()
        page.locator(f"#box-{y.k}").select_option("1")
        page.locator(f"#shows-{y.k}").select_option("Star")
        page.locator(f"#box-record-{y.k}").click()
        expect(alert).to_have_text(f"It is the turn of the winner of pick {x.k} to open a box, not of pick {y.k}.")
        for n, (pick, shows) in enumerate(((x, "Star"), (y, "Flame"), (x, "blank"), (y, "Star"), (x, "Star")), 1):
            expect(page.locator(f"#box-{pick.k} option").first).to_have_text(f"Box {n}")  # the open ones are gone
            page.locator(f"#box-{pick.k}").select_option(str(n))
            page.locator(f"#shows-{pick.k}").select_option(shows)
            page.locator(f"#box-record-{pick.k}").click()
            expect(alert).to_have_text("Recorded.")
            expect(event_of(pick)).to_contain_text(f"; box {n}: {shows}")
            if n == 1:  # a box is open: the game is played now, nobody declines it (r107)
                expect(page.locator("[id^=bonus-declines-]")).to_have_count(0)

        # Three Stars are open (Y's symbol, whoever opened them, A19): the game is over.
        expect(page.locator("[id^=box-record-]")).to_have_count(0)
        finish = page.locator("[id^=game-finish-]")
        expect(finish).to_be_focused()
        finish.click()
        expect(alert).to_have_text("The game is finished: 6 prize lines recorded.")
        for n, pick in enumerate(picks[:4], 1):
            expect(page.locator(f"#game-pick-{pick.k} .game-line")).to_have_text(f"Podium {n}")
        jackpot = "Bonus boxes: first to all three Star symbols, R 10,000.00"
        expect(page.locator(f"#game-pick-{y.k} .game-line")).to_have_text(jackpot)
        expect(page.locator(f"#game-pick-{x.k} .game-line")).to_have_text("Bonus boxes: runner-up, R 7,500.00")

        page.goto(reverse("prizes:draw", args=[draw.pk]))
        expect(page.locator("#draw-total-money")).to_have_text("R 27,500.00")
        for n, pick in enumerate(picks[:4], 1):  # the podiums' amounts are the board's
            expect(page.locator(f"#winner-{pick.k} tbody td").nth(2)).to_have_text(PODIUMS[n - 1])
        expect(page.locator(f"#winner-{y.k}")).to_contain_text(jackpot)
        expect(page.locator(f"#winner-{x.k}")).to_contain_text("Bonus boxes: runner-up, R 7,500.00")
    finally:
        context.close()

    events = GamePlay.objects.get(draw=draw).events
    assert [e.get("box") for e in events if "box" in e] == [1, 2, 3, 4, 5]
    assert sorted(PrizeLine.objects.filter(draw=draw).values_list("amount_cents", flat=True)) == [
        100_000,
        200_000,
        300_000,
        400_000,
        750_000,
        1_000_000,
    ]
