"""The filters of the letters' reports: promotion, property, day. A user with a staff profile
chooses among their own properties only (the reports' property boundary)."""

import datetime as dt

from django import forms
from django.utils import timezone

from core.forms import SwipeGuard
from members.models import Property
from promotions.models import Promotion

SELECT = {"class": "form-select form-select-sm"}


def _properties(property_ids: list[int] | None):
    properties = Property.objects.order_by("name")
    return properties if property_ids is None else properties.filter(pk__in=property_ids)


class LetterReportFilter(SwipeGuard, forms.Form):
    promotion = forms.ModelChoiceField(
        queryset=Promotion.objects.order_by("-starts_on", "name"),
        required=False,
        empty_label="Every promotion",
        widget=forms.Select(attrs=SELECT),
    )
    property = forms.ModelChoiceField(
        queryset=Property.objects.none(),
        to_field_name="code",
        required=False,
        empty_label="Every property",
        widget=forms.Select(attrs=SELECT),
    )

    def __init__(self, *args, property_ids: list[int] | None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["property"].queryset = _properties(property_ids)


class PayoutSummaryFilter(SwipeGuard, forms.Form):
    day = forms.DateField(
        required=False, widget=forms.DateInput(attrs={"type": "date", "class": "form-control form-control-sm"})
    )
    property = forms.ModelChoiceField(
        queryset=Property.objects.none(),
        to_field_name="code",
        required=False,
        empty_label="Every property",
        widget=forms.Select(attrs=SELECT),
    )

    def __init__(self, *args, property_ids: list[int] | None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["property"].queryset = _properties(property_ids)

    def chosen_day(self) -> dt.date:
        """The day asked for; today (Johannesburg) when none or not a date."""
        day = self.cleaned_data.get("day") if self.is_valid() else None
        return day or timezone.localdate()
