"""Phone numbers are stored one way, +27…, however the desk or a file types them (issue 9, 4)."""

import pytest
from django.core.exceptions import ValidationError

from members.phones import normalise_phone


@pytest.mark.parametrize(
    "typed",
    [
        "0821234567",
        "082 123 4567",
        "082-123-4567",
        "(082) 123 4567",
        "+27 82 123 4567",
        "+27821234567",
        "+27 (0)82 123 4567",
        "+27 082 123 4567",
        "0027 82 123 4567",
        "27821234567",
        "  082 123 4567  ",
    ],
)
def test_a_south_african_number_is_stored_as_plus_27(typed):
    assert normalise_phone(typed) == "+27821234567"


def test_a_landline_keeps_its_area_code():
    assert normalise_phone("011 555 1234") == "+27115551234"


def test_a_visitors_number_keeps_its_country_code():
    assert normalise_phone("+44 20 7946 0958") == "+442079460958"


def test_an_empty_number_stays_empty():
    assert normalise_phone("") == "" and normalise_phone("   ") == ""


@pytest.mark.parametrize(
    "typed",
    [
        "082 123 456",  # a digit short
        "082 123 45678",  # a digit too many
        "+27 82 123 45",
        "821234567",  # no trunk zero, no country code: which country?
        "phone me",
        "082 ABC 4567",
        "+0 82 123 4567",
        "+1234567",  # too short for any country
        "+1234567890123456",  # longer than E.164 allows
        "٠٨٢١٢٣٤٥٦٧",  # Arabic-Indic digits are digits to Python, not to a phone
        "+27 082 123 456",
    ],
)
def test_what_is_not_a_phone_number_is_refused_with_what_to_type(typed):
    with pytest.raises(ValidationError) as refused:
        normalise_phone(typed)
    message = refused.value.messages[0]
    assert "is not a phone number" in message and "082 123 4567" in message
