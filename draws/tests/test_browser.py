"""The VIP desk in a real Chromium: from the member page to an activated ticket receipt."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import REWARDS_DESK
from draws.models import Activation
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser


def test_the_desk_activates_a_queen_members_tickets_and_prints_the_receipt(page, live_server, user_for, reference_data):
    clerk = user_for(REWARDS_DESK, username="vip.desk", password=PASSWORD)
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}], free_tickets_by_tier={"QUEEN": 10})
    draw = make_draw(series, timezone.now() + dt.timedelta(hours=3))
    member = MemberFactory(
        card_number="8000000001", first_name="Lerato", last_name="Mokoena", tier=reference_data["tiers"]["QUEEN"]
    )
    PointsEntryFactory(member=member, points=450, earned_at=timezone.now() - dt.timedelta(days=1))

    log_in(page, clerk)
    page.goto(reverse("draws:activate", args=[draw.pk]))
    expect(page.locator("#id_card")).to_be_focused()
    page.keyboard.type(";8000000001?")
    page.keyboard.press("Enter")

    expect(page.locator("#member-name")).to_have_text("Lerato Mokoena")
    breakdown = page.locator("#breakdown")
    expect(breakdown).to_contain_text("450")
    page.get_by_role("button", name="Activate 14 tickets").click()

    page.wait_for_url(re.compile(r"/draws/receipts/\d+/$"))
    activation = Activation.objects.get(member=member, draw=draw)
    assert (activation.first_serial, activation.last_serial, activation.channel) == (1, 14, "desk")
    expect(page.locator("#receipt .receipt-number")).to_have_text(activation.receipt_number)
    expect(page.locator("#receipt .serials")).to_have_text("1 \N{EN DASH} 14")
    expect(page.locator("#receipt .tickets")).to_have_text("14 tickets")

    # A second swipe of the same card is told the tickets are already out, with the reprint.
    page.goto(reverse("draws:activate", args=[draw.pk]))
    expect(page.locator("#id_card")).to_be_focused()  # a swipe before the field has focus is lost
    page.keyboard.type("8000000001")
    page.keyboard.press("Enter")
    expect(page.locator("#already-activated")).to_contain_text("Already activated 14 tickets (serials 1\N{EN DASH}14)")
    assert Activation.objects.filter(member=member).count() == 1
