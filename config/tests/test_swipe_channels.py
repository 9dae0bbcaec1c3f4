"""A card swipe (the stripe holds the member's name) is recognised on the server wherever it
arrives, and is never stored, echoed or logged (issue 12, finding 4): the login's username, the
manual draw's serial, every text field of every form (sign-up's names among them), the member
search, an address's path, its query keys and values, the links a list rebuilds, the audit log
and its CSV, the sign-in throttle's table, Django's "Not Found" log and gunicorn's access log.

Each test asserts that no piece of the raw stripe is anywhere: the response, the database rows
and the log lines."""

import datetime as dt
import logging
from pathlib import Path

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth import authenticate
from django.test import Client, RequestFactory
from django.urls import reverse

import config.tests.test_bad_input as bad_input
from core.audit import Actor, audit_log
from core.errors import DomainError
from core.forms import SWIPE_REFUSED
from core.models import AuditEvent, SignInFailure
from core.paging import query_without
from core.roles import AUDITOR, PROMOTIONS_MANAGER, REWARDS_DESK
from core.swipe import CARD_SWIPE, card_from_swipe, looks_like_swipe, mask_swipes
from draws import engine
from draws.models import DrawPick
from draws.tests.builders import SAST, closed_draw
from draws.tests.factories import make_draw
from members.forms import MemberFilterForm
from members.models import Member, Property
from members.tests.factories import MemberFactory
from promotions.models import DrawMethod
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db


@pytest.fixture
def objects(reference_data):
    """The objects test_bad_input's pages act on, made for each test here (not once per module as
    there): some tests here find no member stored at all."""
    with time_machine.travel(bad_input.NOW, tick=False):
        draw = make_draw(make_series(), bad_input.DRAW_AT)
        yield {
            "property": Property.objects.get(code="GRC"),
            "member": MemberFactory(first_name="Thandi"),
            "promotion": draw.series.promotion,
            "draw": draw,
        }


CARD = "1000012946"
TRACK1 = f"%B{CARD}^MABASO/PIETER^28121010000000000000?"
TRACK2 = f";{CARD}=28121010000000?"
SWIPES = {
    "track1": TRACK1,
    "track2": TRACK2,
    "both": TRACK1 + TRACK2,
    "caps-lock": TRACK1.lower(),
    "no-sentinels": TRACK1[1:-1],
    "partial": TRACK1[:24],
}
# Any of these in a page, a row or a log line is a piece of the stripe.
PIECES = ("MABASO", "mabaso", "PIETER", "pieter", "^", "%B1000", "%b1000", f";{CARD}", "=2812", "28121010")


def assert_no_stripe(*texts) -> None:
    for text in texts:
        text = str(text)
        found = [piece for piece in PIECES if piece in text]
        assert not found, f"stripe pieces {found} in {text[:500]!r}"


def everything_stored() -> str:
    """Every row a swipe could have been written to."""
    return str(
        [
            list(AuditEvent.objects.values()),
            list(SignInFailure.objects.values()),
            list(Member.objects.values("first_name", "last_name", "id_number")),
        ]
    )


# --- The recogniser ------------------------------------------------------------------------


@pytest.mark.parametrize("swipe", SWIPES.values(), ids=SWIPES.keys())
def test_every_shape_of_a_swipe_is_recognised_and_masked(swipe):
    assert looks_like_swipe(swipe)
    assert mask_swipes(swipe) == CARD_SWIPE
    # The whole word holding it (a path with a swipe in it), the rest of the line kept.
    assert mask_swipes(f"Not Found: /members/{swipe} and more") == f"Not Found: {CARD_SWIPE} and more"


def test_a_swipe_without_its_sentinels_still_gives_its_card_number():
    assert card_from_swipe(TRACK1[1:-1]) == CARD
    assert card_from_swipe(f"{CARD}=2812101") == CARD
    assert card_from_swipe(TRACK1.lower()) == CARD


@pytest.mark.parametrize(
    "typed",
    [
        "van der Merwe",
        "O'Brien-Smith",
        "12-00000001",
        "8001015009087",
        "Duplicates: 8001015009087;8001015009088",
        "Moved: the venue is closed; 25 people told.",
        "Pay 100% Back on slots",
        "A1234567",
    ],
)
def test_text_typed_by_hand_is_no_swipe(typed):
    assert not looks_like_swipe(typed)
    assert mask_swipes(typed) == typed


# --- The login -----------------------------------------------------------------------------


@pytest.mark.parametrize("swipe", [TRACK1, TRACK2, TRACK1.lower()], ids=["track1", "track2", "caps-lock"])
def test_a_swipe_in_the_login_username_is_refused_and_kept_nowhere(client, user_for, swipe):
    user_for(None, username="nomsa", password="the-right-one-2026")
    response = client.post(reverse("login"), {"username": swipe, "password": "the-right-one-2026"})
    assert response.status_code == 200
    body = response.content.decode()
    assert "That was a card swipe: type your username." in body
    assert_no_stripe(body, everything_stored())
    assert not SignInFailure.objects.exists()
    assert not AuditEvent.objects.filter(action__startswith="auth.").exists()  # nothing was tried


def test_a_swipe_in_the_admin_login_username_is_refused_too(client):
    response = client.post(
        reverse("admin:login"), {"username": TRACK1, "password": "x", "next": "/admin/"}, follow=True
    )
    assert "That was a card swipe: type your username." in response.content.decode()
    assert_no_stripe(response.content.decode(), everything_stored())


def test_a_swipe_that_reaches_the_password_check_another_way_is_kept_as_card_swipe(user_for):
    """Belt and braces: authenticate() called with a swipe (not through the sign-in forms)."""
    request = RequestFactory().post(reverse("login"), {"username": TRACK1, "password": "x"})
    assert authenticate(request=request, username=TRACK1, password="x") is None
    event = AuditEvent.objects.get(action="auth.login_failed")
    assert event.data == {"username": CARD_SWIPE}
    assert SignInFailure.objects.get().username == CARD_SWIPE
    assert_no_stripe(everything_stored())


# --- Every form ----------------------------------------------------------------------------


def _post_rows():
    for name, page in bad_input.PAGES.items():
        if page.method == "post":
            for field_name in page.text:
                yield pytest.param(name, field_name, id=f"{name}-{field_name}")


@pytest.mark.parametrize(("page_name", "field_name"), list(_post_rows()))
def test_a_swipe_in_any_field_of_a_form_is_refused_cleared_and_stored_nowhere(objects, user_for, page_name, field_name):
    page = bad_input.PAGES[page_name]
    with time_machine.travel(bad_input.NOW, tick=False):
        client = Client()
        client.force_login(user_for(page.role))
        data = page.accepted(objects) | {field_name: TRACK1}
        before, events = bad_input.stored(), AuditEvent.objects.count()
        response = client.post(page.url(objects), data)
    assert response.status_code == 200
    form = response.context["form"]
    assert form.errors[field_name] == [SWIPE_REFUSED]
    body = response.content.decode()
    assert SWIPE_REFUSED in body
    assert_no_stripe(body, form[field_name].value())
    assert bad_input.stored() == before and AuditEvent.objects.count() == events
    assert_no_stripe(everything_stored())


def test_sign_up_does_not_save_a_swipe_as_a_first_name(desk, reference_data):
    data = {
        "first_name": TRACK1,
        "last_name": "Mokoena",
        "id_type": "passport",
        "id_number": "A1234567",
        "date_of_birth": "1990-01-01",
        "home_property": reference_data["properties"]["GRC"].pk,
    }
    response = desk.post(reverse("members:sign_up"), data)
    assert "That was a card swipe" in response.content.decode()
    assert not Member.objects.exists()
    assert_no_stripe(response.content.decode(), everything_stored())
    data["first_name"] = "Naledi"
    assert desk.post(reverse("members:sign_up"), data).status_code == 302  # the control


def test_where_a_card_belongs_a_swipe_becomes_its_card_number(reference_data):
    form = MemberFilterForm({"q": TRACK1})
    assert form.is_valid() and form.cleaned_data["q"] == CARD
    assert form["q"].value() == CARD
    misread = MemberFilterForm({"q": "%BMABASO/PIETER?"})
    assert not misread.is_valid() and "could not be read" in misread.errors["q"][0]
    assert_no_stripe(misread["q"].value())


def test_the_activation_page_takes_a_swiped_card_posted_raw(desk, reference_data):
    from draws.tests.factories import make_draw

    member = MemberFactory(card_number=CARD)
    draw = make_draw(make_series(), dt.datetime(2030, 1, 1, 20, 0, tzinfo=SAST))
    response = desk.post(reverse("draws:activate", args=[draw.pk]), {"card": TRACK1})
    body = response.content.decode()
    assert response.context["form"].cleaned_data["card"] == CARD
    assert member.full_name in body or response.status_code == 302
    assert_no_stripe(body)


# --- The member search ---------------------------------------------------------------------


def test_a_swipe_in_the_member_search_searches_its_card_number(desk, reference_data):
    member = MemberFactory(card_number=CARD, first_name="Pieter", last_name="Mabaso")
    response = desk.get(reverse("members:list"), {"q": TRACK1, "tier": ""})
    assert response.status_code == 302
    assert response["Location"] == reverse("members:list") + f"?q={CARD}&tier="
    page = desk.get(response["Location"])
    assert member.card_number in page.content.decode()
    assert "MABASO/PIETER" not in page.content.decode() and "^" not in page.content.decode()


def test_a_swipe_posted_to_the_header_lookup_goes_to_the_member(desk, reference_data):
    member = MemberFactory(card_number=CARD)
    response = desk.post(reverse("members:lookup"), {"q": TRACK2})
    assert response.status_code == 302 and response["Location"] == reverse("members:detail", args=[member.pk])


# --- The manual draw's serial --------------------------------------------------------------

DRAW_AT = dt.datetime(2025, 10, 15, 20, 0, tzinfo=SAST)


@pytest.fixture
def manual_draw(manager, reference_data):
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=2), tick=False):
        series = make_series()
        series.method = DrawMethod.MANUAL
        series.save()
        draw, _ = closed_draw(series, DRAW_AT, [5, 5])
        manager.post(reverse("draws:start", args=[draw.pk]), {"witness_name": "W"})
        yield draw


def test_a_swipe_keyed_as_a_serial_is_refused_before_the_engine_and_kept_nowhere(manager, manual_draw):
    response = manager.post(reverse("draws:key_serial", args=[manual_draw.pk]), {"serial": TRACK1}, follow=True)
    body = response.content.decode()
    assert "That was a card swipe: type the serial printed on the ticket." in body
    assert not DrawPick.objects.filter(draw=manual_draw).exists()
    assert_no_stripe(body, everything_stored())


def test_the_engine_keeps_a_swiped_serial_as_card_swipe_and_the_page_shows_no_stripe(manager, manual_draw):
    with pytest.raises(DomainError) as refused:
        engine.draw_key_serial(actor=Actor.system("test"), draw_id=manual_draw.pk, serial=TRACK1)
    assert refused.value.message == engine.SERIAL_SWIPED
    event = AuditEvent.objects.get(action="draw.serial_refused")
    assert event.data == {"keyed": CARD_SWIPE, "reason": engine.SERIAL_SWIPED}
    # An event written before this fix, with the raw stripe: the draw page masks it.
    AuditEvent.objects.create(
        actor_label="manager",
        action="draw.serial_refused",
        object_type="draws.draw",
        object_id=str(manual_draw.pk),
        data={"keyed": TRACK1[:40], "reason": f"“{TRACK1[:20]}” is not a ticket serial."},
    )
    body = manager.get(reverse("draws:detail", args=[manual_draw.pk])).content.decode()
    assert 'id="refused-keys"' in body and CARD_SWIPE in body
    assert_no_stripe(body)


# --- The audit log and its CSV -------------------------------------------------------------


def test_the_audit_log_keeps_no_swipe_and_its_page_and_csv_show_none(client_for):
    with time_machine.travel(dt.datetime(2027, 3, 1, 10, 0, tzinfo=SAST), tick=False):
        audit_log(actor=Actor.system("test"), action="auth.login_failed", data={"username": TRACK1, "n": [TRACK2]})
        assert_no_stripe(everything_stored())
        # One written before the fix, raw: shown masked.
        AuditEvent.objects.create(actor_label="anonymous", action="auth.login_failed", data={"username": TRACK1})
        auditor = client_for(AUDITOR)
        page = auditor.get(reverse("audit")).content.decode()
        csv = b"".join(auditor.get(reverse("audit_csv")).streaming_content).decode()
    assert page.count(CARD_SWIPE) >= 2 and csv.count(CARD_SWIPE) >= 2
    assert_no_stripe(page, csv)


# --- Addresses -----------------------------------------------------------------------------


def test_a_swipe_in_a_path_is_sent_back_to_the_folder_before_it_and_not_logged(desk, caplog):
    with caplog.at_level(logging.INFO):
        response = desk.get(f"/members/{TRACK1[:-1]}")  # the "?" would start the query
        other = desk.get(f"/members/x/{TRACK2[:-1]}/")
        post = desk.post(f"/draws/{TRACK1[:-1]}", {"x": "1"})
    assert (response.status_code, response["Location"]) == (302, "/members/")
    assert (other.status_code, other["Location"]) == (302, "/members/x/")
    assert (post.status_code, post["Location"]) == (303, "/draws/")
    assert_no_stripe(caplog.text, *(r.getMessage() for r in caplog.records))


def test_a_swipe_in_a_query_key_is_dropped_and_the_rest_kept(desk, caplog):
    with caplog.at_level(logging.INFO):
        response = desk.get(reverse("members:list"), QUERY_STRING="%25B1000012946%5EMABASO%2FPIETER%5E2812%3F=1&tier=")
        bare = desk.get(reverse("members:list"), QUERY_STRING=f"{TRACK2[:-1]}")  # key ";…", value "2812…"
    assert (response.status_code, response["Location"]) == (302, reverse("members:list") + "?tier=")
    assert bare.status_code == 302 and bare["Location"] == reverse("members:list")
    assert_no_stripe(caplog.text)


def test_list_links_rebuilt_from_the_query_drop_a_swiped_key_and_scrub_a_value():
    request = RequestFactory().get("/members/list/", {TRACK1: "1", "q": TRACK2, "tier": "2", "page": "3"})
    assert query_without(request, "page") == f"q={CARD}&tier=2"


def test_django_s_not_found_warning_never_carries_a_stripe(caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        logging.getLogger("django.request").warning("Not Found: %s", f"/nowhere/{TRACK1[:-1]}")
        logging.getLogger("django.request").warning("Not Found: %s", "/nowhere/else/")
    messages = [record.getMessage() for record in caplog.records]
    assert messages == [f"Not Found: {CARD_SWIPE}", "Not Found: /nowhere/else/"]
    assert_no_stripe(caplog.text)


def test_a_404_for_an_address_with_a_swipe_is_never_logged_raw(client_for, caplog):
    client = client_for(REWARDS_DESK)
    with caplog.at_level(logging.INFO):
        response = client.get(f"/no-such-page/{TRACK1[:-1]}/", follow=True)
    assert response.status_code == 404
    assert_no_stripe(caplog.text, response.content.decode(), str(response.redirect_chain))


def test_gunicorn_s_access_log_masks_a_stripe_in_the_path(tmp_path):
    from gunicorn.config import Config

    log_file = tmp_path / "access.log"
    config = Config()
    config.set("accesslog", str(log_file))
    settings_file = Path(settings.BASE_DIR) / "config" / "gunicorn.conf.py"
    namespace: dict = {}
    exec(compile(settings_file.read_text(), str(settings_file), "exec"), namespace)  # noqa: S102 (our own file)
    for name in ("access_log_format", "logger_class"):
        config.set(name, namespace[name])
    logger = config.logger_class(config)

    class Response:
        status = "302 Found"
        headers: list = []
        sent = 0

    # gunicorn hands the path percent-decoded: "%B1" arrives as the byte 0xB1.
    for path in (f"/members/\xb1{TRACK1[3:-1]}", f"/members/{TRACK2[:-1]}", "/members/list/"):
        environ = {
            "REQUEST_METHOD": "GET",
            "RAW_URI": path,
            "SERVER_PROTOCOL": "HTTP/1.1",
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "REMOTE_ADDR": "192.0.2.1",
        }
        logger.access(Response(), [], environ, dt.timedelta(milliseconds=3))
    for handler in logger.access_log.handlers:
        handler.flush()
    lines = log_file.read_text().splitlines()
    assert len(lines) == 3
    assert f'"GET {CARD_SWIPE} HTTP/1.1"' in lines[0] and f'"GET {CARD_SWIPE} HTTP/1.1"' in lines[1]
    assert '"GET /members/list/ HTTP/1.1"' in lines[2]
    assert_no_stripe(*lines)


def test_the_members_list_links_keep_no_swipe_key(client_for, reference_data):
    """The page a swiped key would have reached keeps its other filters in its links, never the key."""
    MemberFactory.create_batch(51)  # two pages: the page links are rebuilt from the query
    client = client_for(PROMOTIONS_MANAGER)
    response = client.get(
        reverse("members:list"), QUERY_STRING=f"{TRACK1[1:-1].replace('^', '%5E')}=1&tier=", follow=True
    )
    assert response.status_code == 200 and "page=2" in response.content.decode()
    assert_no_stripe(response.content.decode(), str(response.redirect_chain))


def test_every_form_of_the_project_recognises_swipes():
    """Every form class (every page's, loaded through the URLs) is a SwipeGuard, so a new form
    cannot forget it; submit() guards any other form it is given as well."""
    import importlib

    from django import forms
    from django.conf import settings as django_settings

    from core.forms import SwipeGuard

    importlib.import_module(django_settings.ROOT_URLCONF)
    apps = ("core", "members", "promotions", "draws", "proxies", "prizes", "records", "config")

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    ours = {
        cls
        for cls in subclasses(forms.BaseForm)
        if cls.__module__.split(".")[0] in apps and ".tests" not in cls.__module__
    }
    assert len(ours) > 20
    assert sorted(cls.__qualname__ for cls in ours if not issubclass(cls, SwipeGuard)) == []


def test_a_swipe_in_an_api_address_is_refused_in_the_api_s_shape(client):
    response = client.get(f"/api/v1/members/{TRACK1}/draws")
    assert response.status_code == 400
    assert response.json() == {
        "code": "bad_request",
        "detail": "The address holds a card swipe: send only the card number.",
    }
    assert_no_stripe(response.content.decode())
