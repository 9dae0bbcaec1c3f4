"""Identity documents: the three kinds a desk accepts, and validation of SA ID numbers."""

import datetime as dt
import functools
import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import models
from stdnum.za import idnr


class IdType(models.TextChoices):
    SA_ID = "sa_id", "South African ID"
    PASSPORT = "passport", "Passport"
    DRIVING_LICENCE = "driving_licence", "Driving licence"


DOCUMENT_NUMBER = re.compile(r"^[A-Z0-9]{5,20}$")


def normalise_id_number(id_number: str) -> str:
    return re.sub(r"[\s-]", "", id_number or "").upper()


def sa_id_birth_date(id_number: str) -> dt.date:
    """The birth date embedded in a valid SA ID number; ValidationError if it is not valid."""
    born = sa_id_born(id_number)
    if born is None:
        raise ValidationError(
            "This is not a valid South African ID number: check the 13 digits (the last one is a check digit).",
            code="invalid_sa_id",
        )
    return born


# Each digit of the Luhn check that is doubled, as the digit of its doubled value's digit sum.
_LUHN_DOUBLED = str.maketrans("0123456789", "0246813579")


def sa_id_born(number: str, this_year: int | None = None) -> dt.date | None:
    """The birth date of a valid SA ID number, None when it is not one: python-stdnum's rules
    (za.idnr: 13 ASCII digits, a real YYMMDD date in the last hundred years, citizenship digit
    0 or 1, Luhn check digit) without its overhead, which was a third of a members import's time.
    Spaces around or inside are ignored, as stdnum does (tests pin both on many numbers).
    `this_year`: today's year, when the caller checks many numbers (it decides the century)."""
    if not number.isascii():  # stdnum reads look-alike digits (full-width ...) as digits: its answer
        return idnr.get_birth_date(number) if idnr.is_valid(number) else None
    if " " in number:
        number = number.replace(" ", "")
    if len(number) != 13 or not number.isdigit() or number[10] not in "01":
        return None
    # Luhn from the right: the 1st, 3rd, ... digits (even indexes of 13) count as they are, the
    # others doubled; ASCII codes summed, less 48 for each of the 13 digits.
    if (sum(number[0::2].encode()) + sum(number[1::2].translate(_LUHN_DOUBLED).encode()) - 13 * 48) % 10:
        return None
    return _sa_id_date(number[:6], this_year or dt.date.today().year)


@functools.lru_cache(maxsize=40_000)  # every day of a century fits: the cache stays warm on a big file
def _sa_id_date(yymmdd: str, this_year: int) -> dt.date | None:
    """The date of YYMMDD as stdnum reads it: in this century unless that is after this year."""
    year = int(yymmdd[:2]) + 100 * (this_year // 100)
    if year > this_year:
        year -= 100
    try:
        return dt.date(year, int(yymmdd[2:4]), int(yymmdd[4:6]))
    except ValueError:
        return None


@dataclass(frozen=True)
class Identity:
    """A checked ID document: its type (corrected when the number is an SA ID), the normalised
    number and the date of birth."""

    id_type: str
    number: str
    date_of_birth: dt.date | None


def is_sa_id_number(number: str) -> bool:
    """13 digits with a valid check digit, citizenship digit and birth date."""
    return len(number) == 13 and sa_id_born(number) is not None


def identify_document(id_type: str, id_number: str) -> Identity:
    """The true type and normalised number of a document, and the birth date an SA ID carries
    (None for other documents); ValidationError when the number cannot be such a document.

    A number that is a valid SA ID is an SA ID whatever type was picked: otherwise a
    self-excluded person is signed up again by choosing "passport" (issue 6, 2.1).
    """
    number = normalise_id_number(id_number)
    if id_type not in IdType.values:
        raise ValidationError(
            f"Unknown ID type {id_type!r}: use one of {', '.join(IdType.values)}.", code="invalid_id_type"
        )
    if id_type == IdType.SA_ID or is_sa_id_number(number):
        return Identity(IdType.SA_ID, number, sa_id_birth_date(number))
    if not DOCUMENT_NUMBER.match(number):
        raise ValidationError("A document number has 5 to 20 letters and digits.", code="invalid_document_number")
    return Identity(id_type, number, None)


def validate_identity(id_type: str, id_number: str, date_of_birth: dt.date | None) -> Identity:
    """Check a member's ID document and return it with its true type, normalised number and
    birth date.

    For an SA ID the birth date comes from the number itself; a date of birth typed as well
    must agree with it. Passports and licences need the date of birth typed in.
    """
    document = identify_document(id_type, id_number)
    if document.date_of_birth is not None:
        if date_of_birth and date_of_birth != document.date_of_birth:
            raise ValidationError(
                f"The date of birth {date_of_birth:%Y-%m-%d} does not match the ID number, "
                f"which gives {document.date_of_birth:%Y-%m-%d}.",
                code="birth_date_mismatch",
            )
        return document
    if date_of_birth is None:
        raise ValidationError("The date of birth is required for a passport or driving licence.", code="no_birth_date")
    return Identity(document.id_type, document.number, date_of_birth)


def age_on(date_of_birth: dt.date, day: dt.date) -> int:
    return day.year - date_of_birth.year - ((day.month, day.day) < (date_of_birth.month, date_of_birth.day))
