"""The desk on draw night in a real Chromium (issue 13 item 13), at the desk's 1024x768: a
proxy's card swiped into the nomination form fills the nominee and does not send the form; the
form is printed, then registered once signed. Enter on the activation page activates. At a
phone's 390 px the header keeps Log out on screen."""

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.audit import Actor
from core.roles import REWARDS_DESK
from draws.models import Activation, Draw
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from proxies.models import ProxyNomination
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401
from testing.pdf import pdf_text

pytestmark = pytest.mark.browser

DESK = {"width": 1024, "height": 768}


@pytest.fixture
def tonight(reference_data):
    """A draw three hours ahead with its ticket and proxy windows open now (the live server runs
    on the real clock), and Sipho, a Queen, with points for it."""
    draw = make_draw(
        make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}]), timezone.now() + dt.timedelta(hours=3)
    )
    Draw.objects.filter(pk=draw.pk).update(proxies_open_at=timezone.now() - dt.timedelta(hours=1))
    sipho = MemberFactory(
        card_number="8200000001", first_name="Sipho", last_name="Dlamini", tier=reference_data["tiers"]["QUEEN"]
    )
    PointsEntryFactory(member=sipho, points=500, earned_at=timezone.now() - dt.timedelta(days=1))
    return {"draw": draw, "sipho": sipho}


def _fits_sideways(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_proxys_swipe_fills_the_nominee_then_the_form_is_printed_and_registered(page, user_for, tonight):
    clerk = user_for(REWARDS_DESK, username="rewards.desk", password=PASSWORD)
    activation_create(actor=Actor.system("test"), draw_id=tonight["draw"].pk, card_number="8200000001", channel="ehost")
    MemberFactory(card_number="8200000099", first_name="Ayanda", last_name="Zulu")
    page.set_viewport_size(DESK)
    log_in(page, clerk)
    page.goto(reverse("members:detail", args=[tonight["sipho"].pk]))
    page.get_by_role("link", name="Nominate a proxy").click()

    nominate_url = page.url
    expect(page.get_by_label(re.compile(re.escape(tonight["draw"].name)))).to_be_checked()  # the only draw
    expect(page.locator("#id_lookup")).to_be_focused()
    page.keyboard.type("%B8200000099^ZULU/AYANDA^2812101?;8200000099=2812101?")  # the reader's keystrokes
    page.keyboard.press("Enter")
    expect(page.locator("#nominee-found-name")).to_have_text("Ayanda Zulu")
    expect(page.locator("#nominee-typed")).to_be_hidden()
    expect(page.locator("#id_lookup")).to_have_value("8200000099")  # only the card number is kept
    assert page.url == nominate_url and not ProxyNomination.objects.exists()  # nothing was sent
    assert _fits_sideways(page)

    page.get_by_role("button", name="Next: print the form to sign").click()
    page.wait_for_url(re.compile(r"/nominate/sign/$"))
    expect(page.locator("#nominee-name")).to_have_text("Ayanda Zulu")
    href = page.get_by_role("link", name="Print the form").get_attribute("href")
    printed = page.request.get(href)  # the clerk's session opens the form to print
    assert printed.ok and printed.headers["content-type"] == "application/pdf"
    text = pdf_text(printed.body(), flat=True)
    assert "Ayanda Zulu" in text and "Not yet registered" in text
    assert not ProxyNomination.objects.exists()

    page.get_by_label("Participant's ID seen").check()
    page.get_by_label("Proxy's ID seen").check()
    page.get_by_label("The printed form is signed by both").check()
    page.get_by_role("button", name="Register the proxy").click()
    page.wait_for_url(re.compile(r"/proxies/nominations/\d+/$"))
    nomination = ProxyNomination.objects.get(participant=tonight["sipho"])
    assert (nomination.nominee_name, nomination.nominee_member.card_number) == ("Ayanda Zulu", "8200000099")


def test_enter_on_the_activation_page_activates(page, user_for, tonight):
    clerk = user_for(REWARDS_DESK, username="rewards.desk", password=PASSWORD)
    page.set_viewport_size(DESK)
    log_in(page, clerk)
    page.goto(reverse("members:detail", args=[tonight["sipho"].pk]))
    page.locator("#act-now a.act-now-button").first.click()  # the large button, first on the page
    expect(page.locator("#activate-button")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/receipt"))
    assert Activation.objects.filter(draw=tonight["draw"], member=tonight["sipho"]).exists()


def test_at_a_phones_width_the_header_keeps_log_out_on_screen(page, user_for, reference_data):
    clerk = user_for(REWARDS_DESK, username="rewards.desk", password=PASSWORD)
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, clerk)
    page.goto(reverse("members:lookup"))
    menu = page.locator("#account-menu")
    box = menu.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert _fits_sideways(page)
    menu.click()
    log_out = page.get_by_role("button", name="Log out")
    expect(log_out).to_be_in_viewport()
    log_out.click()
    page.wait_for_url(re.compile(r"/accounts/login/|/login"))
