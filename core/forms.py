import datetime as dt
from collections.abc import Callable
from typing import TypeVar

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.http import HttpRequest

from core.errors import DomainError
from core.swipe import card_from_swipe, looks_like_swipe

T = TypeVar("T")

# Every date a desk or a manager types falls in this range: year 1 or 9999 is a typing slip
# that breaks the pages later (no room to convert to UTC, or to add a day).
DATE_MIN = dt.date(1900, 1, 1)
DATE_MAX = dt.date(2100, 12, 31)
DATE_OUT_OF_RANGE = "Enter a date between 1900 and 2100."

# A date keeps the browser's picker and its calendar; the picker shows the date in the browser's
# own order (2026/12/01 in en-ZA), and the form reads it as YYYY-MM-DD whatever that order.
DATE_INPUT = forms.DateInput(attrs={"type": "date"})

# Times are 24-hour everywhere (SCREENS.md, "One format"). A native time or datetime-local input
# shows the browser's own clock instead (08:00 AM in an en-US browser), so a time is typed as text
# in the one format, as a ticket window's close and the schedule's list of dates already are.
CLOCK_PATTERN = "([01][0-9]|2[0-3]):[0-5][0-9]"


class ClockInput(forms.TimeInput):
    """A time of day, typed HH:MM on the 24-hour clock."""

    input_type = "text"

    def __init__(self, attrs=None):
        clock = {"placeholder": "HH:MM", "pattern": CLOCK_PATTERN, "maxlength": 5, "title": "24-hour, e.g. 13:00"}
        super().__init__({**clock, **(attrs or {})}, format="%H:%M")


class DateClockInput(forms.DateTimeInput):
    """A date and time, typed YYYY-MM-DD HH:MM on the 24-hour clock (an ISO "T" is taken too)."""

    input_type = "text"

    def __init__(self, attrs=None):
        clock = {
            "placeholder": "YYYY-MM-DD HH:MM",
            "pattern": f"[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}[ T]{CLOCK_PATTERN}",
            "maxlength": 16,
            "title": "Date and 24-hour time, e.g. 2026-12-05 13:00",
        }
        super().__init__({**clock, **(attrs or {})}, format="%Y-%m-%d %H:%M")


class ClockField(forms.TimeField):
    """A time of day in a ClockInput, refused in words that say how to type it."""

    widget = ClockInput
    default_error_messages = {"invalid": "Enter a valid time. Type it as HH:MM on the 24-hour clock, e.g. 13:00."}


def refuse_unsafe_text(value: str) -> None:
    """A NUL byte cannot be stored (PostgreSQL refuses it) and a lone surrogate cannot be
    encoded to show or export: refuse both as a form error, never a server error. Over HTTP a
    broken character arrives as U+FFFD (Django decodes with errors="replace"): refused too, so a
    name is never stored half-garbled."""
    if "\x00" in value:
        raise ValidationError(
            "This contains an invisible control character (NUL): clear the field and type it again.",
            code="null_character",
        )
    if any("\ud800" <= char <= "\udfff" or char == "\ufffd" for char in value):
        raise ValidationError(
            "This contains a broken character: clear the field and type it again.",
            code="broken_character",
        )


def safe_text(value: str) -> bool:
    """True when refuse_unsafe_text() would accept the value: for query parameters read without a form."""
    try:
        refuse_unsafe_text(value)
    except ValidationError:
        return False
    return True


SWIPE_REFUSED = "That was a card swipe: nothing of it was kept. Type what this field asks for."
SWIPE_MISREAD = "The card could not be read. Swipe it again, or type the card number."


class SwipeGuard:
    """A card swipe typed into a form (a keyboard-wedge reader types the stripe, with the member's
    name, wherever the cursor is) is recognised before the form is cleaned (core.swipe). In a field
    where a card belongs (`card_fields`: a lookup, a search, the card of an activation or a proxy)
    it becomes its card number; anywhere else it is refused with "That was a card swipe" (or the
    field's words in `swipe_messages`) and taken out of the form: never cleaned, stored, audited or
    shown again in the re-rendered form. Password fields are left alone (any character may be in
    a password, and it is never shown or kept in clear)."""

    card_fields: tuple[str, ...] = ()
    swipe_messages: dict[str, str] = {}

    def full_clean(self):
        refused = take_swipes(self)
        super().full_clean()
        refuse_swipes(self, refused)


def take_swipes(form: forms.BaseForm) -> dict[str, str]:
    """Before a bound form is cleaned: put the card number in place of a swipe in a card field,
    and take a swipe out of any other field (or a misread one out of a card field). Returns
    {field name: message} of the fields refused, for refuse_swipes() once the form is cleaned."""
    if not form.is_bound:
        return {}
    card_fields = getattr(form, "card_fields", ())
    messages = getattr(form, "swipe_messages", {})
    data = None
    refused = {}
    for name, field in form.fields.items():
        if isinstance(field.widget, forms.PasswordInput) or field.disabled:
            continue
        raw = form[name].data
        values = raw if isinstance(raw, list | tuple) else [raw]
        if not any(isinstance(value, str) and looks_like_swipe(value) for value in values):
            continue
        if data is None:
            data = form.data.copy()  # a QueryDict's copy is mutable
        names = [form.add_prefix(name)]
        if isinstance(field.widget, forms.MultiWidget):
            names += [names[0] + suffix for suffix in field.widget.widgets_names]
        for key in names:
            data.pop(key, None)
        card = card_from_swipe(raw) if name in card_fields and isinstance(raw, str) else None
        if card:
            data[names[0]] = card
        else:
            refused[name] = SWIPE_MISREAD if name in card_fields else messages.get(name, SWIPE_REFUSED)
    if data is not None:
        form.data = data
    return refused


def refuse_swipes(form: forms.BaseForm, refused: dict[str, str]) -> None:
    """Once the form is cleaned: each refused field shows only the swipe's message (not "This
    field is required", which its emptied value gave)."""
    for name, message in refused.items():
        form.errors.pop(name, None)
        form.add_error(name, ValidationError(message, code="card_swipe"))


class GuardedForm(SwipeGuard, forms.Form):
    """A form whose every text field refuses NUL bytes and lone surrogates with a readable message,
    and card swipes (SwipeGuard)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        guard_text_fields(self)


class GuardedModelForm(SwipeGuard, forms.ModelForm):
    """A ModelForm whose text fields are guarded from the start (see GuardedForm): views that
    validate it before submit() must not miss the guard.

    Django renders a hidden "initial-" copy of each field whose model default is a callable
    (promotions.models.eight_am, for its system check), for has_changed() to compare with. These
    forms never ask it, so each field keeps its one input."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        guard_text_fields(self)
        for field in self.fields.values():
            field.show_hidden_initial = False


USERNAME_SWIPED = "That was a card swipe: type your username."


class LoginForm(SwipeGuard, AuthenticationForm):
    """The sign-in page's form. After the idle logout the cursor is in the username field, so a
    swipe lands there: it is refused before the password is checked, so it never reaches the
    failed-login audit event, the login throttle's tables or the re-rendered page."""

    swipe_messages = {"username": USERNAME_SWIPED}


class AdminLoginForm(SwipeGuard, AdminAuthenticationForm):
    """The admin's sign-in form, with the same refusal of a swipe as LoginForm."""

    swipe_messages = {"username": USERNAME_SWIPED}


def guard_text_fields(form: forms.BaseForm) -> None:
    """Put refuse_unsafe_text() first on every text field of `form` (for ModelForms too), in place
    of Django's own NUL check, so the clerk reads one message."""
    for field in form.fields.values():
        if isinstance(field, forms.CharField):
            field.validators = [
                refuse_unsafe_text,
                *(v for v in field.validators if not isinstance(v, ProhibitNullCharactersValidator)),
            ]


def _check_bounds(day: dt.date) -> None:
    if not DATE_MIN <= day <= DATE_MAX:
        raise ValidationError(DATE_OUT_OF_RANGE, code="date_out_of_range")


class BoundedDateField(forms.DateField):
    """A date between DATE_MIN and DATE_MAX; the browser's date picker is told the same range."""

    def to_python(self, value):
        day = super().to_python(value)
        if day is not None:
            _check_bounds(day)
        return day

    def widget_attrs(self, widget):
        return {**super().widget_attrs(widget), "min": DATE_MIN.isoformat(), "max": DATE_MAX.isoformat()}


class BoundedDateTimeField(forms.DateTimeField):
    """A date and time whose date is between DATE_MIN and DATE_MAX, typed in a DateClockInput
    (which has no calendar to tell the range)."""

    widget = DateClockInput
    default_error_messages = {
        "invalid": "Enter a valid date and time. Type it as YYYY-MM-DD HH:MM on the 24-hour clock, "
        "e.g. 2026-12-05 13:00."
    }

    def to_python(self, value):
        moment = super().to_python(value)
        if moment is not None:
            _check_bounds(moment.date())
        return moment


def submit(request: HttpRequest, form: forms.Form, action: Callable[[], T]) -> T | None:
    """The one shape of every form page: on a valid POST run the service call and return its
    result; a rule's refusal (DomainError) is shown on the form and None returned. Every text
    field refuses NUL bytes and broken characters (guard_text_fields), and card swipes
    (take_swipes), whatever form it is."""
    if request.method != "POST":
        return None
    guard_text_fields(form)
    refused = {} if isinstance(form, SwipeGuard) else take_swipes(form)
    valid = form.is_valid()
    refuse_swipes(form, refused)
    if not valid or refused:
        return None
    try:
        return action()
    except DomainError as error:
        form.add_error(None, error.message)
        return None
