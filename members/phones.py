"""Phone numbers as one form, +27… for South African numbers, whatever way the desk typed them.

    0821234567, 082 123 4567, (082) 123-4567, +27 82 123 4567, +27 (0)82 123 4567, 0027821234567
        -> +27821234567
    +44 20 7946 0958 (a visitor's number) -> +442079460958

Anything else (letters, too few or too many digits, a local number without its area code) is
refused with a message that shows what to type.
"""

import re

from django.core.exceptions import ValidationError

PHONE_HELP = "Type it as 082 123 4567 or +27 82 123 4567; a number from abroad starts with + and its country code."

# What people put between digits; "(0)" is the trunk zero some write after the country code.
_SEPARATORS = re.compile(r"[\s\-./()]")
_TRUNK_ZERO = re.compile(r"^\+27\s*\(0\)")


def normalise_phone(text: str) -> str:
    """The number in international form (+ and digits only); "" for an empty one.
    ValidationError when it is not a phone number."""
    raw = (text or "").strip()
    if not raw:
        return ""
    compact = _SEPARATORS.sub("", _TRUNK_ZERO.sub("+27", raw))
    if compact.startswith("00"):
        compact = "+" + compact[2:]
    digits = compact.removeprefix("+")
    if not digits.isascii() or not digits.isdigit():
        raise _refused(raw)
    if compact.startswith("+"):
        if digits.startswith("27"):
            return _south_african(digits[2:], raw)
        # E.164: a country code and at most 15 digits in all.
        if not 8 <= len(digits) <= 15 or digits[0] == "0":
            raise _refused(raw)
        return "+" + digits
    if digits.startswith("0"):
        return _south_african(digits[1:], raw)
    if digits.startswith("27") and len(digits) == 11:
        return _south_african(digits[2:], raw)
    raise _refused(raw)


def _south_african(national: str, raw: str) -> str:
    """Nine digits after the country code (a leading trunk zero typed after +27 is dropped)."""
    if len(national) == 10 and national.startswith("0"):
        national = national[1:]
    if len(national) != 9 or national.startswith("0"):
        raise _refused(raw)
    return "+27" + national


def _refused(raw: str) -> ValidationError:
    return ValidationError(f"“{raw}” is not a phone number. {PHONE_HELP}", code="invalid_phone")
