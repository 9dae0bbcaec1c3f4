import datetime as dt

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from core.audit_words import OBJECT_KINDS, SYSTEM_ACTORS, action_choices, area_prefixes, device_actors
from core.forms import DATE_INPUT, BoundedDateField, GuardedForm
from core.models import AuditEvent


class AuditFilterForm(GuardedForm):
    """The audit log's filters, each a choice list in words (no action codes to type)."""

    action = forms.ChoiceField(required=False, label="What")
    actor = forms.ChoiceField(required=False, label="Who")
    object_type = forms.ChoiceField(required=False, label="About")
    object_id = forms.CharField(required=False, label="Its number", max_length=64)
    date_from = BoundedDateField(required=False, label="From", widget=DATE_INPUT)
    date_to = BoundedDateField(required=False, label="To", widget=DATE_INPUT)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["action"].choices = action_choices()
        self.fields["actor"].choices = actor_choices()
        kinds = sorted(((code, kind.label) for code, kind in OBJECT_KINDS.items()), key=lambda choice: choice[1])
        self.fields["object_type"].choices = [("", "Anything"), *kinds]
        for field in self.fields.values():
            css = (
                "form-select form-select-sm"
                if isinstance(field.widget, forms.Select)
                else "form-control form-control-sm"
            )
            field.widget.attrs["class"] = css

    def clean(self):
        data = super().clean()
        if data.get("date_from") and data.get("date_to") and data["date_to"] < data["date_from"]:
            self.add_error("date_to", "The last day is before the first: swap the dates.")
        return data

    def filter(self, events):
        data = self.cleaned_data
        action = data.get("action")
        if action and action.startswith("area:"):
            within = Q()
            for prefix in area_prefixes(action.removeprefix("area:")):
                within |= Q(action__startswith=prefix)
            events = events.filter(within)
        elif action:
            events = events.filter(action=action)
        if data.get("actor"):
            events = events.filter(actor_label=data["actor"])
        if data.get("object_type"):
            events = events.filter(object_type=data["object_type"])
        if data.get("object_id"):
            events = events.filter(object_id=data["object_id"].strip())
        if data.get("date_from"):
            events = events.filter(created_at__gte=_start_of(data["date_from"]))
        if data.get("date_to"):
            events = events.filter(created_at__lt=_start_of(data["date_to"] + dt.timedelta(days=1)))
        return events


def actor_choices() -> list:
    """Every staff account and device (a few rows each, unlike the log), then the system's own."""
    users = get_user_model().objects.order_by("username").values_list("username", flat=True)
    system = [(f"system:{name}", words) for name, words in SYSTEM_ACTORS.items()]
    return [
        ("", "Anyone"),
        ("Staff", [(name, name) for name in users]),
        ("Devices", device_actors()),
        ("The system", [*system, ("anonymous", "Someone not signed in")]),
    ]


def _start_of(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def audit_events(params) -> tuple[AuditFilterForm, "models.QuerySet[AuditEvent]"]:  # noqa: F821
    form = AuditFilterForm(params or None)
    events = AuditEvent.objects.all()
    if form.is_valid():
        events = form.filter(events)
    elif form.is_bound:
        # A filter with an error shows nothing rather than everything: the auditor reads the
        # error and corrects it, instead of taking the whole log for the filtered one.
        events = events.none()
    return form, events
