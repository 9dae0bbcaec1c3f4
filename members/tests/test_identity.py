import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from stdnum import luhn

from members.cards import card_number_for
from members.identity import Identity, IdType, identify_document, validate_identity
from members.tests.factories import sa_id_for


def test_a_valid_sa_id_gives_its_birth_date():
    number = sa_id_for(dt.date(1985, 7, 21))
    assert validate_identity(IdType.SA_ID, number, None) == Identity(IdType.SA_ID, number, dt.date(1985, 7, 21))


def test_spaces_in_an_sa_id_are_ignored():
    number = sa_id_for(dt.date(1985, 7, 21))
    spaced = f"{number[:6]} {number[6:10]} {number[10:]}"
    assert validate_identity(IdType.SA_ID, spaced, None).number == number


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
    assert validate_identity(IdType.PASSPORT, "a1234567", dt.date(1990, 1, 1)) == Identity(
        IdType.PASSPORT, "A1234567", dt.date(1990, 1, 1)
    )
    with pytest.raises(ValidationError, match="date of birth is required"):
        validate_identity(IdType.PASSPORT, "A1234567", None)
    with pytest.raises(ValidationError, match="5 to 20 letters and digits"):
        validate_identity(IdType.DRIVING_LICENCE, "12", dt.date(1990, 1, 1))


@pytest.mark.parametrize("picked", [IdType.PASSPORT, IdType.DRIVING_LICENCE])
def test_an_sa_id_number_is_an_sa_id_whatever_document_type_is_picked(picked):
    identity = validate_identity(picked, "850505 5123 087", None)
    assert identity == Identity(IdType.SA_ID, "8505055123087", dt.date(1985, 5, 5))


def test_an_sa_id_picked_as_a_passport_must_agree_with_the_typed_birth_date():
    with pytest.raises(ValidationError, match="does not match the ID number, which gives 1985-05-05"):
        validate_identity(IdType.PASSPORT, "8505055123087", dt.date(1990, 1, 1))


def test_13_digits_that_are_not_a_valid_sa_id_stay_the_document_picked():
    wrong_check_digit = "8505055123088"
    impossible_date = "8513325123087"
    for number in (wrong_check_digit, impossible_date):
        identity = validate_identity(IdType.PASSPORT, number, dt.date(1990, 1, 1))
        assert identity.id_type == IdType.PASSPORT


def test_a_document_without_a_birth_date_is_identified_for_an_exclusion():
    assert identify_document(IdType.DRIVING_LICENCE, "8505055123087") == Identity(
        IdType.SA_ID, "8505055123087", dt.date(1985, 5, 5)
    )
    assert identify_document(IdType.PASSPORT, "m 1234-567") == Identity(IdType.PASSPORT, "M1234567", None)


@pytest.mark.parametrize("number", ["A123\x004567", "A123\ud8004567", "12"])
def test_a_document_number_with_control_or_broken_characters_is_refused(number):
    with pytest.raises(ValidationError, match="5 to 20 letters and digits"):
        identify_document(IdType.PASSPORT, number)


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
