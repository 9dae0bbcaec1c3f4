from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from core.forms import DATE_INPUT, BoundedDateField, BoundedDateTimeField, ClockField, ClockInput, GuardedModelForm
from members.models import Tier
from promotions.models import DrawSeries, EarningRule, Promotion
from promotions.rules import (
    CAP_MIN,
    CLOSE_BEFORE_MAX,
    DAY_OFFSET_MIN,
    POINTS_MAX,
    SCALAR_FIELDS,
    TICKETS_MAX,
    WINDOWS_MAX,
    RuleInvalid,
    RuleUnreadable,
    RuleValues,
    rule_values_validate,
    windows_parse,
)
from promotions.rules import WEEKDAYS as WEEKDAYS_PLURAL


class PromotionForm(GuardedModelForm):
    # The collection rules (PRIZES.md §3): left empty, a promotion keeps what it had (15 days at
    # the Cash Desk for a new one, as every seed but DayTime PlayTime says).
    collection_days = forms.IntegerField(
        label="Days to collect a prize after its draw",
        min_value=1,
        max_value=365,
        required=False,
        help_text="The prize letter expires at midnight ending this many days after the draw's date (15 in every "
        "seed).",
    )
    collection_place = forms.CharField(
        label="Where the winner collects",
        max_length=200,
        required=False,
        help_text="As the prize letter says it, e.g. the Cash Desk; the casino where the prize was won is added.",
    )

    class Meta:
        model = Promotion
        fields = [
            "code",
            "name",
            "properties",
            "starts_on",
            "ends_on",
            "status",
            "rules_text",
            "collection_days",
            "collection_place",
        ]
        widgets = {"starts_on": DATE_INPUT, "ends_on": DATE_INPUT, "properties": forms.CheckboxSelectMultiple}
        field_classes = {"starts_on": BoundedDateField, "ends_on": BoundedDateField}

    def clean_collection_days(self):
        return self.cleaned_data["collection_days"] or self.instance.collection_days or 15

    def clean_collection_place(self):
        return self.cleaned_data["collection_place"].strip() or self.instance.collection_place or "the Cash Desk"


def _whole_field(label: str, low: int, high: int) -> forms.IntegerField:
    """An optional whole-number input; empty means "not set". The bounds are those of
    promotions.rules, which checks them again for the service and every reader."""
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=low,
        max_value=high,
        widget=forms.NumberInput(attrs={"step": 1, "class": "form-control form-control-sm"}),
    )


class SeriesForm(GuardedModelForm):
    """The series, with its ticket windows as rows of (day, opens, closes or minutes before the
    draw) instead of typed JSON; the stored list keeps its shape (promotions.rules.WindowSpec)."""

    eligible_tiers = forms.ModelMultipleChoiceField(Tier.objects.all(), widget=forms.CheckboxSelectMultiple)
    desk_assisted_tiers = forms.ModelMultipleChoiceField(
        Tier.objects.all(), widget=forms.CheckboxSelectMultiple, required=False
    )
    presentation_seconds = forms.IntegerField(
        label="Seconds a winner has to come forward",
        min_value=10,
        max_value=900,
        required=False,
        help_text="Once picked, a winner (or their proxy) has this long before a no-show may be recorded: "
        "90 unless the rules say otherwise.",
    )
    one_selection_per_draw = forms.BooleanField(
        label="A member is selected once per draw",
        required=False,
        help_text="Picked again in the same draw, whatever happened the first time, the member is redrawn "
        "(e.g. Fast Lane rule 117).",
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
            "proxies_allowed",
            "proxies_open",
            "proxies_close_minutes",
            "presentation_seconds",
            "one_selection_per_draw",
            "paid_at_device",
        ]
        field_classes = {"proxies_open": ClockField}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        day_choices = [("", "—"), (0, "The draw day")] + [
            (-n, f"{n} day{'s' if n > 1 else ''} before") for n in range(1, -DAY_OFFSET_MIN + 1)
        ]
        small = {"class": "form-control form-control-sm"}
        for row in range(1, WINDOWS_MAX + 1):
            self.fields[f"window{row}_day"] = forms.TypedChoiceField(
                label="Day",
                choices=day_choices,
                coerce=int,
                empty_value=None,
                required=False,
                widget=forms.Select(attrs={"class": "form-select form-select-sm"}),
            )
            self.fields[f"window{row}_open"] = ClockField(label="Opens", required=False, widget=ClockInput(small))
            self.fields[f"window{row}_close"] = forms.CharField(
                label="Closes at",
                required=False,
                max_length=5,
                widget=forms.TextInput(attrs={"placeholder": "HH:MM or 24:00", **small}),
            )
            self.fields[f"window{row}_close_before"] = forms.IntegerField(
                label="or minutes before the draw",
                required=False,
                min_value=0,
                max_value=CLOSE_BEFORE_MAX,
                widget=forms.NumberInput(attrs={"step": 1, **small}),
            )
        self.windows_unreadable = ""
        if not self.is_bound and self.instance.ticket_windows:
            try:
                specs = windows_parse(self.instance.ticket_windows)
            except RuleInvalid as error:  # an old row: the manager re-enters the windows
                self.windows_unreadable = error.message
                specs = []
            for row, spec in enumerate(specs, start=1):
                stored = spec.as_stored()
                self.initial[f"window{row}_day"] = stored["day"]
                self.initial[f"window{row}_open"] = spec.opens
                self.initial[f"window{row}_close"] = stored.get("close", "")
                self.initial[f"window{row}_close_before"] = stored.get("close_before")

    def main_fields(self):
        return [field for field in self if not field.name.startswith("window")]

    def clean_presentation_seconds(self):
        # Left empty: the series keeps what it had (90 for a new one).
        return self.cleaned_data["presentation_seconds"] or self.instance.presentation_seconds or 90

    def window_rows(self):
        parts = ("day", "open", "close", "close_before")
        return [[self[f"window{row}_{part}"] for part in parts] for row in range(1, WINDOWS_MAX + 1)]

    def clean_property(self):
        prop = self.cleaned_data["property"]
        refusal = self.instance.promotion.property_refusal(prop) if prop else None
        if refusal:
            raise forms.ValidationError(refusal)
        return prop

    def clean(self):
        data = super().clean()
        spec = []
        for row in range(1, WINDOWS_MAX + 1):
            names = [f"window{row}_{part}" for part in ("day", "open", "close", "close_before")]
            if any(name in self.errors for name in names):
                continue
            day, opens, close, before = (data.get(name) for name in names)
            if day is None and opens is None and not close and before is None:
                continue  # an empty row
            if opens is None:
                self.add_error(names[1], f"Window {row}: give the time it opens.")
                continue
            window = {"day": day or 0, "open": f"{opens:%H:%M}"}
            if close:
                window["close"] = close.strip()
            if before is not None:
                window["close_before"] = before
            spec.append(window)
        if not spec and not any(name.startswith("window") for name in self.errors):
            self.add_error(None, "Give at least one ticket window.")
        elif spec:
            try:
                windows_parse(spec)
            except RuleInvalid as error:
                for _, message in error.errors:
                    self.add_error(None, message)
            else:
                self.instance.ticket_windows = spec
        return data


class EarningRuleForm(GuardedModelForm):
    """The earning rule, with a whole-number input per tier (points per ticket, free tickets,
    cap) and per weekday and tier (free tickets by the weekday of activation) instead of typed
    JSON. Empty inputs are "not set"; the stored JSON keeps its shape ({"QUEEN": 10},
    {"4": {"ACE": 50}})."""

    TIER_COLUMNS = (
        ("ppt", "points_per_ticket_by_tier", "Points per ticket", 0, POINTS_MAX),
        ("free", "free_tickets_by_tier", "Free tickets", 0, TICKETS_MAX),
        ("cap", "cap_by_tier", "Most tickets", CAP_MIN, TICKETS_MAX),
    )

    class Meta:
        model = EarningRule
        fields = [
            "period_kind",
            "period_days",
            "period_start_time",
            "fixed_start",
            "fixed_end",
            "points_per_ticket",
            "minimum_points",
            "bonus_app_registered",
            "bonus_age_50_plus",
            "bonus_active_at_property",
            "bonus_per_visit",
            "bonus_per_visit_app",
            "cap",
            "equal_opportunity_tickets",
            "assumptions",
        ]
        field_classes = {
            "fixed_start": BoundedDateTimeField,
            "fixed_end": BoundedDateTimeField,
            "period_start_time": ClockField,
        }
        widgets = {
            "assumptions": forms.Textarea(attrs={"rows": 3}),
        }
        help_texts = {
            "points_per_ticket": "For every tier without its own number below.",
            "cap": "Most tickets per patron, for every tier without its own number below.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tiers = list(Tier.objects.order_by("rank"))
        for name, (_, low, high) in SCALAR_FIELDS.items():
            if name in self.fields:  # the same bounds as the service, shown by the browser too
                field = self.fields[name]
                field.min_value, field.max_value = low, high
                field.validators = [v for v in field.validators if not hasattr(v, "limit_value")]
                field.validators += [MinValueValidator(low), MaxValueValidator(high)]
                field.widget.attrs.update(min=low, max=high)
        for tier in self.tiers:
            for prefix, _, label, low, high in self.TIER_COLUMNS:
                self.fields[f"{prefix}_{tier.code}"] = _whole_field(f"{label}, {tier.name}", low, high)
            for day, weekday in enumerate(WEEKDAYS_PLURAL):
                self.fields[f"weekday{day}_{tier.code}"] = _whole_field(
                    f"Free tickets on {weekday}, {tier.name}", 0, TICKETS_MAX
                )
        self.values_unreadable = ""
        if not self.is_bound:
            try:
                self.instance.values()
            except RuleUnreadable as error:  # an old row: the manager re-enters the numbers
                self.values_unreadable = error.message
            else:
                self._initial_from(self.instance.values())

    def _initial_from(self, values: RuleValues) -> None:
        stored = {
            "ppt": values.points_per_ticket_by_tier,
            "free": values.free_tickets_by_tier,
            "cap": values.cap_by_tier,
        }
        for prefix, numbers in stored.items():
            for code, number in numbers.items():
                self.initial[f"{prefix}_{code}"] = number
        for day, numbers in values.free_tickets_by_weekday.items():
            for code, number in numbers.items():
                self.initial[f"weekday{day}_{code}"] = number

    def main_fields(self):
        per_tier = (*(f"{prefix}_" for prefix, *_ in self.TIER_COLUMNS), "weekday")
        return [field for field in self if not field.name.startswith(per_tier)]

    def tier_rows(self):
        """(tier, [points per ticket, free tickets, cap]) per tier, lowest first."""
        return [(tier, [self[f"{prefix}_{tier.code}"] for prefix, *_ in self.TIER_COLUMNS]) for tier in self.tiers]

    def weekday_rows(self):
        """(weekday, [free tickets per tier]) Monday first."""
        return [
            (weekday, [self[f"weekday{day}_{tier.code}"] for tier in self.tiers])
            for day, weekday in enumerate(WEEKDAYS_PLURAL)
        ]

    def clean(self):
        data = super().clean()
        stored = {
            column: {t.code: data[f"{p}_{t.code}"] for t in self.tiers if data.get(f"{p}_{t.code}") is not None}
            for p, column, *_ in self.TIER_COLUMNS
        }
        stored["free_tickets_by_weekday"] = {
            str(day): numbers
            for day in range(7)
            if (
                numbers := {
                    t.code: data[f"weekday{day}_{t.code}"]
                    for t in self.tiers
                    if data.get(f"weekday{day}_{t.code}") is not None
                }
            )
        }
        scalars = {name: data[name] for name in SCALAR_FIELDS if name in data and name not in self.errors}
        try:
            values = rule_values_validate({**scalars, **stored}, tier_codes=[t.code for t in self.tiers])
        except RuleInvalid as error:
            for name, message in error.errors:
                self.add_error(name if name in self.fields and name not in self.errors else None, message)
            return data
        for name, value in values.as_stored().items():
            setattr(self.instance, name, value)
        return data
