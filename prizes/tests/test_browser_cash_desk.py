"""The cash desk in a real Chromium at 1024x768 (issue 15, items 6 and 11): the Rewards desk
issues a letter to the winner in person, then the cashier, from the start page, scans its QR
code (the wedge scanner types the text and Enter into the focused field), types the last four
of the winner's ID, ticks the signature and pays the cash, then the +Play; the page says what
was paid and the scan field is ready again. A second scan is refused: "already paid", and by
whom. (The PDF is the worker's; this journey does not open it.) JOURNEY_SCREENSHOTS=dir keeps
the screenshots."""

import os
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from core.roles import CASH_DESK, REWARDS_DESK
from prizes.letter_models import Payout, PrizeLetter
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1024, "height": 768}


def _screenshot(page, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path)
    page.screenshot(path=folder / f"journey-cash-desk-{name}.png", full_page=True)


def _log_out(page) -> None:
    page.context.clear_cookies()


def test_the_cashier_scans_the_letter_pays_it_once_and_a_second_scan_is_refused(
    page, live_server, won, user_for, tmp_path
):
    _, first, _ = won
    member = first.member
    page.set_viewport_size(VIEWPORT)

    # The Rewards desk issues the letter to the winner in person.
    log_in(page, user_for(REWARDS_DESK, username="rewards.desk", password=PASSWORD))
    page.goto(reverse("prizes:letter_issue", args=[first.pk]))
    page.get_by_label("The winner's card (swipe it)").fill(member.card_number)
    page.get_by_label("ID number, as on the document").fill(member.id_number)
    page.get_by_role("button", name="Issue the letter").click()
    letter = PrizeLetter.objects.get()
    expect(page.locator("h1")).to_contain_text(f"Prize letter {letter.number}")
    _log_out(page)

    # The cashier: the start page's field is focused; the scanner types the QR text and Enter.
    cashier = user_for(CASH_DESK, username="cash.desk", password=PASSWORD)
    log_in(page, cashier)
    page.goto(reverse("prizes:cash_desk"))
    scan = page.locator("#scan")
    expect(scan).to_be_focused()
    _screenshot(page, tmp_path, "1-start")
    page.keyboard.type(letter.qr_text())
    page.keyboard.press("Enter")
    expect(page.locator("h1")).to_contain_text(f"Prize letter {letter.number}")
    expect(page.locator("#winner")).to_contain_text(member.full_name)
    expect(page.locator("#letter-lines")).to_contain_text("R 5,000.00")
    cash = page.locator("#pay-cash")
    digits = cash.get_by_label("Last 4 digits of the ID shown")
    expect(digits).to_be_focused()  # the cashier reads them off the ID and types them
    digits.type(member.id_number[-4:])
    cash.get_by_label("The winner signed for receipt").check()
    _screenshot(page, tmp_path, "2-letter")
    cash.get_by_role("button", name="Pay the cash").click()
    expect(page.get_by_role("alert").filter(has_text="Paid: the cash of letter")).to_contain_text("R 5,000.00")
    expect(page.locator("#scan")).to_be_focused()
    expect(page.locator("#refusal-cash")).to_contain_text("already paid")

    play = page.locator("#pay-play")
    play.get_by_label("Last 4 digits of the ID shown").fill(member.id_number[-4:])
    play.get_by_label("The winner signed for receipt").check()
    play.get_by_role("button", name="Record the +Play as paid").click()
    expect(page.locator("#letter-badge")).to_have_text("Paid")
    assert sorted(Payout.objects.values_list("kind", "paid_by")) == [("cash", "cash.desk"), ("play", "cash.desk")]
    _screenshot(page, tmp_path, "3-paid")

    # The same letter scanned again: refused, saying who paid it.
    expect(page.locator("#scan")).to_be_focused()
    page.keyboard.type(letter.qr_text())
    page.keyboard.press("Enter")
    refusal = page.locator("#pay-refusal")
    expect(refusal).to_contain_text(f"Letter {letter.number} is already paid.")
    expect(refusal).to_contain_text("Last paid by cash.desk")
    expect(page.locator("#pay-cash")).to_have_count(0)
    _screenshot(page, tmp_path, "4-second-scan")
    assert Payout.objects.count() == 2
