import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from stdnum import luhn

from members.cards import card_number_for
from members.identity import IdType, validate_identity
from members.tests.factories import sa_id_for


def test_a_valid_sa_id_gives_its_birth_date():
    number = sa_id_for(dt.date(1985, 7, 21))
    assert validate_identity(IdType.SA_ID, number, None) == (number, dt.date(1985, 7, 21))


def test_spaces_in_an_sa_id_are_ignored():
    number = sa_id_for(dt.date(1985, 7, 21))
    spaced = f"{number[:6]} {number[6:10]} {number[10:]}"
    assert validate_identity(IdType.SA_ID, spaced, None)[0] == number


def test_an_sa_id_with_a_wrong_check_digit_is_refused():
    number = sa_id_for(dt.date(1985, 7, 21))
    wrong = number[:-1] + str((int(number[-1]) + 1) % 10)
    with pytest.raises(ValidationError, match="not a valid South African ID number"):
        validate_identity(IdType.SA_ID, wrong, None)


def test_an_sa_id_with_an_impossible_birth_date_is_refused():
    body = "851321500908"  # month 13
    with pytest.raises(ValidationError, match="not a valid South African ID number"):
        validate_identity(IdType.SA_ID, body + luhn.calc_check_digit(body), None)


def test_a_typed_birth_date_must_agree_with_the_sa_id():
    number = sa_id_for(dt.date(1985, 7, 21))
    with pytest.raises(ValidationError, match="does not match the ID number, which gives 1985-07-21"):
        validate_identity(IdType.SA_ID, number, dt.date(1985, 7, 22))


def test_a_passport_needs_a_birth_date_and_a_plausible_number():
    assert validate_identity(IdType.PASSPORT, "a1234567", dt.date(1990, 1, 1)) == ("A1234567", dt.date(1990, 1, 1))
    with pytest.raises(ValidationError, match="date of birth is required"):
        validate_identity(IdType.PASSPORT, "A1234567", None)
    with pytest.raises(ValidationError, match="5 to 20 letters and digits"):
        validate_identity(IdType.DRIVING_LICENCE, "12", dt.date(1990, 1, 1))


def test_card_numbers_carry_a_luhn_check_digit():
    card = card_number_for(100_000_001)
    assert len(card) == 10 and luhn.is_valid(card)


@pytest.mark.django_db
def test_issued_card_numbers_skip_numbers_already_held_by_imported_cards(reference_data):
    from django.db import transaction

    from members.cards import card_numbers_issue
    from members.models import CardNumberCounter
    from members.tests.factories import MemberFactory

    start = CardNumberCounter.objects.get_or_create(pk=1, defaults={"last_serial": 100_000_000})[0].last_serial
    MemberFactory(card_number=card_number_for(start + 1))
    with transaction.atomic():
        issued = card_numbers_issue(2)
    assert issued == [card_number_for(start + 2), card_number_for(start + 3)]
