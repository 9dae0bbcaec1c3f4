"""Draw night in a real Chromium: a manager starts a closed electronic draw, records a no-show
and two winners on the draw page, and the auditor's Verify finds that every pick holds."""

import datetime as dt
import os
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import AUDITOR, PROMOTIONS_MANAGER
from draws.models import Draw, DrawStatus
from draws.tests.builders import closed_draw, pin_seed
from members.tests.factories import MemberFactory
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, new_context, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1024, "height": 768}  # the promotions office's laptops
TICKETS_EACH = 10
NAMES = ["Lerato Mokoena", "Sipho Dlamini", "Naledi Khumalo", "Thabo Nkosi", "Zanele Mthembu", "Bongani Zulu"]


def _entrants() -> list:
    return [
        MemberFactory(card_number=f"70000000{n:02d}", first_name=name.split()[0], last_name=name.split()[1])
        for n, name in enumerate(NAMES, 1)
    ]


def _owner(members: list, serial: int):
    """The member holding `serial`: each entrant activated TICKETS_EACH tickets, in order."""
    return members[(serial - 1) // TICKETS_EACH]


def _screenshot(page, tmp_path: Path, name: str) -> None:
    """The page as a person sees it at 1024x768, kept for a look (JOURNEY_SCREENSHOTS=dir to keep them)."""
    folder = Path(os.environ.get("JOURNEY_SCREENSHOTS") or tmp_path)
    page.screenshot(path=folder / f"journey-{name}.png", full_page=True)


def _picks_rows(page):
    return page.locator("#picks tbody tr")


def test_a_manager_runs_a_draw_with_a_no_show_and_the_auditor_verifies_it(
    page, browser, live_server, user_for, reference_data, tmp_path
):
    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)
    auditor = user_for(AUDITOR, username="the.auditor", password=PASSWORD)
    # The live server runs on the real clock (it is not pinned): the draw is built around now.
    # Its ticket window closed minutes ago and the manager presses Start before the draw time.
    at = (timezone.now() + dt.timedelta(minutes=3)).replace(second=0, microsecond=0)
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    series.winners_per_draw = 2
    series.presentation_seconds = 3  # the stage's window, short for the test (the seeds say 90)
    series.save()
    draw, members = closed_draw(series, at, [TICKETS_EACH] * len(NAMES), _entrants())
    # A seed whose first three picks fall to three different entrants: pick 2 (after the
    # no-show) and pick 3 are then stage picks, not automatic redraws, whatever the chance.
    pin_seed(draw, lambda serials: len({_owner(members, s).pk for s in serials}) == 3, picks=3)
    serials = _first_serials(draw, 3)
    first, second, third = (_owner(members, s) for s in serials)

    page.set_viewport_size(VIEWPORT)
    log_in(page, manager)
    page.goto(reverse("draws:detail", args=[draw.pk]))
    expect(page.locator("#seed")).to_contain_text("secret until the draw has run")
    page.get_by_label("Witness").fill("Johan van Wyk")
    page.get_by_label("Why start before the draw time").fill("The MC is on stage early.")
    page.locator("#start-button").click()
    expect(page.get_by_role("alert")).to_have_text(f"{draw.name} has started.")

    # Pick 1 is made at once and waits for the stage.
    awaiting = page.locator("#awaiting")
    expect(awaiting).to_contain_text(f"Pick 1 · serial {serials[0]}")
    expect(page.locator("#awaiting-card")).to_have_text(f"{first.card_number} · {first.full_name}")
    expect(page.locator("#run-status")).to_contain_text("witness Johan van Wyk")
    expect(page.locator("#run-status")).to_contain_text("0 of 2 winners")
    _screenshot(page, tmp_path, "draw-running")

    # No-show waits for the winner's window; the page offers it by itself once it has passed.
    expect(page.locator("#outcome-no-show")).to_be_disabled()
    expect(page.locator("#outcome-no-show")).to_be_enabled(timeout=8000)
    page.locator("#outcome-no-show").click()
    expect(page.get_by_role("alert")).to_have_text("Pick 1 recorded — No-show: redraw.")
    expect(awaiting).to_contain_text(f"Pick 2 · serial {serials[1]}")
    expect(page.locator("#awaiting-card")).to_have_text(f"{second.card_number} · {second.full_name}")
    expect(_picks_rows(page).nth(0)).to_contain_text("No-show: redraw")

    page.get_by_label("ID document seen (for Present)").select_option("sa_id")
    page.locator("#outcome-present").click()
    expect(page.get_by_role("alert")).to_have_text("Pick 2 recorded — Present: a winner.")
    expect(awaiting).to_contain_text(f"Pick 3 · serial {serials[2]}")
    expect(page.locator("#awaiting-card")).to_have_text(f"{third.card_number} · {third.full_name}")
    expect(page.locator("#run-status")).to_contain_text("1 of 2 winners")

    page.get_by_label("ID document seen (for Present)").select_option("passport")
    page.keyboard.press("p")  # the stage's key for Present
    expect(page.get_by_role("alert")).to_have_text("Pick 3 recorded — Present: a winner.")
    expect(page.locator("#run-complete")).to_contain_text("Complete")
    expect(page.locator("#run-complete")).to_contain_text("2 winners of 2")
    expect(awaiting).to_have_count(0)
    expect(page.locator("#outcome-present")).to_have_count(0)
    rows = _picks_rows(page)
    expect(rows).to_have_count(3)
    for row, (k, member, outcome) in zip(
        (rows.nth(i) for i in range(3)),
        [(1, first, "No-show: redraw"), (2, second, "Present: a winner"), (3, third, "Present: a winner")],
        strict=True,
    ):
        expect(row.locator("td").nth(0)).to_have_text(str(k))
        expect(row.locator("td").nth(2)).to_have_text(member.card_number)
        expect(row.locator("td").nth(4)).to_contain_text(outcome)
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN
    expect(page.locator("#seed")).to_have_text(draw.seed_hex)  # revealed once complete
    _screenshot(page, tmp_path, "draw-complete")

    # The auditor, in a browser of their own, goes from the draw page to the record and verifies it.
    context = new_context(browser, live_server, viewport=VIEWPORT)
    try:
        audit = context.new_page()
        log_in(audit, auditor)
        audit.goto(reverse("draws:detail", args=[draw.pk]))
        expect(audit.locator("#outcome-present")).to_have_count(0)
        audit.locator("#record-link").click()
        audit.wait_for_url(re.compile(rf"/draws/{draw.pk}/record/$"))
        expect(audit.locator("#witness")).to_have_text("Johan van Wyk")
        expect(audit.locator("#seed")).to_have_text(draw.seed_hex)
        audit.locator("#verify-link").click()
        audit.wait_for_url(re.compile(rf"/draws/{draw.pk}/record/verify/$"))
        expect(audit.locator("#verify-summary")).to_have_text("Every check holds: the record is consistent.")
        lines = audit.locator("#verify-lines tbody tr")
        checks = lines.locator("th").all_inner_texts()
        results = lines.locator("td:last-child").all_inner_texts()
        assert {"Pick 1", "Pick 2", "Pick 3"} <= set(checks), checks  # each pick is checked...
        assert len(results) == len(checks) and set(results) == {"holds"}, results  # ...and holds
        expect(audit.locator("main")).not_to_contain_text(re.compile("does not hold", re.IGNORECASE))
        _screenshot(audit, tmp_path, "verify")
    finally:
        context.close()


def _first_serials(draw: Draw, count: int) -> list[int]:
    from draws.selection import electronic_serial

    seed = bytes.fromhex(draw.seed_hex)
    return [
        electronic_serial(seed=seed, entries_sha256=draw.entries_sha256, k=k, tickets_total=draw.tickets_total)
        for k in range(1, count + 1)
    ]


def _draw_due_now(**series_fields) -> Draw:
    """A closed draw of two winners whose time has just come (the live server runs on the real clock)."""
    at = timezone.now().replace(microsecond=0) - dt.timedelta(seconds=5)
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 1}])
    series.winners_per_draw = 2
    for name, value in series_fields.items():
        setattr(series, name, value)
    series.save()
    draw, _ = closed_draw(series, at, [TICKETS_EACH] * len(NAMES), _entrants())
    return draw


def test_the_draw_page_follows_the_tick_and_another_managers_outcome_without_a_reload(
    page, live_server, user_for, reference_data
):
    from core.audit import Actor
    from draws.engine import draws_start_due, pick_outcome_record

    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)
    draw = _draw_due_now()
    page.set_viewport_size(VIEWPORT)
    log_in(page, manager)
    page.goto(reverse("draws:detail", args=[draw.pk]))
    expect(page.locator("#start-button")).to_be_visible()

    draws_start_due()  # the scheduler's tick starts the draw and makes pick 1
    expect(page.locator("#awaiting")).to_contain_text("Pick 1", timeout=3000)
    expect(page.locator("#countdown")).to_contain_text("s to come forward")
    expect(page.locator("#outcome-present")).to_be_focused()

    # Another manager records the outcome elsewhere: this page follows.
    pick = Draw.objects.get(pk=draw.pk).picks.get(outcome="")
    pick_outcome_record(
        actor=Actor.system("other-manager"), draw_id=draw.pk, pick_id=pick.pk, outcome="present", id_type_seen="sa_id"
    )
    # The next pick awaiting its outcome: pick 2, or a later one when the seed gave the first winner
    # again and each such pick was redrawn at once (win once; seen: pick 5 after three repeats).
    expect(page.locator("#awaiting")).to_contain_text(re.compile(r"Pick (?!1 )\d+ "), timeout=3000)
    expect(page.locator("#run-status")).to_contain_text("1 of 2 winners")


def test_what_the_conductor_set_for_the_winner_stays_when_the_window_ends(page, live_server, user_for, reference_data):
    """The window's end swaps the run in again (No-show now offered): the ID seen, Receipt seen and
    the reason being typed for that same winner stay, focus too; the next winner's form is clean."""
    from core.audit import Actor
    from draws.engine import draws_start_due, pick_outcome_record

    manager = user_for(PROMOTIONS_MANAGER, username="promo.manager", password=PASSWORD)
    draw = _draw_due_now(presentation_seconds=6)
    page.set_viewport_size(VIEWPORT)
    log_in(page, manager)
    page.goto(reverse("draws:detail", args=[draw.pk]))
    draws_start_due()
    expect(page.locator("#awaiting")).to_contain_text("Pick 1", timeout=3000)

    id_seen, receipt = page.get_by_label("ID document seen (for Present)"), page.get_by_label("Receipt seen")
    reason = page.get_by_label("Reason (for a disqualification)")
    id_seen.select_option("passport")
    receipt.check()
    reason.fill("Card not in hand")
    no_show = page.locator("#outcome-no-show")
    expect(no_show).to_be_disabled()  # all set while the window is open
    expect(no_show).to_be_enabled(timeout=10_000)
    expect(page.locator("#countdown")).to_contain_text("The 6 seconds have passed")  # the server's run, swapped in
    expect(id_seen).to_have_value("passport")
    expect(receipt).to_be_checked()
    expect(reason).to_have_value("Card not in hand")
    expect(reason).to_be_focused()

    # Recorded at another desk: the page follows to the next winner, with nothing carried to them.
    pick = Draw.objects.get(pk=draw.pk).picks.get(outcome="")
    pick_outcome_record(
        actor=Actor.system("other-manager"), draw_id=draw.pk, pick_id=pick.pk, outcome="present", id_type_seen="sa_id"
    )
    reason.fill("")
    page.locator("body").click()  # out of the field: the poll swaps the run in only when nobody is typing
    expect(page.locator("#awaiting")).to_contain_text(re.compile(r"Pick (?!1 )\d+ "), timeout=5000)
    expect(id_seen).to_have_value("")
    expect(receipt).not_to_be_checked()
