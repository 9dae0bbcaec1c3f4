"""The Rewards desk in a real Chromium at 1024x768 (issue 15, item 4): from the draw's prizes the
clerk opens "Issue letter" for a winner, swipes the winner's card into the focused field, types
the ID and presses Enter: the letter's page shows its number, lines and expiry. A second visit
to the form names that letter instead of offering the form. JOURNEY_SCREENSHOTS=dir keeps the
screenshots."""

import os
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from core.roles import REWARDS_DESK
from prizes.letter_models import PrizeLetter
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1024, "height": 768}


def _screenshot(page, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path)
    page.screenshot(path=folder / f"journey-letter-{name}.png", full_page=True)


def test_the_desk_issues_a_letter_to_the_winner_in_person(page, live_server, won, user_for, tmp_path):
    draw, first, _ = won
    member = first.member
    desk = user_for(REWARDS_DESK, username="rewards.desk", password=PASSWORD)
    page.set_viewport_size(VIEWPORT)
    log_in(page, desk)
    page.goto(reverse("prizes:draw", args=[draw.pk]))
    _screenshot(page, tmp_path, "1-draw-prizes")
    page.locator(f"#letter-of-{first.k}").get_by_role("link", name="Issue letter").click()
    card = page.get_by_label("The winner's card (swipe it)")
    expect(card).to_be_focused()
    # The reader types the stripe and Enter: the card number stays, the cursor moves to the ID.
    card.type(f"%B{member.card_number}^{member.last_name.upper()}/THANDI^2812?;{member.card_number}=2812?")
    card.press("Enter")
    expect(card).to_have_value(member.card_number)
    expect(page.get_by_label("ID number, as on the document")).to_be_focused()
    page.get_by_label("ID number, as on the document").fill(member.id_number)
    _screenshot(page, tmp_path, "2-issue-form")
    page.get_by_label("ID number, as on the document").press("Enter")
    letter = PrizeLetter.objects.get()
    expect(page.locator("h1")).to_contain_text(f"Prize letter {letter.number}")
    expect(page.locator("#letter-lines")).to_contain_text("R 5,000.00")
    expect(page.locator("#letter-state")).to_contain_text("30 Oct 2025")
    _screenshot(page, tmp_path, "3-letter")
    page.goto(reverse("prizes:letter_issue", args=[first.pk]))
    expect(page.locator("#issue-refusal")).to_contain_text(f"already has letter {letter.number}")
