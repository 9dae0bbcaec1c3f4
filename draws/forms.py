from django import forms

from core.forms import BoundedDateTimeField
from members.selectors import normalise_lookup

LOCAL_DATETIME = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")


class DrawListFilter(forms.Form):
    WHEN = [("upcoming", "Upcoming"), ("open", "Tickets open now"), ("past", "Past"), ("all", "All")]

    when = forms.ChoiceField(choices=WHEN, required=False)

    def choice(self) -> str:
        return (self.is_valid() and self.cleaned_data["when"]) or "upcoming"


class DrawMoveForm(forms.Form):
    scheduled_at = BoundedDateTimeField(
        label="New date and time",
        widget=LOCAL_DATETIME,
        help_text="Johannesburg time. The ticket, proxy and decline windows are laid anew from the series.",
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="Kept on the draw and shown to the auditor."
    )


class DrawCancelForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="Kept on the draw and shown to the auditor."
    )


class CardForm(forms.Form):
    card = forms.CharField(
        label="Swipe the member's card, or type the card number",
        max_length=200,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off", "placeholder": "Swipe or type…"}),
    )

    def clean_card(self) -> str:
        # A magnetic-stripe reader types ";1234567890?"; keep only the card number.
        card = normalise_lookup(self.cleaned_data["card"])
        if not card:
            raise forms.ValidationError("Swipe the card or type its number.")
        return card
