from django import forms

from core.formats import local_datetime
from core.forms import GuardedForm
from members.forms import TextDateField
from members.identity import IdType
from members.models import Member
from members.selectors import member_lookup
from proxies.services import Nominee

CHECK = forms.CheckboxInput(attrs={"class": "form-check-input"})


def _draw_label(draw, opens, closes) -> str:
    # A generated draw name already carries its date and time.
    return f"{draw.name} · {draw.property.name} (open until {local_datetime(closes)})"


class DrawChoiceForm(GuardedForm):
    """The draws offered are only those the service would accept now (the view passes them);
    anything else posted is refused as an invalid choice."""

    draws = forms.TypedMultipleChoiceField(
        coerce=int,
        widget=forms.CheckboxSelectMultiple(attrs={"class": "form-check-input"}),
        error_messages={"required": "Tick at least one draw."},
    )

    def __init__(self, *args, draws=(), window=("proxies_open_at", "proxies_close_at"), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["draws"].choices = [
            (d.pk, _draw_label(d, getattr(d, window[0]), getattr(d, window[1]))) for d in draws
        ]
        if len(draws) == 1 and "draws" not in self.initial:
            self.initial["draws"] = [draws[0].pk]  # the only draw possible: ticked already


class NominateForm(DrawChoiceForm):
    card_fields = ("lookup",)
    lookup = forms.CharField(
        label="Proxy's card, if a member",
        required=False,
        max_length=200,
        help_text="Swipe the proxy's card, or type their card or ID number; or type their details below.",
    )
    nominee_name = forms.CharField(label="Proxy's full name", required=False, max_length=121)
    nominee_id_type = forms.ChoiceField(
        label="Proxy's ID type",
        required=False,
        choices=[("", "—"), *IdType.choices],
        initial=IdType.SA_ID,  # most proxies carry an SA ID; a passport is chosen when needed
        widget=forms.Select(attrs={"class": "form-select"}),
    )
    nominee_id_number = forms.CharField(label="Proxy's ID number", required=False, max_length=40)
    nominee_date_of_birth = TextDateField(
        label="Proxy's date of birth",
        required=False,
        help_text="Needed for a passport or driving licence: an SA ID number carries it.",
    )
    nominee_phone = forms.CharField(label="Proxy's phone", required=False, max_length=20)

    def clean(self):
        data = super().clean()
        data["nominee"] = None
        if self.errors:
            return data
        if data.get("lookup", "").strip():
            member = nominee_member(data["lookup"])
            if member is None:
                self.add_error("lookup", NO_SINGLE_MEMBER)
                return data
            data["nominee"] = Nominee(member.full_name, member.id_type, member.id_number, member.phone, member)
            return data
        missing = [
            label
            for field, label in (
                ("nominee_name", "full name"),
                ("nominee_id_type", "ID type"),
                ("nominee_id_number", "ID number"),
            )
            if not data.get(field, "").strip()
        ]
        if missing:
            raise forms.ValidationError(f"Swipe the proxy's card, or type their {', '.join(missing)}.")
        data["nominee"] = Nominee(
            data["nominee_name"],
            data["nominee_id_type"],
            data["nominee_id_number"],
            data.get("nominee_phone", ""),
            date_of_birth=data.get("nominee_date_of_birth"),
        )
        return data


NO_SINGLE_MEMBER = (
    "No single member matches: swipe the proxy's card, type their ID number, "
    "or clear this field and type their details."
)


def nominee_member(text: str) -> Member | None:
    """The one member a proxy's swipe, card or ID number finds, or None."""
    result = member_lookup(text)
    return result.members[0] if len(result.members) == 1 else None


class NomineeLookupForm(GuardedForm):
    """The proxy's card swiped on the nomination form, looked up without sending the form."""

    card_fields = ("lookup",)
    lookup = forms.CharField(max_length=200, error_messages={"required": "Swipe the proxy's card first."})


class SignForm(GuardedForm):
    """What the clerk confirms once the printed form is signed (proxies.drafts)."""

    participant_id_seen = forms.BooleanField(label="Participant's ID seen", required=False, widget=CHECK)
    nominee_id_seen = forms.BooleanField(label="Proxy's ID seen", required=False, widget=CHECK)
    form_signed = forms.BooleanField(label="The printed form is signed by both", required=False, widget=CHECK)


class DeclineForm(DrawChoiceForm):
    # No field for anyone else: the participant registers in person with their own card and ID.
    id_seen = forms.BooleanField(label="ID checked — the participant is here in person", required=False, widget=CHECK)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, window=("declines_open_at", "declines_close_at"), **kwargs)


class RevokeForm(GuardedForm):
    reason = forms.CharField(
        label="Reason", max_length=500, error_messages={"required": "Say why: the reason is kept."}
    )


class DeclineWithdrawForm(RevokeForm):
    """A decline is withdrawn in person: the member's own card is swiped at the desk (the swipe
    field sends only the card number; a raw stripe is cut down to it by SwipeGuard, never kept)."""

    card_fields = ("card",)
    card = forms.CharField(
        label="The participant's card",
        max_length=200,
        error_messages={"required": "The participant withdraws a decline in person: swipe their card first."},
    )

    def clean_card(self) -> str:
        return self.cleaned_data["card"].strip()
