import datetime as dt

import pytest
from django import forms

from core.forms import BoundedDateField, BoundedDateTimeField, ClockField, ClockInput, DateClockInput, GuardedForm


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


# --- Times on the 24-hour clock (SCREENS.md, "One format") ------------------------------------


def _project_form_classes() -> list[type[forms.BaseForm]]:
    """Every form class defined in a *forms module of the project's own apps (not Django's)."""
    import importlib
    import inspect
    import pkgutil
    from pathlib import Path

    from django.apps import apps

    root = Path(__file__).resolve().parents[2]
    found = []
    for app in apps.get_app_configs():
        if Path(app.path).parent != root:  # an installed package (the venv may lie inside the checkout)
            continue
        for module in pkgutil.iter_modules([app.path]):
            if module.name.endswith("forms"):
                loaded = importlib.import_module(f"{app.name}.{module.name}")
                found += [
                    value
                    for value in vars(loaded).values()
                    if inspect.isclass(value)
                    and issubclass(value, forms.BaseForm)
                    and value.__module__ == loaded.__name__
                ]
    return found


@pytest.mark.django_db
def test_no_form_offers_the_browser_s_own_clock():
    """A native time or datetime-local input shows 08:00 AM in an en-US browser: every time is a
    ClockInput or DateClockInput instead, including the fields a form adds when it is made."""
    from draws.forms import DrawMoveForm, ScheduleDrawsForm
    from promotions.forms import EarningRuleForm, SeriesForm
    from promotions.rules import WINDOWS_MAX

    classes = _project_form_classes()
    assert {DrawMoveForm, ScheduleDrawsForm, SeriesForm, EarningRuleForm} <= set(classes)
    native = [
        f"{form_class.__name__}.{name}"
        for form_class in classes
        for name, field in form_class.base_fields.items()
        if getattr(field.widget, "input_type", "") in ("time", "datetime-local")
    ]
    assert native == []
    typed = {}
    for form_class in (DrawMoveForm, ScheduleDrawsForm, SeriesForm, EarningRuleForm):
        form = form_class()
        html = str(form)
        assert 'type="time"' not in html and 'type="datetime-local"' not in html
        typed[form_class.__name__] = sorted(
            name for name, field in form.fields.items() if isinstance(field.widget, ClockInput | DateClockInput)
        )
    assert typed == {
        "DrawMoveForm": ["scheduled_at"],
        "ScheduleDrawsForm": ["time"],
        "SeriesForm": sorted(["proxies_open", *(f"window{row}_open" for row in range(1, WINDOWS_MAX + 1))]),
        "EarningRuleForm": ["fixed_end", "fixed_start", "period_start_time"],
    }


def test_a_time_shows_and_reads_on_the_24_hour_clock():
    assert 'value="13:05"' in ClockInput().render("t", dt.time(13, 5))
    assert 'value="2026-12-05 21:00"' in DateClockInput().render("m", dt.datetime(2026, 12, 5, 21, 0))

    class ClockForm(forms.Form):
        at = ClockField()
        moment = BoundedDateTimeField()

    typed = ClockForm({"at": "21:00", "moment": "2026-12-05 21:00"})
    assert typed.is_valid(), typed.errors
    assert typed.cleaned_data["at"] == dt.time(21, 0)
    assert typed.cleaned_data["moment"].replace(tzinfo=None) == dt.datetime(2026, 12, 5, 21, 0)
    assert ClockForm({"at": "21:00", "moment": "2026-12-05T21:00"}).is_valid()  # an ISO "T", as before
    twelve_hour = ClockForm({"at": "9:00 PM", "moment": "2026-12-05 9:00 PM"})
    assert set(twelve_hour.errors) == {"at", "moment"}
    # In words that say how to type it, the picker being gone.
    assert twelve_hour.errors["at"] == ["Enter a valid time. Type it as HH:MM on the 24-hour clock, e.g. 13:00."]
    assert "YYYY-MM-DD HH:MM on the 24-hour clock" in twelve_hour.errors["moment"][0]
    # A typed moment has no calendar range to show; the date's bounds are still enforced.
    assert "min" not in ClockForm().fields["moment"].widget.attrs
    assert "moment" in ClockForm({"at": "21:00", "moment": "2101-01-01 00:00"}).errors
