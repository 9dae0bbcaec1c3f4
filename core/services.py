import datetime as dt

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.models import WorkerHeartbeat


def tick_run(*, now: dt.datetime | None = None) -> WorkerHeartbeat:
    """Record that the beat tick is alive; config.tasks.tick then runs the work the clock has
    made due (closing ticket windows, failing abandoned imports; later: due draws, letters)."""
    now = now or timezone.now()
    with transaction.atomic():
        updated = WorkerHeartbeat.objects.filter(name="beat").update(last_tick_at=now, ticks=F("ticks") + 1)
        if not updated:
            WorkerHeartbeat.objects.get_or_create(name="beat", defaults={"last_tick_at": now, "ticks": 1})
    return WorkerHeartbeat.objects.get(name="beat")
