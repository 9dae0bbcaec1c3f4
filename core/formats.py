"""The one way a moment is written for people (SCREENS.md rule 4): Johannesburg time, 24-hour,
"Mon 30 Nov 2026 07:00". Messages built in Python use this; templates use the same pattern."""

import datetime as dt

from django.utils import timezone

DATETIME_FORMAT = "%a %d %b %Y %H:%M"
DATE_FORMAT = "%d %b %Y"


def local_datetime(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime(DATETIME_FORMAT)


def local_date(value: dt.date) -> str:
    """A date alone, "30 Nov 2026"; a datetime is brought to Johannesburg time first."""
    if isinstance(value, dt.datetime):
        value = timezone.localtime(value).date()
    return value.strftime(DATE_FORMAT)


def rand_cents(cents: int) -> str:
    """Money from whole cents: 500000 -> "R 5,000.00", -150 -> "-R 1.50"."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}R {cents // 100:,}.{cents % 100:02d}"


def mask_id_number(id_number: str) -> str:
    """All but the last four characters hidden: "8001015009087" -> "*********9087"."""
    return "*" * max(len(id_number) - 4, 0) + id_number[-4:]


def spreadsheet_safe(value):
    """A CSV cell a spreadsheet shows as text: a value starting with = + - @ (or a tab or carriage
    return) would be run as a formula when the file is opened (CSV injection), so it gets a
    leading apostrophe. Numbers and other values pass unchanged."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
