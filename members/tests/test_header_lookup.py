"""The lookup field in the header of every staff page: a swipe, a card, ID or receipt number or a
name lands on the right page, and the raw stripe (with the member's name) never reaches a URL."""

import datetime as dt
import zoneinfo

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series

SAST = zoneinfo.ZoneInfo("Africa/Johannesburg")
MORNING = dt.datetime(2027, 3, 3, 10, 0, tzinfo=SAST)  # inside the 08:00-12:55 window of a 13:00 draw
TRACK1 = "%B1000012946^MABASO/PIETER^28121010000000000000?"
LOOKUP = "members:lookup"


@pytest.fixture
def pieter(reference_data):
    return MemberFactory(card_number="1000012946", first_name="Pieter", last_name="Mabaso")


def test_every_staff_page_has_the_header_field_which_posts(desk, reference_data):
    for url in (reverse("home"), reverse("draws:list"), reverse("members:exclusions")):
        html = desk.get(url).content.decode()
        assert f'<form id="swipe-form" class="swipe-form" method="post" action="{reverse(LOOKUP)}"' in html, url
        assert 'id="swipe"' in html and "data-swipe" in html, url


def test_the_login_page_has_no_header_field(client):
    assert 'id="swipe"' not in client.get(reverse("login")).content.decode()


def test_a_role_without_the_member_register_has_no_header_field(client_for):
    assert 'id="swipe"' not in client_for(None).get(reverse("home")).content.decode()


@pytest.mark.parametrize("typed", [TRACK1, ";1000012946=2812?", "1000012946", " 1000012946 "])
def test_a_swipe_or_card_number_posted_opens_the_member(desk, pieter, typed):
    response = desk.post(reverse(LOOKUP), {"q": typed})
    assert response.status_code == 302
    assert response["Location"] == reverse("members:detail", args=[pieter.pk])


def test_an_id_number_posted_opens_the_member(desk, pieter):
    response = desk.post(reverse(LOOKUP), {"q": pieter.id_number})
    assert response["Location"] == reverse("members:detail", args=[pieter.pk])


def test_a_name_posted_lists_the_matches_without_a_url(desk, pieter):
    MemberFactory(first_name="Anna", last_name="Mabaso")
    response = desk.post(reverse(LOOKUP), {"q": "mabaso"})
    html = response.content.decode()
    assert response.status_code == 200 and "2 members match “mabaso”" in html


def test_a_misread_stripe_asks_for_another_swipe_and_does_not_echo_it(desk, pieter):
    html = desk.post(reverse(LOOKUP), {"q": "%BMABASO/PIETER^2812?"}).content.decode()
    assert "The card could not be read" in html
    assert "MABASO" not in html


def test_a_stripe_sent_by_get_lands_on_the_member_or_an_address_with_the_card_number_only(desk, pieter):
    # The middleware sends the stripe on at once as the card number alone; then the lookup.
    response = desk.get(reverse(LOOKUP), {"q": TRACK1})
    assert response["Location"] == reverse(LOOKUP) + "?q=1000012946"
    assert desk.get(response["Location"])["Location"] == reverse("members:detail", args=[pieter.pk])
    response = desk.get(reverse(LOOKUP), {"q": TRACK1.replace("1000012946", "1000099999")})
    assert response["Location"] == reverse(LOOKUP) + "?q=1000099999"
    assert "No member matches “1000099999”" in desk.get(response["Location"]).content.decode()


def test_a_stripe_is_never_echoed_into_the_activation_page(desk, pieter):
    series = make_series()
    draw = make_draw(series, MORNING.replace(hour=13))
    response = desk.get(reverse("draws:activate", args=[draw.pk]), {"card": TRACK1}, follow=True)
    assert response.redirect_chain == [(reverse("draws:activate", args=[draw.pk]) + "?card=1000012946", 302)]
    html = response.content.decode()
    assert "MABASO" not in html and 'value="1000012946"' in html


@pytest.fixture
def receipt(reference_data):
    with time_machine.travel(MORNING, tick=False):
        series = make_series(free_tickets_by_tier={"QUEEN": 10})
        draw = make_draw(series, MORNING.replace(hour=13))
        member = MemberFactory(card_number="8000000001", tier=reference_data["tiers"]["QUEEN"])
        PointsEntryFactory(member=member, points=450, earned_at=MORNING - dt.timedelta(days=1))
        return activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number="8000000001", channel="desk")


def test_a_receipt_number_opens_the_receipt(desk, receipt):
    response = desk.post(reverse(LOOKUP), {"q": receipt.receipt_number})
    assert response["Location"] == reverse("draws:receipt", args=[receipt.pk])


def test_a_receipt_number_opens_the_member_for_a_role_that_cannot_see_receipts(cashier, receipt):
    response = cashier.post(reverse(LOOKUP), {"q": receipt.receipt_number})
    assert response["Location"] == reverse("members:detail", args=[receipt.member_id])


def test_an_unknown_receipt_number_says_nobody_matches(desk, receipt):
    html = desk.post(reverse(LOOKUP), {"q": "999-00000001"}).content.decode()
    assert "No member matches “999-00000001”" in html


def test_the_header_lookup_needs_the_member_register(client_for, pieter):
    assert client_for(None).post(reverse(LOOKUP), {"q": "1000012946"}).status_code == 403
