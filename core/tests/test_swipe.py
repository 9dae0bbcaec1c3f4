"""A card swipe arriving as text keeps only its card number (the stripe holds the member's name)."""

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from core.swipe import SwipeInQueryMiddleware, card_from_swipe, looks_like_swipe, scrub

TRACK1 = "%B1000012946^MABASO/PIETER^28121010000000000000?"
TRACK2 = ";1000012946=28121010000000?"


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        (TRACK1, "1000012946"),
        (TRACK2, "1000012946"),
        (TRACK1 + TRACK2, "1000012946"),  # a reader that sends both tracks
        (";1000012946?", "1000012946"),
        ("  " + TRACK2 + "\n", "1000012946"),
        ("%B1000012946^MABASO/PIE", "1000012946"),  # the card number was read before the stripe broke off
        ("%BMABASO/PIETER?", ""),  # misread: nothing to search, and the name is not kept
        ("^MABASO/PIETER^", ""),
        ("1000012946", "1000012946"),
        ("8001015009087", "8001015009087"),
        ("12-00000001", "12-00000001"),
        (" Mabaso ", "Mabaso"),
        ("", ""),
    ],
)
def test_scrub_keeps_the_card_number_of_a_swipe_and_anything_typed_by_hand(typed, expected):
    assert scrub(typed) == expected


def test_a_misread_stripe_has_no_card_number_and_typed_text_is_no_swipe():
    assert card_from_swipe("%BMABASO?") is None
    assert looks_like_swipe("%BMABASO?")
    assert not looks_like_swipe("van der Merwe")
    assert not looks_like_swipe("12-00000001")


def _middleware(path):
    seen = []

    def view(request):
        seen.append(request.get_full_path())
        return HttpResponse("ok")

    response = SwipeInQueryMiddleware(view)(RequestFactory().get(path))
    return response, seen


def test_a_stripe_in_a_query_string_is_sent_on_with_the_card_number_only():
    response, seen = _middleware("/draws/3/activate/?card=%25B1000012946%5EMABASO%2FPIETER%5E2812%3F&x=1")
    assert response.status_code == 302 and seen == []
    assert response["Location"] == "/draws/3/activate/?card=1000012946&x=1"
    assert "MABASO" not in response["Location"]


def test_a_misread_stripe_in_a_query_string_is_dropped_and_other_requests_pass():
    response, _ = _middleware("/members/?q=%25BMABASO%3F")
    assert response["Location"] == "/members/?q="
    response, seen = _middleware("/members/?q=Mabaso")
    assert response.status_code == 200 and seen == ["/members/?q=Mabaso"]


@pytest.mark.django_db
def test_in_the_middleware_stack_a_stripe_in_an_address_never_reaches_a_view(client_for, settings):
    from django.urls import reverse

    from core.roles import REWARDS_DESK

    settings.MIDDLEWARE = ["core.swipe.SwipeInQueryMiddleware", *settings.MIDDLEWARE]
    response = client_for(REWARDS_DESK).get(reverse("draws:list"), {"card": TRACK1})
    assert response.status_code == 302
    assert response["Location"] == reverse("draws:list") + "?card=1000012946"
