"""The cash desk in a real Chromium at 1024x768 (issue 15, items 6 and 11): the Rewards desk
issues a letter to the winner in person; its page shows "Rendering…" until a real Celery worker
has rendered the PDF, then opens the PDF by itself (the letter's number, winner and amount in
it). The cashier, from the start page, scans its QR code (the wedge scanner types the text and
Enter into the focused field), types the last four of the winner's ID, ticks the signature and
pays the cash, then the +Play; the page says what was paid and the scan field is ready again.
A second scan is refused: "already paid", and by whom. JOURNEY_SCREENSHOTS=dir keeps the
screenshots."""

import contextlib
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from config.celery import app as celery_app
from core.roles import CASH_DESK, REWARDS_DESK
from prizes.letter_models import Payout, PrizeLetter, RenderState
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401
from testing.pdf import pdf_text
from testing.worker import Worker, celery_worker_fixture, celery_worker_process_fixture  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.worker]

VIEWPORT = {"width": 1024, "height": 768}
RENDER_MS = 30_000  # the worker's first render loads the fonts; the 2 shared cores may be busy


def _screenshot(page, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path)
    page.screenshot(path=folder / f"journey-cash-desk-{name}.png", full_page=True)


def _log_out(page) -> None:
    page.context.clear_cookies()


def _control(command: str, worker: Worker) -> None:
    """add_consumer / cancel_consumer on the worker's queue, waiting for the worker's answer."""
    replies = celery_app.control.broadcast(
        command, arguments={"queue": worker.queue}, destination=[worker.hostname], reply=True, timeout=5
    )
    assert replies, f"The Celery worker did not answer {command}.\n{worker.log_tail()}"


@contextlib.contextmanager
def _worker_paused(worker: Worker) -> Iterator[Callable[[], None]]:
    """The worker takes no task from its queue until resumed (by the function yielded, or on
    leaving): the desk surely sees the letter waiting for it, which a fast render would
    otherwise have finished before the page loads."""
    resumed = False

    def resume() -> None:
        nonlocal resumed
        if not resumed:
            resumed = True
            _control("add_consumer", worker)

    _control("cancel_consumer", worker)
    try:
        yield resume
    finally:
        resume()


def test_the_desk_opens_the_letters_pdf_the_cashier_pays_it_once_and_a_second_scan_is_refused(
    page, live_server, celery_worker, won, user_for, tmp_path
):
    _, first, _ = won
    member = first.member
    page.set_viewport_size(VIEWPORT)

    # The Rewards desk issues the letter to the winner in person: its page waits for the worker.
    log_in(page, user_for(REWARDS_DESK, username="rewards.desk", password=PASSWORD))
    page.goto(reverse("prizes:letter_issue", args=[first.pk]))
    page.get_by_label("The winner's card (swipe it)").fill(member.card_number)
    page.get_by_label("ID number, as on the document").fill(member.id_number)
    with _worker_paused(celery_worker) as resume:
        page.get_by_role("button", name="Issue the letter").click()
        page.wait_for_url(re.compile(r"/letters/\d+/$"))  # issued: the letter's page
        letter = PrizeLetter.objects.get()
        expect(page.locator("h1")).to_contain_text(f"Prize letter {letter.number}")
        expect(page.locator("#letter-pdf-state")).to_have_text("Rendering…")
        letter.refresh_from_db()
        assert letter.render_state == RenderState.PENDING and not letter.pdf  # queued, not taken
        _screenshot(page, tmp_path, "1-rendering")
        pdf_url = reverse("prizes:letter_pdf", args=[letter.pk])
        # Resumed, the worker renders it; the page's next poll sees it ready and opens the PDF.
        with page.expect_response(lambda response: response.url.endswith(pdf_url), timeout=RENDER_MS) as opened:
            resume()
    page.wait_for_url(f"**{pdf_url}")
    response = opened.value
    assert response.ok and response.headers["content-type"] == "application/pdf"
    letter.refresh_from_db()
    assert letter.render_state == RenderState.READY
    # Chromium's viewer stands in for the body it shows (its own HTML page): read the bytes it
    # was sent again, as the desk's session (the page's cookies).
    stored = page.request.get(pdf_url)
    assert stored.ok and stored.headers["content-type"] == "application/pdf"
    text = pdf_text(stored.body(), flat=True)
    assert letter.number in text and member.full_name in text and "R 5,000.00" in text
    _log_out(page)

    # The cashier: the start page's field is focused; the scanner types the QR text and Enter.
    cashier = user_for(CASH_DESK, username="cash.desk", password=PASSWORD)
    log_in(page, cashier)
    page.goto(reverse("prizes:cash_desk"))
    scan = page.locator("#scan")
    expect(scan).to_be_focused()
    _screenshot(page, tmp_path, "2-start")
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
    _screenshot(page, tmp_path, "3-letter")
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
    _screenshot(page, tmp_path, "4-paid")

    # The same letter scanned again: refused, saying who paid it.
    expect(page.locator("#scan")).to_be_focused()
    page.keyboard.type(letter.qr_text())
    page.keyboard.press("Enter")
    refusal = page.locator("#pay-refusal")
    expect(refusal).to_contain_text(f"Letter {letter.number} is already paid.")
    expect(refusal).to_contain_text("Last paid by cash.desk")
    expect(page.locator("#pay-cash")).to_have_count(0)
    _screenshot(page, tmp_path, "5-second-scan")
    assert Payout.objects.count() == 2
