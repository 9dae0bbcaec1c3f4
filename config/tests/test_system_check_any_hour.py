"""Django's system check must be as quiet at one moment of the day as at any other.

Its fields.W161 takes a date or time field's fixed default for a mistaken "now" when the check
runs within ten seconds of that value (UTC): a fixed 08h00 default made every manage.py command,
and with it make test's `makemigrations --check`, print a warning between 07:59:50 and 08:00:10
UTC (CI on 93c42fa failed so). Such defaults are callables (promotions.models.eight_am).
"""

import datetime as dt

import pytest
import time_machine
from django.apps import apps
from django.core import checks
from django.db import models


def test_no_date_or_time_field_has_a_fixed_default():
    fixed = [
        f"{model._meta.label}.{field.name}"
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if isinstance(field, models.DateField | models.TimeField)
        and field.has_default()
        and not callable(field.default)
    ]
    assert fixed == [], f"use a callable default (see promotions.models.eight_am): {fixed}"


@pytest.mark.parametrize("second", [-10, 0, 10])
def test_the_check_says_nothing_at_eight_utc(second):
    at = dt.datetime(2026, 12, 3, 8, 0, tzinfo=dt.UTC) + dt.timedelta(seconds=second)
    with time_machine.travel(at, tick=False):
        messages = checks.run_checks()
    assert [m.id for m in messages if m.id == "fields.W161"] == []
