import datetime as dt

from django import forms
from django.utils import timezone

from core.forms import BoundedDateField, GuardedForm
from core.models import AuditEvent


class AuditFilterForm(GuardedForm):
    action = forms.CharField(required=False, help_text="e.g. member.signed_up, or member. for all")
    actor = forms.CharField(required=False)
    object_type = forms.CharField(required=False, label="Object type", help_text="e.g. members.member")
    object_id = forms.CharField(required=False, label="Object id")
    date_from = BoundedDateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    date_to = BoundedDateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def filter(self, events):
        data = self.cleaned_data
        if data.get("action"):
            action = data["action"].strip()
            events = events.filter(action__startswith=action) if action.endswith(".") else events.filter(action=action)
        if data.get("actor"):
            events = events.filter(actor_label=data["actor"].strip())
        if data.get("object_type"):
            events = events.filter(object_type=data["object_type"].strip().lower())
        if data.get("object_id"):
            events = events.filter(object_id=data["object_id"].strip())
        if data.get("date_from"):
            events = events.filter(created_at__gte=_start_of(data["date_from"]))
        if data.get("date_to"):
            events = events.filter(created_at__lt=_start_of(data["date_to"] + dt.timedelta(days=1)))
        return events


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
