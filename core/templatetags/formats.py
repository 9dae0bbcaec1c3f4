"""The product's one way of writing moments, dates, money and ID numbers (SCREENS.md rule 4).

    {% load formats %}
    {{ draw.scheduled_at|moment }}   -> Mon 30 Nov 2026 07:00  (Johannesburg, 24-hour)
    {{ pick.picked_at|moment:"seconds" }} -> Mon 30 Nov 2026 07:00:05
    {{ draw.scheduled_at|day }}      -> 30 Nov 2026
    {{ list.min_spend_cents|rand }}  -> R 5,000.00             (int = cents, Decimal = rand)
    {{ member.id_number|masked_id }} -> *********0087

Empty values (None, "") come out as an empty string so a template can add its own "—".
"""

import datetime as dt
from decimal import Decimal, InvalidOperation

from django import template
from django.utils import timezone

from core import formats, swipe

register = template.Library()


@register.filter
def moment(value, precision: str = "") -> str:
    """A datetime in Johannesburg time, 24-hour; a plain date is written as a date alone.
    `|moment:"seconds"` adds the seconds, for records where the order within a minute matters."""
    if isinstance(value, dt.datetime):
        text = formats.local_datetime(value)
        return f"{text}:{timezone.localtime(value):%S}" if precision == "seconds" else text
    if isinstance(value, dt.date):
        return formats.local_date(value)
    return ""


@register.filter
def day(value) -> str:
    """The date alone; a datetime is first brought to Johannesburg time (23:30 UTC is the next day)."""
    if isinstance(value, dt.date):
        return formats.local_date(value)
    return ""


@register.filter
def rand(value) -> str:
    """Money: an int is whole cents (the database's unit), a Decimal or str is rand."""
    if value is None or value == "" or isinstance(value, bool):
        return ""
    if isinstance(value, int):
        return formats.rand_cents(value)
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        return ""
    return formats.rand_cents(int((amount * 100).to_integral_value()))


@register.filter
def masked_id(value) -> str:
    """An ID number with all but its last four characters hidden (lists and most screens)."""
    if not value:
        return ""
    return formats.mask_id_number(str(value))


@register.filter
def scrubbed(value) -> str:
    """A lookup field's text to echo back into the page: a card swipe as its card number only,
    never the raw stripe with the member's name (see core.swipe)."""
    return swipe.scrub(str(value)) if value else ""


@register.filter
def unswiped(value) -> str:
    """A stored text shown on a page with any card swipe in it as "(card swipe)" (an audit event
    written before swipes were masked, see core.swipe)."""
    return swipe.mask_swipes(str(value)) if value else ""
