"""Every main page works under the Content-Security-Policy: a real Chromium reports no
violation (an inline script, style or handler left in a template would be one)."""

import datetime as dt
import zoneinfo

import pytest
import time_machine
from django.urls import reverse
from playwright.sync_api import expect

from core.audit import Actor
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.models import ImportJob
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

SAST = zoneinfo.ZoneInfo("Africa/Johannesburg")
# A Wednesday inside the test promotion, during the 08h00-12h55 ticket window of a 13h00 draw.
MORNING = dt.datetime(2027, 3, 3, 10, 0, tzinfo=SAST)

# The browser reports a violation both as an event and on the console; collect the events.
LISTEN = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " line " + e.lineNumber);
});
"""


@pytest.fixture
def moment():
    # tick=True: the live server and the browser need time to move while the pages load.
    with time_machine.travel(MORNING, tick=True):
        yield


@pytest.fixture
def pages(moment, user_for, reference_data):
    """Every kind of page a person sees, with data on it."""
    series = make_series(free_tickets_by_tier={"QUEEN": 10})
    draw = make_draw(series, MORNING.replace(hour=13))
    member = MemberFactory(card_number="8000000001", tier=reference_data["tiers"]["QUEEN"])
    PointsEntryFactory(member=member, points=450, earned_at=MORNING - dt.timedelta(days=1))
    activation = activation_create(
        actor=Actor.system("test"), draw_id=draw.pk, card_number="8000000001", channel="desk"
    )
    ExclusionFactory()
    # Running: its page polls the progress bar through htmx every second.
    job = ImportJob.objects.create(kind="points", file="imports/p.csv", original_name="p.csv", status="running")
    boss = user_for("superuser", username="boss", password=PASSWORD)
    return {
        "user": boss,
        "urls": [
            reverse("home"),
            reverse("members:lookup"),
            reverse("members:lookup") + "?q=a",
            reverse("members:sign_up"),
            reverse("members:detail", args=[member.pk]),
            reverse("members:exclusions"),
            reverse("members:exclusion_new"),
            reverse("members:imports"),
            reverse("members:import_detail", args=[job.pk]),
            reverse("promotions:list"),
            reverse("promotions:detail", args=[series.promotion_id]),
            reverse("promotions:edit", args=[series.promotion_id]),
            reverse("promotions:series_edit", args=[series.pk]),
            reverse("draws:list"),
            reverse("draws:detail", args=[draw.pk]),
            reverse("draws:activate", args=[draw.pk]) + "?card=8000000001",
            reverse("draws:series_schedule", args=[series.pk]),
            reverse("draws:move", args=[draw.pk]),
            reverse("draws:receipt", args=[activation.pk]),
            reverse("audit"),
            reverse("password_change"),
            reverse("admin:index"),
            reverse("admin:auth_user_changelist"),
            reverse("admin:auth_user_change", args=[boss.pk]),
            reverse("admin:core_auditevent_changelist"),
        ],
    }


def test_no_page_breaks_the_content_security_policy(page, pages):
    console = []
    page.on("console", lambda message: console.append(message.text))
    page.add_init_script(LISTEN)

    page.goto(reverse("login"))
    assert page.evaluate("window.__csp") == []
    log_in(page, pages["user"])

    violations = {}
    for url in pages["urls"]:
        response = page.goto(url)
        assert response.status == 200, url
        assert "Content-Security-Policy" in {k.title(): v for k, v in response.headers.items()}, url
        page.wait_for_load_state("load")
        page.wait_for_timeout(150)  # deferred scripts and the first htmx request have run
        if found := page.evaluate("window.__csp"):
            violations[url] = found
    assert violations == {}
    assert [text for text in console if "Content Security Policy" in text] == []


def test_the_import_progress_bar_is_sized_without_an_inline_style(page, pages):
    from django.core.cache import cache

    from members.services import _progress_key

    job = ImportJob.objects.get()
    cache.set(_progress_key(job.pk), {"rows": 400, "percent": 40})
    log_in(page, pages["user"])
    page.goto(reverse("members:import_detail", args=[job.pk]))
    bar = page.locator("#progress .progress-bar")
    expect(bar).to_have_text("40%")
    width = bar.evaluate("el => el.getBoundingClientRect().width / el.parentElement.getBoundingClientRect().width")
    assert width == pytest.approx(0.4, abs=0.02)
