"""The desk's screen is 1024x768 (SCREENS.md rule 8): for each role the header fits on its rows
without wrapping, no page scrolls sideways, and links and buttons reach 4.5:1 contrast."""

import datetime as dt
import zoneinfo

import pytest
import time_machine
from django.urls import reverse

from config.tests.layout_checks import LAYOUT_PROBLEMS, LOW_CONTRAST
from core.audit import Actor
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

SAST = zoneinfo.ZoneInfo("Africa/Johannesburg")
MORNING = dt.datetime(2027, 3, 3, 10, 0, tzinfo=SAST)  # inside the ticket window of a 13:00 draw


@pytest.fixture
def urls(user_for, reference_data):
    with time_machine.travel(MORNING, tick=True):
        series = make_series(free_tickets_by_tier={"QUEEN": 10})
        draw = make_draw(series, MORNING.replace(hour=13))
        member = MemberFactory(card_number="8000000001", tier=reference_data["tiers"]["QUEEN"])
        PointsEntryFactory(member=member, points=450, earned_at=MORNING - dt.timedelta(days=1))
        activation = activation_create(
            actor=Actor.system("test"), draw_id=draw.pk, card_number="8000000001", channel="desk"
        )
        yield {
            REWARDS_DESK: [
                reverse("home"),
                reverse("members:lookup") + "?q=a",
                reverse("members:detail", args=[member.pk]),
                reverse("draws:list"),
                reverse("draws:activate", args=[draw.pk]) + "?card=8000000001",
                reverse("draws:receipt", args=[activation.pk]),
                reverse("proxies:member_nominate", args=[member.pk]),
                reverse("prizes:uncollected"),
            ],
            PROMOTIONS_MANAGER: [
                reverse("home"),
                reverse("draws:detail", args=[draw.pk]),
                reverse("promotions:detail", args=[series.promotion_id]),
                reverse("members:imports"),
                reverse("audit"),
                reverse("prizes:letter_report"),
            ],
            AUDITOR: [reverse("home"), reverse("audit"), reverse("members:exclusions")],
            CASH_DESK: [
                reverse("home"),
                reverse("members:detail", args=[member.pk]),
                reverse("prizes:payout_summary"),
            ],
            "superuser": [reverse("home"), reverse("draws:list")],  # every menu item, and Admin
        }


@pytest.mark.parametrize("role", [REWARDS_DESK, PROMOTIONS_MANAGER, AUDITOR, CASH_DESK, "superuser"])
def test_the_pages_fit_the_desks_screen_and_are_readable(role, page, urls, user_for):
    user = user_for(role, username=f"{role}.user", password=PASSWORD)
    page.set_viewport_size({"width": 1024, "height": 768})
    log_in(page, user)
    problems = {}
    for url in urls[role]:
        assert page.goto(url).status == 200, url
        found = page.evaluate(LAYOUT_PROBLEMS) + page.evaluate(LOW_CONTRAST)
        if found:
            problems[url] = found
    assert problems == {}


def test_the_checks_see_a_pale_link_a_wrapping_header_and_a_page_too_wide(page):
    page.set_viewport_size({"width": 1024, "height": 768})
    page.set_content(
        """<body style="margin:0;background:#f4f5f7">
        <header class="desk-header"><nav class="navbar" style="display:flex;flex-wrap:wrap;width:300px">
          <a class="navbar-brand" style="width:200px">Promotions desk</a>
          <a class="nav-link" style="width:200px">Audit log</a>
        </nav></header>
        <a href="#" style="color:#0d6efd">pale link</a><a href="#" style="color:#0a58ca">dark link</a>
        <div style="width:1300px">wide</div></body>"""
    )
    assert page.evaluate(LOW_CONTRAST) == ["pale link (4.13:1)"]
    problems = page.evaluate(LAYOUT_PROBLEMS)
    assert problems[0] == "scrolls sideways: 1300px wide in 1024px"
    assert problems[1].startswith("header row wraps")
