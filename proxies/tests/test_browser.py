"""The Rewards desk in a real Chromium: a card swipe, a proxy typed in, the proxy form printed."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.audit import Actor
from core.roles import REWARDS_DESK
from draws.models import Draw
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory, sa_id_for
from promotions.tests.factories import make_series
from proxies.models import ProxyNomination
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401
from testing.pdf import pdf_text

pytestmark = pytest.mark.browser


def test_the_desk_swipes_a_member_registers_a_proxy_and_prints_the_form(page, live_server, user_for, reference_data):
    clerk = user_for(REWARDS_DESK, username="rewards.desk", password=PASSWORD)
    # The live server runs on the real clock (it is not pinned): the draw is built around now.
    draw = make_draw(
        make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}]), timezone.now() + dt.timedelta(hours=3)
    )
    # Proxy forms open at 08:00 on the draw day; this draw keeps its own copy of the window,
    # opened an hour ago so the journey runs at any hour (the window's edges are tested in the services).
    Draw.objects.filter(pk=draw.pk).update(proxies_open_at=timezone.now() - dt.timedelta(hours=1))
    member = MemberFactory(card_number="8100000001", first_name="Sipho", last_name="Dlamini")
    PointsEntryFactory(member=member, points=500, earned_at=timezone.now() - dt.timedelta(days=1))
    activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number="8100000001", channel="ehost")
    nominee_id = sa_id_for(dt.date(1985, 6, 15), 4321)

    log_in(page, clerk)
    page.goto(reverse("members:lookup"))
    expect(page.locator("#id_q")).to_be_focused()
    page.keyboard.type(";8100000001?")
    page.keyboard.press("Enter")
    expect(page.locator("#member-name")).to_have_text("Sipho Dlamini")

    page.get_by_role("link", name="Nominate a proxy").click()
    page.get_by_label(re.compile(re.escape(draw.name))).check()
    page.get_by_label("Proxy's full name", exact=True).fill("Lerato Khumalo")
    page.get_by_label("Proxy's ID type", exact=True).select_option("sa_id")
    page.get_by_label("Proxy's ID number", exact=True).fill(nominee_id)
    page.get_by_label("Proxy's phone", exact=True).fill("+27821234567")
    page.get_by_role("button", name="Next: print the form to sign").click()
    # Printed to be signed first (the clerk's session opens it); registered only once signed.
    page.wait_for_url(re.compile(r"/nominate/sign/$"))
    assert page.request.get(page.get_by_role("link", name="Print the form").get_attribute("href")).ok
    page.get_by_label("Participant's ID seen").check()
    page.get_by_label("Proxy's ID seen").check()
    page.get_by_label("The printed form is signed by both").check()
    page.get_by_role("button", name="Register the proxy").click()

    page.wait_for_url(re.compile(r"/proxies/nominations/\d+/$"))
    nomination = ProxyNomination.objects.get(participant=member, draw=draw)
    expect(page.locator("#nominee-name")).to_have_text("Lerato Khumalo")
    link = page.get_by_role("link", name="Print the proxy form")
    response = page.request.get(link.get_attribute("href"))  # the clerk's session opens the PDF
    assert response.ok and response.headers["content-type"] == "application/pdf"
    text = pdf_text(response.body(), flat=True)
    assert "Sipho Dlamini" in text and "Lerato Khumalo" in text
    assert nomination.nominee_id_number == nominee_id
