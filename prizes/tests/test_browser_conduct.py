"""Issue 14, item 9's journey in a real Chromium, whole: a Golden Horse Thursday 8pm Queen draw of
three winners on a last Thursday (30 Jul 2026, GH r9, A2-A3: a 3-ball vault, 2 white and 1 pink).
The conductor logs in, starts the draw from its run page and marks each electronic pick present
there; the stage screen, open in a second browser since before the start, follows the winners.
The conductor then records the balls on the same page, a second pink is refused in words, Finish
computes the prizes, and the stage screen and the prize record show the jackpot won by one of
them. (Declines, proxies and no-shows on the run page: draws/tests/test_browser_draw_night.py.)"""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from playwright.sync_api import expect

from core.roles import PROMOTIONS_MANAGER, STAGE_DISPLAY
from draws.models import DrawPick, DrawStatus, PickOutcome
from draws.stage import stage_name
from draws.tests.builders import MANAGER, closed_draw
from members.models import Member, Tier
from prizes.models import BoardGame, PrizeLine
from prizes.services import board_create
from prizes.tests.test_conduct import LAST_THURSDAY, VAULT
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, new_context  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

JACKPOT = "Vault: pink ball, Queen jackpot of 30 Jul 2026: R 50,000.00"
WHITE = "Vault: white ball, Queen consolation of 30 Jul 2026: R 5,000.00"


@pytest.fixture
def on_stage():  # the live server and the browsers tick, from a minute past the draw's time
    with time_machine.travel(LAST_THURSDAY + dt.timedelta(minutes=1), tick=True):
        yield


def _queen_draw_not_started():
    """The Queen board of 30 Jul (white R5,000, pink the tier's jackpot R50,000), its entries
    frozen at 20:00 and nobody drawn yet: the run page does the drawing."""
    queen = Tier.objects.get(code="QUEEN")
    series = make_series()
    series.winners_per_draw = 3
    series.save()
    board_create(
        actor=MANAGER,
        series=series,
        game=BoardGame.VAULT,
        slots=VAULT,
        tier=queen,
        draw_date=LAST_THURSDAY.date(),
        settings={"balls": 3},
    )
    draw, _ = closed_draw(series, LAST_THURSDAY, [3, 40, 7, 50, 9, 11])
    Member.objects.update(tier=queen)  # the Queen draw's entrants (GH thu-2000-queen)
    return draw


def _awaiting() -> DrawPick:
    return DrawPick.objects.select_related("member").get(outcome="")


def test_the_conductor_draws_three_winners_records_the_vault_and_the_stage_and_record_show_the_jackpot(
    browser, live_server, user_for, reference_data, on_stage
):
    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)
    screen_user = user_for(STAGE_DISPLAY, username="stage.screen", password=PASSWORD)
    draw = _queen_draw_not_started()
    pages = []
    for user, url in (
        (manager, reverse("draws:detail", args=[draw.pk])),
        (screen_user, reverse("draws:stage", args=[draw.pk])),
    ):
        context = new_context(browser, live_server, viewport={"width": 1024, "height": 768})
        page = context.new_page()
        log_in(page, user)  # through the login page
        page.goto(url)
        pages.append(page)
    conductor, screen = pages
    try:
        expect(screen.locator("#stage-entries")).to_have_text("6 entries · 120 tickets")

        # The draw's time has come: the conductor starts it with the witness named.
        conductor.get_by_label("Witness").fill("Johan van Wyk")
        conductor.locator("#start-button").click()
        expect(conductor.get_by_role("alert")).to_have_text(f"{draw.name} has started.")

        winners = []
        for n in (1, 2, 3):
            pick = _awaiting()  # the engine's electronic pick (a winner drawn again is redrawn at once)
            expect(conductor.locator("#awaiting")).to_contain_text(f"Pick {pick.k} · serial {pick.serial}")
            expect(conductor.locator("#awaiting-card")).to_have_text(f"{pick.card_number} · {pick.member.full_name}")
            expect(screen.locator("#stage-pick-name")).to_have_text(stage_name(pick))
            conductor.get_by_label("ID document seen (for Present)").select_option("sa_id")
            conductor.locator("#outcome-present").click()
            expect(conductor.get_by_role("alert")).to_have_text(f"Pick {pick.k} recorded — Present: a winner.")
            if n < 3:
                expect(conductor.locator("#run-status")).to_contain_text(f"{n} of 3 winners")
            winners.append(pick)
        expect(conductor.locator("#run-complete")).to_contain_text("3 winners of 3")
        expect(screen.locator("#stage-complete")).to_have_text("Complete")
        first, second, third = winners

        # The balls, winner after winner, on the same page.
        expect(conductor.locator("#vault-left")).to_have_text("2 white and 1 pink balls left in the vault")
        conductor.locator(f"#ball-white-{first.k}").click()
        expect(conductor.locator(f"#game-pick-{first.k} .game-event")).to_have_text("White ball")
        expect(screen.locator("#stage-game")).to_contain_text(f"Pick {first.k}: white ball")
        conductor.locator(f"#ball-pink-{second.k}").click()
        expect(conductor.locator(f"#game-pick-{second.k} .game-event")).to_have_text("Pink ball")
        expect(screen.locator("#stage-game")).to_contain_text(f"Pick {second.k}: pink ball")
        conductor.locator(f"#ball-pink-{third.k}").click()  # impossible: one pink ball in the vault
        # (the vault counts winners in pick order: the second winner, whatever pick number a redraw gave them)
        expect(conductor.get_by_role("alert")).to_have_text(
            "The pink ball was already drawn by winner 2: only white balls are left in the vault."
        )
        conductor.locator(f"#ball-white-{third.k}").click()
        expect(conductor.locator(f"#game-pick-{third.k} .game-event")).to_have_text("White ball")
        expect(conductor.locator("#vault-left")).to_have_text("0 white and 0 pink balls left in the vault")
        conductor.locator("[id^=game-finish-]").click()
        expect(conductor.get_by_role("alert")).to_contain_text("3 prize lines recorded")
        expect(conductor.locator(f"#game-pick-{second.k} .game-line")).to_have_text(JACKPOT)

        # The stage screen shows the ball and the jackpot it won; the others their consolation.
        game = screen.locator("#stage-game")
        expect(game).to_contain_text(f"Pick {second.k}: pink ball. Won: {JACKPOT}")
        expect(game).to_contain_text(f"Pick {first.k}: white ball. Won: {WHITE}")
        expect(game.locator("li", has_text="jackpot")).to_have_count(1)

        # The prize record: the jackpot line for exactly one winner, the pink ball's.
        conductor.goto(reverse("prizes:draw", args=[draw.pk]))
        sections = conductor.locator("section[id^=winner-]")
        expect(sections).to_have_count(3)
        expect(sections.filter(has_text=JACKPOT)).to_have_count(1)
        expect(conductor.locator(f"#winner-{second.k}")).to_contain_text(JACKPOT)
        for other in (first, third):
            expect(conductor.locator(f"#winner-{other.k}")).to_contain_text(WHITE)
        expect(conductor.locator("#draw-total-money")).to_have_text("R 60,000.00")
    finally:
        for page in pages:
            page.context.close()

    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN
    assert set(DrawPick.objects.filter(draw=draw, outcome=PickOutcome.PRESENT).values_list("pk", flat=True)) == {
        p.pk for p in winners
    }
    jackpots = PrizeLine.objects.filter(pick__draw=draw, source="jackpot")
    assert [(line.pick_id, line.amount_cents) for line in jackpots] == [(second.pk, 5_000_000)]
