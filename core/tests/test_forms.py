import datetime as dt

import pytest
from django import forms

from core.forms import BoundedDateField, BoundedDateTimeField, GuardedForm


class NameForm(GuardedForm):
    name = forms.CharField()
    email = forms.EmailField(required=False)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Re\x00f", "invisible control character (NUL)"),
        ("Zo\ud800e", "broken character"),  # a lone surrogate, as JSON or a Python caller can give it
        ("Zo\ufffde", "broken character"),  # the same, after Django decoded it from a request
    ],
)
def test_a_text_field_refuses_nul_and_broken_characters_in_words(value, message):
    form = NameForm({"name": value})
    assert not form.is_valid()
    [error] = form.errors["name"]
    assert message in error


def test_a_nul_byte_gives_one_message_not_django_s_as_well():
    form = NameForm({"name": "a", "email": "a\x00@example.com"})
    assert not form.is_valid()
    assert any("NUL" in error for error in form.errors["email"])
    assert not any("Null characters are not allowed" in error for error in form.errors["email"])


def test_ordinary_text_with_accents_is_accepted():
    form = NameForm({"name": "Zoë Nkosi-Müller"})
    assert form.is_valid(), form.errors


class Dates(forms.Form):
    day = BoundedDateField()
    moment = BoundedDateTimeField(required=False)


@pytest.mark.parametrize("day", ["0001-01-01", "1899-12-31", "2101-01-01", "9999-12-31"])
def test_a_date_outside_1900_to_2100_is_refused(day):
    form = Dates({"day": day})
    assert form.errors["day"] == ["Enter a date between 1900 and 2100."]


@pytest.mark.parametrize("day", ["1900-01-01", "2100-12-31"])
def test_the_first_and_last_days_of_the_range_are_accepted(day):
    form = Dates({"day": day})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["day"] == dt.date.fromisoformat(day)


@pytest.mark.parametrize("moment", ["0001-01-01T00:30", "9999-12-31T23:59"])
def test_a_date_and_time_outside_the_range_is_refused(moment):
    form = Dates({"day": "2027-01-01", "moment": moment})
    assert form.errors["moment"] == ["Enter a date between 1900 and 2100."]


def test_the_date_picker_is_told_the_range():
    html = str(Dates()["day"])
    assert 'min="1900-01-01"' in html and 'max="2100-12-31"' in html
