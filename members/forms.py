import datetime as dt
import re

from django import forms
from django.utils import timezone

from core.forms import DATE_INPUT, BoundedDateField, GuardedForm
from members.identity import IdType
from members.models import ExclusionKind, ImportKind, ImportStatus, Property, Tier
from members.phones import normalise_phone


class TextDateField(BoundedDateField):
    """A date typed as text in one field (one tab stop, unlike the browser's date picker with
    its day, month and year parts): 15/06/1985, 15 Jun 1985, 15 June 1985 or 1985-06-15."""

    input_formats = ["%Y-%m-%d", "%d/%m/%Y", "%d-%m-%Y", "%d.%m.%Y", "%d %b %Y", "%d %B %Y", "%d-%b-%Y"]
    default_error_messages = {"invalid": "Type the date as 15/06/1985, 15 Jun 1985 or 1985-06-15."}
    widget = forms.DateInput(format="%d %b %Y", attrs={"placeholder": "e.g. 15/06/1985", "autocomplete": "off"})

    def to_python(self, value):
        if isinstance(value, str):
            value = re.sub(r"\s+", " ", value.strip())
        return super().to_python(value)

    def widget_attrs(self, widget):
        # min and max belong to the date picker: a text field says the range in its message.
        return forms.DateField.widget_attrs(self, widget)


class PhoneField(forms.CharField):
    """A phone number however it is typed, cleaned to +27… (members.phones)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 30)
        kwargs.setdefault("help_text", "e.g. 082 123 4567 or +27 82 123 4567; saved as +27821234567.")
        super().__init__(**kwargs)
        self.widget.attrs.setdefault("inputmode", "tel")
        self.widget.attrs.setdefault("autocomplete", "off")

    def clean(self, value):
        return normalise_phone(super().clean(value))


class LookupForm(GuardedForm):
    card_fields = ("q",)
    q = forms.CharField(
        label="Swipe card, or type a card number, ID number or name",
        max_length=200,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off", "placeholder": "Swipe or type…"}),
    )


class FilterForm(GuardedForm):
    """A list's filters, in one row of small Bootstrap controls."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            kind = "form-select" if isinstance(field.widget, forms.Select) else "form-control"
            field.widget.attrs.setdefault("class", f"{kind} {kind}-sm")


class ExclusionSearchForm(FilterForm):
    """The exclusions list's filters: a search, which ones (in force by default) and the kind."""

    STATUSES = [("in_force", "In force"), ("ended", "Ended"), ("future", "Starting later"), ("all", "All")]

    q = forms.CharField(required=False, max_length=200, label="ID number or name")
    status = forms.ChoiceField(choices=STATUSES, required=False, widget=forms.HiddenInput)  # the tabs above
    kind = forms.ChoiceField(choices=[("", "Every kind"), *ExclusionKind.choices], required=False, label="Kind")


class ImportFilterForm(FilterForm):
    kind = forms.ChoiceField(choices=[("", "Every kind"), *ImportKind.choices], required=False, label="Kind")
    status = forms.ChoiceField(
        choices=[("", "Every status"), *ImportStatus.choices], required=False, widget=forms.HiddenInput
    )  # the tabs above


class MemberFilterForm(FilterForm):
    """The members list's filters."""

    card_fields = ("q",)
    q = forms.CharField(
        required=False,
        max_length=200,
        label="Card, ID number or name",
        widget=forms.TextInput(attrs={"type": "search"}),
    )
    home_property = forms.ModelChoiceField(
        queryset=Property.objects.all(), required=False, empty_label="Every property", label="Home property"
    )
    tier = forms.ModelChoiceField(queryset=Tier.objects.all(), required=False, empty_label="Every tier", label="Tier")
    app = forms.ChoiceField(
        choices=[("", "App or not"), ("yes", "On the app"), ("no", "Not on the app")], required=False, label="App"
    )


class SignUpForm(GuardedForm):
    first_name = forms.CharField(max_length=60, widget=forms.TextInput(attrs={"autofocus": True}))
    last_name = forms.CharField(max_length=60)
    id_type = forms.ChoiceField(choices=IdType.choices, label="ID document")
    id_number = forms.CharField(max_length=20, label="ID / document number")
    date_of_birth = TextDateField(
        required=False, help_text="Read from an SA ID number; required for a passport or licence."
    )
    phone = PhoneField(required=False)
    email = forms.EmailField(required=False, label="E-mail")
    home_property = forms.ModelChoiceField(queryset=Property.objects.all(), empty_label="Pick the casino")
    app_registered_on = TextDateField(required=False, label="Registered on the app on")


class MemberEditForm(GuardedForm):
    """A manager's correction of a member's record: every field a sign-up sets, and more."""

    first_name = forms.CharField(max_length=60, widget=forms.TextInput(attrs={"autofocus": True}))
    last_name = forms.CharField(max_length=60)
    id_type = forms.ChoiceField(choices=IdType.choices, label="ID document")
    id_number = forms.CharField(max_length=20, label="ID / document number")
    date_of_birth = TextDateField(
        required=False, help_text="Read from an SA ID number; required for a passport or licence."
    )
    phone = PhoneField(required=False)
    email = forms.EmailField(required=False, label="E-mail")
    tier = forms.ModelChoiceField(queryset=Tier.objects.all(), empty_label=None)
    home_property = forms.ModelChoiceField(queryset=Property.objects.all(), empty_label=None)
    app_registered_on = TextDateField(
        required=False, label="Registered on the app on", help_text="Empty: not registered."
    )
    playtsogo_active_since = TextDateField(
        required=False,
        label="Active on playTSOGO since",
        help_text="Registered and actively playing on playTSOGO online betting. Empty: not active.",
    )

    def changes(self) -> dict:
        """The fields the person changed, for members.services.member_update."""
        return {name: self.cleaned_data[name] for name in self.changed_data}


class MemberContactForm(GuardedForm):
    """What the desk may correct itself: how to reach the member."""

    phone = PhoneField(required=False, widget=forms.TextInput(attrs={"autofocus": True}))
    email = forms.EmailField(required=False, label="E-mail")

    def changes(self) -> dict:
        return {name: self.cleaned_data[name] for name in self.changed_data}


def member_initial(member) -> dict:
    """The edit forms' starting values: the record as it stands."""
    return {
        "first_name": member.first_name,
        "last_name": member.last_name,
        "id_type": member.id_type,
        "id_number": member.id_number,
        "date_of_birth": member.date_of_birth,
        "phone": member.phone,
        "email": member.email,
        "tier": member.tier_id,
        "home_property": member.home_property_id,
        "app_registered_on": member.app_registered_on,
        "playtsogo_active_since": member.playtsogo_active_since,
    }


class ExclusionForm(GuardedForm):
    id_type = forms.ChoiceField(choices=IdType.choices, label="ID document")
    id_number = forms.CharField(max_length=20, label="ID / document number")
    full_name = forms.CharField(max_length=121)
    kind = forms.ChoiceField(choices=ExclusionKind.choices)
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    starts_on = BoundedDateField(widget=DATE_INPUT, initial=timezone.localdate)
    ends_on = BoundedDateField(
        required=False, widget=DATE_INPUT, label="Last day", help_text="In force to the end of this day. Empty: no end."
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


class ImportForm(GuardedForm):
    kind = forms.ChoiceField(choices=ImportKind.choices)
    file = forms.FileField(help_text="CSV, UTF-8, with the header line shown below.")
