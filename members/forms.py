import datetime as dt

from django import forms
from django.utils import timezone

from core.forms import BoundedDateField, GuardedForm
from members.identity import IdType
from members.models import ExclusionKind, ImportKind, Property

DATE = forms.DateInput(attrs={"type": "date"})


class LookupForm(GuardedForm):
    q = forms.CharField(
        label="Swipe card, or type a card number, ID number or name",
        max_length=200,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off", "placeholder": "Swipe or type…"}),
    )


class ExclusionSearchForm(GuardedForm):
    q = forms.CharField(required=False, max_length=200, label="ID number or name")


class SignUpForm(GuardedForm):
    first_name = forms.CharField(max_length=60)
    last_name = forms.CharField(max_length=60)
    id_type = forms.ChoiceField(choices=IdType.choices, label="ID document")
    id_number = forms.CharField(max_length=20, label="ID / document number")
    date_of_birth = BoundedDateField(
        required=False, widget=DATE, help_text="Read from an SA ID number; required for a passport or licence."
    )
    phone = forms.RegexField(regex=r"^\+?[0-9 ]{7,20}$", required=False, max_length=20)
    email = forms.EmailField(required=False)
    home_property = forms.ModelChoiceField(queryset=Property.objects.all())
    app_registered_on = BoundedDateField(required=False, widget=DATE, label="Registered on the app on")


class ExclusionForm(GuardedForm):
    id_type = forms.ChoiceField(choices=IdType.choices, label="ID document")
    id_number = forms.CharField(max_length=20, label="ID / document number")
    full_name = forms.CharField(max_length=121)
    kind = forms.ChoiceField(choices=ExclusionKind.choices)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    starts_on = BoundedDateField(widget=DATE, initial=timezone.localdate)
    ends_on = BoundedDateField(
        required=False, widget=DATE, label="Last day", help_text="In force to the end of this day. Empty: no end."
    )

    def clean(self):
        data = super().clean()
        if data.get("starts_on") and data.get("ends_on") and data["ends_on"] < data["starts_on"]:
            self.add_error("ends_on", "The last day cannot be before the first.")
        return data

    @staticmethod
    def start_of(day: dt.date | None) -> dt.datetime | None:
        return timezone.make_aware(dt.datetime.combine(day, dt.time.min)) if day else None

    @classmethod
    def end_of(cls, day: dt.date | None) -> dt.datetime | None:
        return cls.start_of(day + dt.timedelta(days=1)) if day else None


class ImportForm(forms.Form):
    kind = forms.ChoiceField(choices=ImportKind.choices)
    file = forms.FileField(help_text="CSV, UTF-8, with the header line shown below.")
