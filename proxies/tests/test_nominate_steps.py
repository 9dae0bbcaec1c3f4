"""Nominating a proxy at the desk (issue 13 item 13): the proxy's swipe fills the nominee without
sending the form, a single draw is ticked already, and the form is printed and signed before
anything is registered — the printed form never claims a signature or a registration."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory, sa_id_for
from promotions.tests.factories import make_series
from proxies.drafts import SESSION_KEY
from proxies.models import ProxyNomination
from testing.pdf import pdf_text

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2026, 3, 4, 10, 0, tzinfo=SAST)  # the draw at 12:00: proxies 08:00-11:45
NOMINEE_ID = sa_id_for(dt.date(1985, 6, 15), 4321)
SIGNED = {"participant_id_seen": "on", "nominee_id_seen": "on", "form_signed": "on"}
TYPED = {
    "nominee_name": "Lerato Khumalo",
    "nominee_id_type": "sa_id",
    "nominee_id_number": NOMINEE_ID,
    "nominee_phone": "+27821234567",
}


@pytest.fixture
def world(reference_data):
    with time_machine.travel(NOW, tick=False):
        draw = make_draw(make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}]), NOW.replace(hour=12))
        member = MemberFactory(card_number="7200000001", first_name="Sipho", last_name="Dlamini")
        PointsEntryFactory(member=member, points=500, earned_at=NOW - dt.timedelta(days=1))
        activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number="7200000001", channel="ehost")
        yield {"draw": draw, "member": member}


def _url(name, member):
    return reverse(f"proxies:{name}", args=[member.pk])


@time_machine.travel(NOW, tick=False)
def test_the_only_draw_that_takes_a_proxy_is_ticked_already(desk, world):
    form = desk.get(_url("member_nominate", world["member"])).context["form"]
    assert form["draws"].value() == [world["draw"].pk]
    assert f'value="{world["draw"].pk}" class="form-check-input" id="id_draws_0" checked' in str(form["draws"])


@time_machine.travel(NOW, tick=False)
def test_with_two_draws_open_none_is_ticked_for_the_clerk(desk, world):
    second = make_draw(world["draw"].series, NOW.replace(hour=11, minute=30))
    activation_create(actor=Actor.system("test"), draw_id=second.pk, card_number="7200000001", channel="ehost")
    form = desk.get(_url("member_nominate", world["member"])).context["form"]
    assert len(form.fields["draws"].choices) == 2 and not form["draws"].value()


# --- the proxy's swipe ----------------------------------------------------------------------------


def test_a_swipe_finds_the_proxy_and_shows_only_the_last_four_of_their_id(desk, world):
    proxy = MemberFactory(card_number="7200000099", first_name="Ayanda", last_name="Zulu", id_number=NOMINEE_ID)
    response = desk.post(_url("nominee_lookup", world["member"]), {"lookup": "%B7200000099^ZULU/AYANDA^2812?"})
    page = response.content.decode()
    assert response.status_code == 200 and "Ayanda Zulu" in page and proxy.card_number in page
    assert NOMINEE_ID not in page and NOMINEE_ID[-4:] in page
    assert "ZULU/AYANDA" not in page and "%B" not in page  # the stripe is never echoed
    assert not ProxyNomination.objects.exists() and SESSION_KEY not in desk.session


@pytest.mark.parametrize(
    ("lookup", "says"),
    [
        ("7200000001", "A participant cannot be their own proxy."),
        ("7299999999", "No single member matches"),
        ("", "Swipe the proxy&#x27;s card first."),
    ],
)
def test_the_lookup_says_why_no_proxy_was_found(desk, world, lookup, says):
    response = desk.post(_url("nominee_lookup", world["member"]), {"lookup": lookup})
    assert says in response.content.decode() and 'data-found="1"' not in response.content.decode()


# --- print, sign, register ------------------------------------------------------------------------


@time_machine.travel(NOW, tick=False)
def test_step_one_checks_everything_and_registers_nothing(desk, world):
    response = desk.post(_url("member_nominate", world["member"]), {"draws": [world["draw"].pk], **TYPED})
    assert response["Location"] == _url("nominate_sign", world["member"])
    assert not ProxyNomination.objects.exists()
    page = desk.get(response["Location"]).content.decode()
    assert "Lerato Khumalo" in page and NOMINEE_ID not in page and 'id="not-printed"' in page


@time_machine.travel(NOW, tick=False)
def test_step_one_refuses_what_the_registration_would_refuse_before_anything_is_printed(desk, world):
    other = MemberFactory(card_number="7200000002", id_number=NOMINEE_ID)
    PointsEntryFactory(member=other, points=500, earned_at=NOW - dt.timedelta(days=1))
    activation_create(actor=Actor.system("test"), draw_id=world["draw"].pk, card_number="7200000002", channel="ehost")
    response = desk.post(_url("member_nominate", world["member"]), {"draws": [world["draw"].pk], **TYPED})
    assert "a proxy may not take part in the draw they stand in for" in response.context["form"].non_field_errors()[0]
    assert SESSION_KEY not in desk.session


@time_machine.travel(NOW, tick=False)
def test_registering_is_refused_until_the_form_was_printed(desk, world):
    desk.post(_url("member_nominate", world["member"]), {"draws": [world["draw"].pk], **TYPED})
    refused = desk.post(_url("nominate_sign", world["member"]), SIGNED)
    assert refused.context["form"].non_field_errors() == ["Print the form and have both sign it first."]
    assert not ProxyNomination.objects.exists()
    desk.get(_url("nominate_form_pdf", world["member"]))
    response = desk.post(_url("nominate_sign", world["member"]), SIGNED)
    nomination = ProxyNomination.objects.get()
    assert response["Location"] == reverse("proxies:nomination", args=[nomination.pk])
    assert (nomination.nominee_name, nomination.nominee_id_number, nomination.form_signed) == (
        "Lerato Khumalo",
        NOMINEE_ID,
        True,
    )
    assert SESSION_KEY not in desk.session or str(world["member"].pk) not in desk.session[SESSION_KEY]


def test_the_window_closing_between_print_and_signature_refuses_the_registration(desk, world):
    with time_machine.travel(dt.datetime(2026, 3, 4, 11, 44, 59, tzinfo=SAST), tick=False):
        desk.post(_url("member_nominate", world["member"]), {"draws": [world["draw"].pk], **TYPED})
        desk.get(_url("nominate_form_pdf", world["member"]))
    with time_machine.travel(dt.datetime(2026, 3, 4, 11, 45, tzinfo=SAST), tick=False):
        response = desk.post(_url("nominate_sign", world["member"]), SIGNED)
    assert "closed at Wed 04 Mar 2026 11:45" in response.context["form"].non_field_errors()[0]
    assert not ProxyNomination.objects.exists()


def test_without_details_the_signing_step_and_its_form_send_the_desk_back_to_step_one(desk, world):
    for name in ("nominate_sign", "nominate_form_pdf"):
        response = desk.get(_url(name, world["member"]))
        assert response["Location"] == _url("member_nominate", world["member"]), name


@time_machine.travel(NOW, tick=False)
def test_the_form_printed_to_sign_claims_no_signature_and_no_registration(desk, world):
    desk.post(_url("member_nominate", world["member"]), {"draws": [world["draw"].pk], **TYPED})
    response = desk.get(_url("nominate_form_pdf", world["member"]))
    assert response["Content-Type"] == "application/pdf"
    text = pdf_text(response.content, flat=True)
    assert "Sipho Dlamini" in text and "Lerato Khumalo" in text and world["draw"].name in text
    assert "*********" + NOMINEE_ID[-4:] in text and NOMINEE_ID not in text
    assert "Participant Proxy Clerk" in text  # the signature lines, blank
    assert "Not yet registered" in text
    assert "signed by both" not in text and "Registered by" not in text and "ID documents seen" not in text


@time_machine.travel(NOW, tick=False)
def test_the_reprint_of_a_registered_nomination_says_it_was_registered_after_the_signatures(desk, world):
    desk.post(_url("member_nominate", world["member"]), {"draws": [world["draw"].pk], **TYPED})
    desk.get(_url("nominate_form_pdf", world["member"]))
    desk.post(_url("nominate_sign", world["member"]), SIGNED)
    nomination = ProxyNomination.objects.get()
    text = pdf_text(desk.get(reverse("proxies:nomination_pdf", args=[nomination.pk])).content, flat=True)
    assert "Reprinted" in text and "Registered by" in text and "was signed by both" in text
    assert "Not yet registered" not in text


@time_machine.travel(NOW, tick=False)
def test_changing_a_detail_after_printing_needs_a_new_print(desk, world):
    desk.post(_url("member_nominate", world["member"]), {"draws": [world["draw"].pk], **TYPED})
    desk.get(_url("nominate_form_pdf", world["member"]))
    back = desk.get(_url("member_nominate", world["member"])).context["form"]
    assert back["nominee_name"].value() == "Lerato Khumalo"  # the details as they were
    desk.post(_url("member_nominate", world["member"]), {"draws": [world["draw"].pk], **TYPED, "nominee_phone": ""})
    refused = desk.post(_url("nominate_sign", world["member"]), SIGNED)
    assert refused.context["form"].non_field_errors() == ["Print the form and have both sign it first."]
