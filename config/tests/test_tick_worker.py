"""The beat tick, run by a real Celery worker over Redis against the test database."""

import pytest

from config.tasks import tick
from core.models import WorkerHeartbeat
from testing.worker import celery_worker_fixture, celery_worker_process_fixture  # noqa: F401

pytestmark = pytest.mark.worker


def _ticks() -> int:
    heartbeat = WorkerHeartbeat.objects.filter(name="beat").first()
    return heartbeat.ticks if heartbeat else 0


def test_beat_tick_runs_on_a_real_worker(celery_worker):
    assert not WorkerHeartbeat.objects.filter(name="beat").exists()

    tick.delay()
    first = celery_worker.wait_for(_ticks, "the worker to run the first tick and write the beat heartbeat")
    assert first == 1
    first_tick_at = WorkerHeartbeat.objects.get(name="beat").last_tick_at

    tick.delay()
    second = celery_worker.wait_for(lambda: _ticks() > first and _ticks(), "the worker to run the second tick")
    assert second == first + 1
    assert WorkerHeartbeat.objects.get(name="beat").last_tick_at > first_tick_at


def test_the_tick_closes_a_due_draw_once_however_often_it_runs(celery_worker, reference_data):
    import datetime as dt

    from django.utils import timezone

    from core.audit import Actor
    from core.models import AuditEvent
    from draws.models import Draw, DrawStatus
    from draws.services import activation_create
    from draws.tests.factories import make_draw
    from members.tests.factories import MemberFactory, PointsEntryFactory
    from promotions.tests.factories import make_series

    now = timezone.now()
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 30}])
    draw = make_draw(series, now + dt.timedelta(minutes=10))  # its window closed 20 minutes ago
    member = MemberFactory(card_number="7000000001")
    PointsEntryFactory(member=member, points=300, earned_at=now - dt.timedelta(days=1))
    activation_create(
        actor=Actor.system("test"),
        draw_id=draw.pk,
        card_number="7000000001",
        channel="ehost",
        now=now - dt.timedelta(minutes=25),
    )

    tick.delay()
    tick.delay()
    celery_worker.wait_for(lambda: _ticks() >= 2, "the worker to run both ticks")
    draw.refresh_from_db()
    assert draw.status == DrawStatus.CLOSED and draw.tickets_total == 3
    frozen = AuditEvent.objects.filter(action="draw.entries_frozen", object_id=str(draw.pk))
    assert frozen.count() == 1
    assert Draw.objects.get(pk=draw.pk).entries_sha256 == frozen.get().data["entries_sha256"]


def test_the_tick_starts_a_due_electronic_draw_once_on_a_real_worker(celery_worker, reference_data):
    """Two ticks on the worker at the draw's time: one run, its first pick as DRAWS.md gives it."""
    import datetime as dt

    from django.utils import timezone

    from core.models import AuditEvent
    from draws.models import DrawStatus
    from draws.selection import electronic_serial
    from draws.tests.builders import closed_draw
    from promotions.tests.factories import make_series

    now = timezone.now()
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 30}])
    draw, _ = closed_draw(series, now - dt.timedelta(seconds=5), [4, 6, 3])  # due five seconds ago

    tick.delay()
    tick.delay()
    celery_worker.wait_for(lambda: _ticks() >= 2, "the worker to run both ticks")
    draw.refresh_from_db()
    assert draw.status == DrawStatus.RUNNING and draw.started_by == "system:tick"
    assert AuditEvent.objects.filter(action="draw.started", object_id=str(draw.pk)).count() == 1
    (pick,) = draw.picks.all()
    assert pick.serial == electronic_serial(
        seed=bytes.fromhex(draw.seed_hex), entries_sha256=draw.entries_sha256, k=1, tickets_total=13
    )
