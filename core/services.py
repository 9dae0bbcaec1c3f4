import datetime as dt

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.models import WorkerHeartbeat


def tick_run(*, now: dt.datetime | None = None) -> WorkerHeartbeat:
    """The beat tick: record that scheduled jobs are alive. Later issues hang the due work
    (closing ticket windows, running due draws, expiring letters) on this same tick."""
    now = now or timezone.now()
    with transaction.atomic():
        updated = WorkerHeartbeat.objects.filter(name="beat").update(last_tick_at=now, ticks=F("ticks") + 1)
        if not updated:
            WorkerHeartbeat.objects.get_or_create(name="beat", defaults={"last_tick_at": now, "ticks": 1})
    return WorkerHeartbeat.objects.get(name="beat")
