"""The beat tick, run by a real Celery worker over Redis against the test database."""

import pytest

from core.models import WorkerHeartbeat
from core.tasks import tick
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
