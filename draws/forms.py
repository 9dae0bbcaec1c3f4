import datetime as dt

from django import forms
from django.utils import timezone

from core.forms import (
    DATE_INPUT,
    DATE_MAX,
    DATE_MIN,
    DATE_OUT_OF_RANGE,
    BoundedDateField,
    BoundedDateTimeField,
    ClockField,
    GuardedForm,
)
from draws.models import DrawStatus
from members.selectors import normalise_lookup

WEEKDAYS = [
    (i, name) for i, name in enumerate(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
]


ALL_PROPERTIES = "all"


class DrawListFilter(GuardedForm):
    """The draws list's filters. Without a property in the query the list starts at the user's
    own property (`default_property`, a code), or at all properties for a user without one."""

    WHEN = [("upcoming", "Upcoming"), ("open", "Tickets open now"), ("past", "Past"), ("all", "All")]

    when = forms.ChoiceField(choices=WHEN, required=False, widget=forms.HiddenInput)
    property = forms.ChoiceField(required=False)
    promotion = forms.TypedChoiceField(required=False, coerce=int, empty_value=None)
    status = forms.ChoiceField(required=False)
    date_from = BoundedDateField(required=False, label="From", widget=DATE_INPUT)
    date_to = BoundedDateField(required=False, label="To", widget=DATE_INPUT)

    def __init__(self, data, *, properties, promotions, default_property: str | None = None):
        data = data.copy()
        if not data.get("property"):
            data["property"] = default_property or ALL_PROPERTIES
        super().__init__(data)
        self.fields["property"].choices = [(ALL_PROPERTIES, "All properties"), *((p.code, p.name) for p in properties)]
        self.fields["promotion"].choices = [("", "All promotions"), *((p.pk, p.name) for p in promotions)]
        self.fields["status"].choices = [("", "Any status"), *DrawStatus.choices]
        for field in self.fields.values():
            if isinstance(field.widget, forms.Select):
                field.widget.attrs["class"] = "form-select form-select-sm"
            elif not field.widget.is_hidden:
                field.widget.attrs["class"] = "form-control form-control-sm"

    def clean(self):
        data = super().clean()
        if data.get("date_from") and data.get("date_to") and data["date_to"] < data["date_from"]:
            self.add_error("date_to", "The last day is before the first: swap the dates.")
        return data

    def preset(self) -> str:
        """The time preset; a date range alone means every draw in it, whatever the clock says."""
        data = self.cleaned_data
        return data.get("when") or ("all" if data.get("date_from") or data.get("date_to") else "upcoming")

    def count_statuses(self, counts: dict[str, int]) -> None:
        """Put the number of draws of each status (under the other filters) in its choice."""
        self.fields["status"].choices = [
            ("", "Any status"),
            *((value, f"{label} ({counts.get(value, 0):,})") for value, label in DrawStatus.choices),
        ]


class DrawMoveForm(GuardedForm):
    scheduled_at = BoundedDateTimeField(
        label="New date and time",
        help_text="Johannesburg time. The ticket, proxy and decline windows are laid anew from the series.",
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="Kept on the draw and shown to the auditor."
    )


class DrawCancelForm(GuardedForm):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="Kept on the draw and shown to the auditor."
    )


class CardForm(GuardedForm):
    card_fields = ("card",)

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


SCHEDULE_MAX_DRAWS = 400  # more than a year of daily draws: a bigger request is a typing mistake
# The list of date-times is refused whole, before it is read, beyond these (room for blank lines
# and spaces around 400 draws); within them, only the first bad lines are reported one by one.
SCHEDULE_MAX_LINES = 2 * SCHEDULE_MAX_DRAWS
SCHEDULE_MAX_CHARS = 40 * SCHEDULE_MAX_LINES
SCHEDULE_BAD_LINES_SHOWN = 20


class ScheduleDrawsForm(GuardedForm):
    """Either every given weekday between two dates, or a list of date-times, or both."""

    weekday = forms.TypedChoiceField(choices=[("", "—"), *WEEKDAYS], coerce=int, required=False, empty_value=None)
    first = BoundedDateField(required=False, widget=DATE_INPUT)
    last = BoundedDateField(required=False, widget=DATE_INPUT)
    time = ClockField(required=False)
    dates = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "2026-07-25 21:00"}),
        help_text="One date and time per line (YYYY-MM-DD HH:MM), for draws on irregular days.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["dates"].widget.attrs["maxlength"] = SCHEDULE_MAX_CHARS
        self._oversized = None
        text = (self.data.get("dates") or "") if self.is_bound else ""
        lines = text.count("\n") + (not text.endswith("\n"))
        if len(text) > SCHEDULE_MAX_CHARS or lines > SCHEDULE_MAX_LINES:
            # Refused before reading it, and not sent back into the page either.
            self._oversized = f"{lines:,} lines" if lines > SCHEDULE_MAX_LINES else f"{len(text):,} characters"
            self.data = self.data.copy()
            self.data["dates"] = ""

    def clean_dates(self) -> str:
        if self._oversized:
            raise forms.ValidationError(
                f"That list has {self._oversized}: at most {SCHEDULE_MAX_DRAWS} draws are scheduled at once, one "
                "date and time per line. Nothing was read: paste a shorter list."
            )
        return self.cleaned_data["dates"]

    def clean(self):
        data = super().clean()
        moments = []
        if self._oversized:
            return data
        if data.get("weekday") is not None:
            if not (data.get("first") and data.get("last") and data.get("time")):
                raise forms.ValidationError("For a weekly schedule give the first and last date and the time.")
            if (data["last"] - data["first"]).days // 7 >= SCHEDULE_MAX_DRAWS:
                raise forms.ValidationError(
                    f"That is more than {SCHEDULE_MAX_DRAWS} draws at once: schedule a shorter stretch of dates."
                )
            day = data["first"] + dt.timedelta(days=(data["weekday"] - data["first"].weekday()) % 7)
            while day <= data["last"]:
                moments.append(timezone.make_aware(dt.datetime.combine(day, data["time"])))
                day += dt.timedelta(days=7)
        bad_lines = []
        for number, line in enumerate((data.get("dates") or "").splitlines(), start=1):
            if line.strip():
                try:
                    moment = timezone.make_aware(dt.datetime.fromisoformat(line.strip()))
                except ValueError:
                    bad_lines.append(
                        f"Line {number}: “{line.strip()[:40]}” is not a date and time like 2026-07-25 21:00."
                    )
                else:
                    if DATE_MIN <= moment.date() <= DATE_MAX:
                        moments.append(moment)
                    else:
                        bad_lines.append(f"Line {number}: {DATE_OUT_OF_RANGE}")
        for error in bad_lines[:SCHEDULE_BAD_LINES_SHOWN]:
            self.add_error("dates", error)
        if len(bad_lines) > SCHEDULE_BAD_LINES_SHOWN:
            more = len(bad_lines) - SCHEDULE_BAD_LINES_SHOWN
            self.add_error("dates", f"… and {more:,} more line{'s' if more > 1 else ''} like these.")
        if not moments and not self.errors:
            raise forms.ValidationError("Give a weekly schedule or at least one date and time.")
        if len(moments) > SCHEDULE_MAX_DRAWS:
            raise forms.ValidationError(
                f"That is more than {SCHEDULE_MAX_DRAWS} draws at once: schedule a shorter stretch of dates."
            )
        data["moments"] = moments
        return data
