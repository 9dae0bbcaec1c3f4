import datetime as dt

from django import forms
from django.utils import timezone

from core.forms import DATE_MAX, DATE_MIN, DATE_OUT_OF_RANGE, BoundedDateField, BoundedDateTimeField
from members.selectors import normalise_lookup

DATE = forms.DateInput(attrs={"type": "date"})
WEEKDAYS = [
    (i, name) for i, name in enumerate(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
]

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


SCHEDULE_MAX_DRAWS = 400  # more than a year of daily draws: a bigger request is a typing mistake


class ScheduleDrawsForm(forms.Form):
    """Either every given weekday between two dates, or a list of date-times, or both."""

    weekday = forms.TypedChoiceField(choices=[("", "—"), *WEEKDAYS], coerce=int, required=False, empty_value=None)
    first = BoundedDateField(required=False, widget=DATE)
    last = BoundedDateField(required=False, widget=DATE)
    time = forms.TimeField(required=False, widget=forms.TimeInput(attrs={"type": "time"}))
    dates = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "placeholder": "2026-07-25 21:00"}),
        help_text="One date and time per line (YYYY-MM-DD HH:MM), for draws on irregular days.",
    )

    def clean(self):
        data = super().clean()
        moments = []
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
        for number, line in enumerate((data.get("dates") or "").splitlines(), start=1):
            if line.strip():
                try:
                    moment = timezone.make_aware(dt.datetime.fromisoformat(line.strip()))
                except ValueError:
                    self.add_error(
                        "dates", f"Line {number}: “{line.strip()}” is not a date and time like 2026-07-25 21:00."
                    )
                else:
                    if DATE_MIN <= moment.date() <= DATE_MAX:
                        moments.append(moment)
                    else:
                        self.add_error("dates", f"Line {number}: {DATE_OUT_OF_RANGE}")
        if not moments and not self.errors:
            raise forms.ValidationError("Give a weekly schedule or at least one date and time.")
        if len(moments) > SCHEDULE_MAX_DRAWS:
            raise forms.ValidationError(
                f"That is more than {SCHEDULE_MAX_DRAWS} draws at once: schedule a shorter stretch of dates."
            )
        data["moments"] = moments
        return data
