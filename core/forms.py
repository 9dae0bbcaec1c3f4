import datetime as dt
from collections.abc import Callable
from typing import TypeVar

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.http import HttpRequest

from core.errors import DomainError

T = TypeVar("T")

# Every date a desk or a manager types falls in this range: year 1 or 9999 is a typing slip
# that breaks the pages later (no room to convert to UTC, or to add a day).
DATE_MIN = dt.date(1900, 1, 1)
DATE_MAX = dt.date(2100, 12, 31)
DATE_OUT_OF_RANGE = "Enter a date between 1900 and 2100."


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


class GuardedForm(forms.Form):
    """A form whose every text field refuses NUL bytes and lone surrogates with a readable message."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        guard_text_fields(self)


class GuardedModelForm(forms.ModelForm):
    """A ModelForm whose text fields are guarded from the start (see GuardedForm): views that
    validate it before submit() must not miss the guard."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        guard_text_fields(self)


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
    """A date and time whose date is between DATE_MIN and DATE_MAX."""

    def to_python(self, value):
        moment = super().to_python(value)
        if moment is not None:
            _check_bounds(moment.date())
        return moment

    def widget_attrs(self, widget):
        return {**super().widget_attrs(widget), "min": f"{DATE_MIN}T00:00", "max": f"{DATE_MAX}T23:59"}


def submit(request: HttpRequest, form: forms.Form, action: Callable[[], T]) -> T | None:
    """The one shape of every form page: on a valid POST run the service call and return its
    result; a rule's refusal (DomainError) is shown on the form and None returned. Every text
    field refuses NUL bytes and broken characters (guard_text_fields), whatever form it is."""
    if request.method != "POST":
        return None
    guard_text_fields(form)
    if not form.is_valid():
        return None
    try:
        return action()
    except DomainError as error:
        form.add_error(None, error.message)
        return None
