"""Forms of a draw's run: Start, the stage's outcomes, keyed serials, ending short."""

from django import forms

from core.forms import GuardedForm
from draws.engine import MANAGER_OUTCOMES, PRESENT_NEEDS_ID_TYPE, SERIAL_SWIPED
from draws.models import PickOutcome
from members.identity import IdType


class StartForm(GuardedForm):
    witness_name = forms.CharField(
        max_length=120,
        required=False,
        label="Witness",
        widget=forms.TextInput(attrs={"class": "form-control"}),
        help_text="The independent witness's full name, kept on the draw record and the certificate.",
    )
    early_start_reason = forms.CharField(
        max_length=500,
        required=False,
        label="Why start before the draw time",
        widget=forms.TextInput(attrs={"class": "form-control"}),
        help_text="Needed to start before the draw time; kept on the draw record and the certificate.",
    )


class WitnessForm(GuardedForm):
    witness_name = forms.CharField(
        max_length=120, label="Witness", widget=forms.TextInput(attrs={"class": "form-control"})
    )


class OutcomeForm(GuardedForm):
    pick = forms.IntegerField(widget=forms.HiddenInput)
    outcome = forms.ChoiceField(choices=[(o.value, o.label) for o in MANAGER_OUTCOMES])
    reason = forms.CharField(max_length=500, required=False, help_text="Needed for a disqualification.")
    id_type_seen = forms.ChoiceField(choices=[("", "—"), *IdType.choices], required=False)
    receipt_seen = forms.BooleanField(required=False)
    stand_in_name = forms.CharField(max_length=121, required=False)

    def clean(self):
        data = super().clean()
        if data.get("outcome") == PickOutcome.PRESENT and not data.get("id_type_seen"):
            raise forms.ValidationError(PRESENT_NEEDS_ID_TYPE)
        return data


class SerialForm(GuardedForm):
    swipe_messages = {"serial": SERIAL_SWIPED}

    serial = forms.CharField(
        max_length=40,
        label="Serial of the ticket drawn",
        widget=forms.TextInput(
            attrs={"autofocus": True, "inputmode": "numeric", "autocomplete": "off", "class": "form-control"}
        ),
        help_text="Type or scan the number printed on the ticket, then Enter.",
    )


class EndShortForm(GuardedForm):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2, "class": "form-control"}),
        help_text="Why the draw ends before it has all its winners; kept on the record.",
    )
