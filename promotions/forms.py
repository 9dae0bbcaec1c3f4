import datetime as dt

from django import forms
from django.utils import timezone

from members.models import Tier
from promotions.models import DrawSeries, EarningRule, Promotion

DATE = forms.DateInput(attrs={"type": "date"})
WEEKDAYS = [
    (i, name) for i, name in enumerate(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
]


class PromotionForm(forms.ModelForm):
    class Meta:
        model = Promotion
        fields = ["code", "name", "properties", "starts_on", "ends_on", "status", "rules_text"]
        widgets = {"starts_on": DATE, "ends_on": DATE, "properties": forms.CheckboxSelectMultiple}


class SeriesForm(forms.ModelForm):
    eligible_tiers = forms.ModelMultipleChoiceField(Tier.objects.all(), widget=forms.CheckboxSelectMultiple)
    desk_assisted_tiers = forms.ModelMultipleChoiceField(
        Tier.objects.all(), widget=forms.CheckboxSelectMultiple, required=False
    )

    class Meta:
        model = DrawSeries
        fields = [
            "code",
            "name",
            "property",
            "method",
            "eligible_tiers",
            "desk_assisted_tiers",
            "winners_per_draw",
            "win_once_scope",
            "schedule_text",
            "ticket_windows",
            "proxies_open",
            "proxies_close_minutes",
        ]
        widgets = {"proxies_open": forms.TimeInput(attrs={"type": "time"})}


class EarningRuleForm(forms.ModelForm):
    class Meta:
        model = EarningRule
        fields = [
            "period_kind",
            "period_days",
            "period_start_time",
            "fixed_start",
            "fixed_end",
            "points_per_ticket",
            "points_per_ticket_by_tier",
            "minimum_points",
            "free_tickets_by_tier",
            "free_tickets_by_weekday",
            "bonus_app_registered",
            "bonus_age_50_plus",
            "bonus_active_at_property",
            "bonus_per_visit",
            "bonus_per_visit_app",
            "cap",
            "cap_by_tier",
            "equal_opportunity_tickets",
            "assumptions",
        ]
        widgets = {
            "fixed_start": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "fixed_end": forms.DateTimeInput(attrs={"type": "datetime-local"}),
            "period_start_time": forms.TimeInput(attrs={"type": "time"}),
            "assumptions": forms.Textarea(attrs={"rows": 3}),
        }


class ScheduleDrawsForm(forms.Form):
    """Either every given weekday between two dates, or a list of date-times, or both."""

    weekday = forms.TypedChoiceField(choices=[("", "—"), *WEEKDAYS], coerce=int, required=False, empty_value=None)
    first = forms.DateField(required=False, widget=DATE)
    last = forms.DateField(required=False, widget=DATE)
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
            day = data["first"] + dt.timedelta(days=(data["weekday"] - data["first"].weekday()) % 7)
            while day <= data["last"]:
                moments.append(timezone.make_aware(dt.datetime.combine(day, data["time"])))
                day += dt.timedelta(days=7)
        for number, line in enumerate((data.get("dates") or "").splitlines(), start=1):
            if line.strip():
                try:
                    moments.append(timezone.make_aware(dt.datetime.fromisoformat(line.strip())))
                except ValueError:
                    self.add_error("dates", f"Line {number}: {line.strip()!r} is not YYYY-MM-DD HH:MM.")
        if not moments and not self.errors:
            raise forms.ValidationError("Give a weekly schedule or at least one date and time.")
        data["moments"] = moments
        return data
