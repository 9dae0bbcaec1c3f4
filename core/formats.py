"""The one way a moment is written for people (SCREENS.md rule 4): Johannesburg time, 24-hour,
"Mon 30 Nov 2026 07:00". Messages built in Python use this; templates use the same pattern."""

import datetime as dt

from django.utils import timezone

DATETIME_FORMAT = "%a %d %b %Y %H:%M"


def local_datetime(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime(DATETIME_FORMAT)


def spreadsheet_safe(value):
    """A CSV cell a spreadsheet shows as text: a value starting with = + - @ (or a tab or carriage
    return) would be run as a formula when the file is opened (CSV injection), so it gets a
    leading apostrophe. Numbers and other values pass unchanged."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
