"""The final step of an import (one INSERT ... SELECT, perhaps after waiting for another import's
to end) can take longer than IMPORT_STALE_SECONDS on a big file. It is never taken for a dead
worker (issue 6, 3.3): the worker beats just before it and holds the job's row lock from its first
statement, and recovery skips a locked row. Before, the tick re-queued such a job and cleared its
staged rows, the apply then rolled back, and a big file looped until IMPORT_MAX_ATTEMPTS."""

import contextlib
import datetime as dt
import threading
import time

import pytest
import time_machine
from django.core.files.base import ContentFile
from django.db import connection

from core.audit import Actor
from core.models import AuditEvent
from members import services
from members.models import ImportJob, ImportStagedPoints, ImportStatus, PointsEntry
from members.services import import_job_create, import_job_run, import_jobs_fail_stale
from members.tests.factories import MemberFactory
from members.tests.test_imports import points_file

pytestmark = pytest.mark.django_db(transaction=True)  # the worker runs on its own connection

T0 = dt.datetime(2026, 11, 2, 10, 0, tzinfo=dt.UTC)
STALE = dt.timedelta(seconds=120)
SYSTEM = Actor.system("test")


@pytest.fixture(autouse=True)
def stale_after_two_minutes(settings):
    settings.IMPORT_STALE_SECONDS = STALE.total_seconds()


@contextlib.contextmanager
def another_points_import_applying():
    """What another points import holds through its final step (members.services._import_apply)."""
    key = "members.import.points"
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(hashtext(%s))", [key])
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(hashtext(%s))", [key])


def wait_until_a_worker_waits_for_the_apply_lock(worker: threading.Thread) -> None:
    deadline = time.monotonic() + 30  # time-machine leaves the monotonic clock alone
    while time.monotonic() < deadline and worker.is_alive():
        with connection.cursor() as cursor:
            # In this database only: make test runs other sessions on the same cluster side by side.
            cursor.execute(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))"
            )
            if cursor.fetchone()[0]:
                return
        time.sleep(0.02)
    pytest.fail("The import never reached its final step.")


@contextlib.contextmanager
def an_import_waiting_in_its_final_step(monkeypatch):
    """A two-row points import whose worker (a thread with its own connection) read its file
    for a minute from T0, beat, and now waits behind another import's final step. Yields the
    job, then lets the other import finish and waits for the worker; the clock stays at
    T0 + 1 minute throughout. The worker's outcome: `outcome["job"]` or `failures`."""
    MemberFactory(card_number="3000000001")
    text = points_file("3000000001,GRC,2026-10-01,5,R1", "3000000001,GRC,2026-10-01,7,R2")
    job = import_job_create(actor=SYSTEM, kind="points", file=ContentFile(text.encode()), name="p.csv")
    outcome, failures = {}, []

    def work():
        try:
            outcome["job"] = import_job_run(job_id=job.pk, actor=SYSTEM)
        except Exception as error:
            failures.append(error)
        finally:
            connection.close()

    with time_machine.travel(T0, tick=False) as traveller:
        stage = services.points_stage

        def stage_for_a_minute(rows):  # the last chunk beat at T0
            stage(rows)
            traveller.shift(dt.timedelta(minutes=1))

        monkeypatch.setattr(services, "points_stage", stage_for_a_minute)
        worker = threading.Thread(target=work)
        try:
            with another_points_import_applying():
                worker.start()
                wait_until_a_worker_waits_for_the_apply_lock(worker)
                yield job, outcome, failures
        finally:
            worker.join(timeout=60)
    assert not worker.is_alive()


def test_an_import_waiting_in_its_final_step_is_not_taken_for_a_dead_worker(reference_data, monkeypatch):
    with an_import_waiting_in_its_final_step(monkeypatch) as (job, outcome, failures):
        # The tick, long after the stale window: the waiting job is not recovered...
        assert import_jobs_fail_stale(now=T0 + dt.timedelta(hours=1) + STALE) == 0
        left = ImportJob.objects.get(pk=job.pk)
        assert (left.status, left.attempts) == (ImportStatus.RUNNING, 1)
        assert ImportStagedPoints.objects.filter(job=job).count() == 2  # ...nor its staged rows cleared,
        # and it beat just before its final step, not only with its last chunk.
        assert left.heartbeat_at == T0 + dt.timedelta(minutes=1)

    assert failures == []
    done = outcome["job"]
    assert (done.status, done.rows_imported, done.attempts) == (ImportStatus.SUCCEEDED, 2, 1)
    assert PointsEntry.objects.count() == 2
    assert not AuditEvent.objects.filter(action__in=["import.restarted", "import.abandoned"]).exists()


def test_without_the_row_lock_the_tick_takes_the_waiting_import_for_dead(reference_data, monkeypatch):
    """The control: the final step without its row lock is re-queued under the worker's feet."""
    monkeypatch.setattr(services, "_import_job_hold", lambda job, claim: None)
    monkeypatch.setattr("members.tasks.import_job_run_task.delay", lambda job_id: None)
    with an_import_waiting_in_its_final_step(monkeypatch) as (job, _, _):
        assert import_jobs_fail_stale(now=T0 + dt.timedelta(hours=1) + STALE) == 1
        assert not ImportStagedPoints.objects.filter(job=job).exists()
