"""The desk's confirmation before a member is given their own record (POPIA s23)."""

from django import forms

from core.forms import SwipeGuard


class MemberRecordForm(SwipeGuard, forms.Form):
    card_fields = ("identified_by",)  # a swipe here becomes its card number, never kept
    identified_by = forms.CharField(
        label="The member's card (swipe it) or the number on the ID document they show",
        max_length=200,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off", "data-swipe": True}),
        error_messages={"required": "Swipe the member's card or type the number on their ID document."},
    )
    in_person = forms.BooleanField(
        label="The member is here in person and I have seen their ID document",
        error_messages={"required": "Confirm that the member is here and that you have seen their ID document."},
    )
