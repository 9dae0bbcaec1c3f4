"""Every form page, fed what outside testing fed it (issue 6, 2.7): NUL bytes, broken characters
(a lone surrogate, as a browser or script can send it: its UTF-8 bytes percent-encoded), dates
in year 1 and 9999, and a member id that is not a number. Each must answer with the form and
its error (or a 4xx), never a 500, and store nothing.

One table: a page is described once (who may use it, a payload that is accepted, the fields
to spoil); each spoiled field with each bad value is a row. The "accepted" rows are the
control: the same payload, unspoiled, does store something, so "nothing stored" is down to
the bad value."""

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from conftest import reference_rows
from core.roles import AUDITOR, PROMOTIONS_MANAGER, REWARDS_DESK
from draws.models import Draw
from draws.tests.factories import make_draw
from members.models import Exclusion, Member, Property
from members.tests.factories import MemberFactory
from promotions.models import Promotion
from promotions.tests.factories import make_series
from testing.db import shared_rows

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2027, 3, 1, 10, 0, tzinfo=SAST)
DRAW_AT = dt.datetime(2027, 3, 10, 13, 0, tzinfo=SAST)

BAD_TEXT = {
    "nul": "\x00",
    "nul-inside": "A12\x0034567",
    "surrogate": "\ud800",
    "surrogate-inside": "Zo\ud800e",
}
BAD_DATE = {"year-1": "0001-01-01", "year-9999": "9999-12-31"}
BAD_DATETIME = {"year-1": "0001-01-01T00:30", "year-9999": "9999-12-31T23:59"}
BAD_DATE_LINE = {"year-1": "0001-01-01 00:30", "year-9999": "9999-12-31 23:00"}


@dataclass(frozen=True)
class Page:
    role: str
    method: str  # "get" or "post"
    url: Callable[[dict], str]
    accepted: Callable[[dict], dict]
    text: tuple[str, ...] = ()
    dates: tuple[str, ...] = ()
    datetimes: tuple[str, ...] = ()
    date_lines: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)  # field -> {label: value}, other spoiled values


def _promotion(objects: dict) -> dict:
    return {
        "code": "autumn-27",
        "name": "Autumn cash",
        "properties": [objects["property"].pk],
        "starts_on": "2027-04-01",
        "ends_on": "2027-05-31",
        "status": "draft",
        "rules_text": "1. Members only.",
    }


PAGES = {
    "sign-up": Page(
        REWARDS_DESK,
        "post",
        lambda o: reverse("members:sign_up"),
        lambda o: {
            "first_name": "Naledi",
            "last_name": "Mokoena",
            "id_type": "passport",
            "id_number": "A1234567",
            "date_of_birth": "1990-01-01",
            "phone": "+27 82 555 0101",
            "email": "naledi@example.co.za",
            "home_property": o["property"].pk,
            "app_registered_on": "2026-01-05",
        },
        text=("first_name", "last_name", "id_type", "id_number", "phone", "email", "home_property"),
        dates=("date_of_birth", "app_registered_on"),
    ),
    "exclusion-new": Page(
        PROMOTIONS_MANAGER,
        "post",
        lambda o: reverse("members:exclusion_new"),
        lambda o: {
            "id_type": "passport",
            "id_number": "A7654321",
            "full_name": "Some One",
            "kind": "self_exclusion",
            "reason": "Asked to be excluded.",
            "starts_on": "2027-03-01",
            "ends_on": "2028-02-29",
        },
        text=("id_type", "id_number", "full_name", "kind", "reason"),
        dates=("starts_on", "ends_on"),
    ),
    "exclusion-new-link": Page(
        PROMOTIONS_MANAGER,
        "get",
        lambda o: reverse("members:exclusion_new"),
        lambda o: {"member": o["member"].pk},
        text=("member",),
        extra={"member": {"abc": "abc", "huge": "9" * 30, "negative": "-1"}},
    ),
    "exclusions-list": Page(
        REWARDS_DESK, "get", lambda o: reverse("members:exclusions"), lambda o: {"q": "Some"}, text=("q",)
    ),
    "lookup": Page(REWARDS_DESK, "get", lambda o: reverse("members:lookup"), lambda o: {"q": "Thandi"}, text=("q",)),
    "draw-activate-card": Page(
        REWARDS_DESK,
        "get",
        lambda o: reverse("draws:activate", args=[o["draw"].pk]),
        lambda o: {"card": o["member"].card_number},
        text=("card",),
    ),
    "audit-filter": Page(
        AUDITOR,
        "get",
        lambda o: reverse("audit"),
        lambda o: {"action": "member.", "date_from": "2027-01-01", "date_to": "2027-03-01"},
        text=("action", "actor", "object_type", "object_id"),
        dates=("date_from", "date_to"),
    ),
    "promotion-new": Page(
        PROMOTIONS_MANAGER,
        "post",
        lambda o: reverse("promotions:new"),
        _promotion,
        text=("code", "name", "status", "rules_text"),
        dates=("starts_on", "ends_on"),
    ),
    "promotion-edit": Page(
        PROMOTIONS_MANAGER,
        "post",
        lambda o: reverse("promotions:edit", args=[o["promotion"].pk]),
        lambda o: _promotion(o) | {"code": o["promotion"].code, "starts_on": "2025-01-01", "ends_on": "2027-12-31"},
        text=("name", "rules_text"),
        dates=("starts_on", "ends_on"),
    ),
    "series-schedule": Page(
        PROMOTIONS_MANAGER,
        "post",
        lambda o: reverse("draws:series_schedule", args=[o["draw"].series_id]),
        lambda o: {"dates": "2027-03-12 13:00", "confirm": _schedule_digest(o["draw"].series, "2027-03-12 13:00")},
        text=("dates",),
        dates=("first", "last"),
        date_lines=("dates",),
    ),
    "draw-move": Page(
        PROMOTIONS_MANAGER,
        "post",
        lambda o: reverse("draws:move", args=[o["draw"].pk]),
        lambda o: {"scheduled_at": "2027-03-11T13:00", "reason": "The venue is closed that day."},
        text=("reason",),
        datetimes=("scheduled_at",),
    ),
}


def rows():
    for name, page in PAGES.items():
        yield pytest.param(name, None, None, id=f"{name}-accepted")
        spoiled = [(f, BAD_TEXT) for f in page.text]
        spoiled += [(f, BAD_DATE) for f in page.dates]
        spoiled += [(f, BAD_DATETIME) for f in page.datetimes]
        spoiled += [(f, BAD_DATE_LINE) for f in page.date_lines]
        spoiled += list(page.extra.items())
        for field_name, values in spoiled:
            for label, value in values.items():
                yield pytest.param(name, field_name, value, id=f"{name}-{field_name}-{label}")


def encode(data: dict) -> str:
    """application/x-www-form-urlencoded as a client sends it: a lone surrogate goes as its
    UTF-8 bytes (what surrogatepass gives), which no codec on the server accepts as text."""
    pairs = []
    for key, values in data.items():
        for value in values if isinstance(values, list) else [values]:
            raw = str(value).encode("utf-8", "surrogatepass")
            pairs.append(f"{quote(key)}={quote(raw, safe='')}")
    return "&".join(pairs)


def stored() -> tuple:
    """Everything these pages could write."""
    return (
        list(Member.objects.order_by("pk").values_list("pk", "first_name", "id_number")),
        list(Exclusion.objects.order_by("pk").values_list("pk", "id_number", "starts_at", "ends_at")),
        list(Promotion.objects.order_by("pk").values_list("pk", "code", "name", "starts_on", "ends_on", "rules_text")),
        list(Draw.objects.order_by("pk").values_list("pk", "scheduled_at")),
    )


def _schedule_digest(series, line: str) -> str:
    """What the schedule page's confirm button carries for this one date (its preview's digest):
    a spoiled field changes the plan, so its confirm is previewed again and stores nothing."""
    from django.utils import timezone

    from draws.scheduling import preview_of
    from draws.services import series_schedule_plan

    moment = timezone.make_aware(dt.datetime.fromisoformat(line))
    return preview_of(series_schedule_plan(series=series, moments=[moment])).digest


@pytest.fixture(scope="module")
def module_objects(django_db_setup, django_db_blocker):
    """Made once for the module's ~150 tests (testing.db.shared_rows); what a test stores is
    rolled back after it."""
    with shared_rows(django_db_blocker):
        with time_machine.travel(NOW, tick=False):
            reference_rows()
            draw = make_draw(make_series(), DRAW_AT)
            objects = {
                "property": Property.objects.get(code="GRC"),
                "member": MemberFactory(first_name="Thandi"),
                "promotion": draw.series.promotion,
                "draw": draw,
            }
        yield objects


@pytest.fixture
def objects(module_objects, db):
    return module_objects


@pytest.mark.parametrize(("page_name", "field_name", "value"), list(rows()))
def test_a_bad_value_is_a_form_error_never_a_500_and_nothing_is_stored(objects, user_for, page_name, field_name, value):
    page = PAGES[page_name]
    with time_machine.travel(NOW, tick=False):
        client = Client(raise_request_exception=False)
        client.force_login(user_for(page.role))
        data = page.accepted(objects)
        if field_name is not None:
            data[field_name] = value
        before = stored()
        url = page.url(objects)
        if page.method == "get":
            response = client.get(url, QUERY_STRING=encode(data))
        else:
            response = client.generic("POST", url, encode(data), content_type="application/x-www-form-urlencoded")

    assert response.status_code < 500, response.content[:2000]
    if field_name is None:
        # The control: the unspoiled payload is accepted (a POST stores and redirects).
        if page.method == "post":
            assert response.status_code == 302, response.context and response.context["form"].errors
            assert stored() != before
        else:
            assert response.status_code in (200, 302)
        return
    assert response.status_code in (200, 400, 404)
    assert stored() == before
    if page.method == "post" or page_name in ("lookup", "exclusions-list", "audit-filter", "draw-activate-card"):
        form = response.context["form"]
        assert form.errors, f"{field_name}={value!r} was accepted"
