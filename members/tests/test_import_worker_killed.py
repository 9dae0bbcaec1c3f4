"""A worker killed with SIGKILL in the middle of a points import (issue 6, 3.3): the job does
not stay "running". Once its heartbeat is IMPORT_STALE_SECONDS old the page says the worker
stopped, the tick puts the job back in the queue, and a new worker imports the whole file,
every row exactly once."""

import csv
import datetime as dt
import io

import psycopg
import pytest
import time_machine
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

from config.tasks import tick
from core.models import AuditEvent
from core.roles import PROMOTIONS_MANAGER
from members.imports import CHUNK_ROWS, POINTS_COLUMNS
from members.models import ImportJob, ImportStagedPoints, ImportStatus, PointsEntry
from members.tests.factories import MemberFactory
from testing.worker import celery_worker_fixture, celery_worker_process_fixture, worker_start  # noqa: F401

pytestmark = pytest.mark.worker

ROWS = 6 * CHUNK_ROWS  # several chunks: the worker is stopped with part of the file staged


def points_csv(cards: list[str]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(POINTS_COLUMNS)
    for n in range(ROWS):
        writer.writerow([cards[n % len(cards)], "GRC", "2025-10-01 10:00:00", 1 + n % 9, f"K-{n:06d}"])
    return buffer.getvalue().encode()


def expected_points() -> int:
    return sum(1 + n % 9 for n in range(ROWS))


def waiting_on(holders: list[psycopg.Connection], job: ImportJob):
    """The pid of the database session that waits for a lock of one of `holders`, once there is one."""
    pids = [holder.info.backend_pid for holder in holders]

    def probe():
        job.refresh_from_db()
        if job.is_finished:
            pytest.fail(f"Import #{job.pk} finished ({job.status}) before it could be paused: {job.message!r}")
        # pg_locks, not pg_stat_activity: that one is a snapshot taken once per transaction.
        row = (
            holders[0]
            .execute("SELECT pid FROM pg_locks WHERE NOT granted AND pg_blocking_pids(pid) && %s::int[]", [pids])
            .fetchone()
        )
        return row and row[0]

    return probe


def finished(job: ImportJob):
    def probe():
        job.refresh_from_db()
        return job.is_finished

    return probe


def test_an_import_whose_worker_was_killed_is_run_again_by_a_new_worker_and_imports_every_row_once(
    celery_worker, reference_data, client_for, tmp_path
):
    cards = [member.card_number for member in MemberFactory.create_batch(20)]
    manager = client_for(PROMOTIONS_MANAGER)
    upload = SimpleUploadedFile("points.csv", points_csv(cards), content_type="text/csv")

    url = celery_worker.database_url
    holder, ledger = psycopg.connect(url, autocommit=True), psycopg.connect(url, autocommit=True)
    # The import cannot end while the test holds the ledger, however fast the machine: its
    # partitions and its insert wait for this lock, which nothing before them needs.
    with holder, ledger, ledger.transaction():
        ledger.execute("LOCK TABLE members_pointsentry IN SHARE ROW EXCLUSIVE MODE")
        response = manager.post(reverse("members:imports"), {"kind": "points", "file": upload})
        assert response.status_code == 302
        job = ImportJob.objects.get()
        celery_worker.wait_for(
            lambda: ImportStagedPoints.objects.filter(job=job).exists(),
            f"import #{job.pk} to stage its first chunk",
        )
        # Pause the worker without touching the product: hold the job's row, so its next
        # heartbeat waits for us (SKIP LOCKED: if the worker holds the row at its final step,
        # it waits for the ledger already); then kill it while it waits.
        with holder.transaction():
            holder.execute("SELECT 1 FROM members_importjob WHERE id = %s FOR UPDATE SKIP LOCKED", [job.pk])
            blocked = celery_worker.wait_for(
                waiting_on([holder, ledger], job), f"the worker to wait for import #{job.pk}"
            )
            celery_worker.kill()
            # SIGKILL closed the worker's socket, but its session, waiting on our lock, would
            # only notice at its next read. A worker killed outside a test has no such session.
            ended = holder.execute("SELECT pg_terminate_backend(%s, 10000)", [blocked]).fetchone()[0]
            assert ended, "the killed worker's database session did not end within 10 s"

    job.refresh_from_db()
    assert job.status == ImportStatus.RUNNING
    assert job.attempts == 1 and job.heartbeat_at is not None
    assert not PointsEntry.objects.exists()  # nothing reaches the ledger before the final step
    # What the killed attempt staged stays until the job is run again, which must not add it twice.
    staged = ImportStagedPoints.objects.filter(job=job).count()
    assert staged >= CHUNK_ROWS
    stale = dt.timedelta(seconds=settings.IMPORT_STALE_SECONDS)
    detail_url = reverse("members:import_detail", args=[job.pk])

    with time_machine.travel(job.heartbeat_at + stale - dt.timedelta(seconds=1), tick=False):
        assert "The worker stopped" not in manager.get(detail_url).text
        assert tick() == []
        job.refresh_from_db()
        assert job.status == ImportStatus.RUNNING  # silent, but not for long enough yet

    last_heard = job.heartbeat_at
    with time_machine.travel(last_heard + stale + dt.timedelta(seconds=1), tick=False):
        since = timezone.localtime(last_heard).strftime("%H:%M:%S")
        page = manager.get(detail_url).text
        assert f"The worker stopped during this import: it has not reported since {since}." in page
        assert tick() == []  # puts the job back in the queue and sends it to a worker
        job.refresh_from_db()
        assert (job.status, job.claim) == (ImportStatus.QUEUED, "")
        page = manager.get(detail_url).text
        assert "it will start again from the beginning as soon as a worker is free" in page
    restarted = AuditEvent.objects.get(
        action="import.restarted", object_type="members.importjob", object_id=str(job.pk)
    )
    assert restarted.data == {"attempts": 1, "silent_since": last_heard.isoformat()}
    # Queued again, its heartbeat says when it was sent (members.services.import_jobs_requeue_lost).
    assert job.heartbeat_at == last_heard + stale + dt.timedelta(seconds=1)

    new_worker = worker_start(folder=tmp_path, queue=celery_worker.queue, media_root=celery_worker.media_root)
    try:
        new_worker.wait_for(finished(job), f"the new worker to finish import #{job.pk}", timeout=120)
    finally:
        new_worker.stop()

    assert job.status == ImportStatus.SUCCEEDED, job.message
    assert (job.rows_total, job.rows_imported, job.rows_skipped, job.attempts) == (ROWS, ROWS, 0, 2)
    ledger = PointsEntry.objects.filter(import_job=job)
    assert PointsEntry.objects.count() == ledger.count() == ROWS
    assert set(ledger.values_list("reference", flat=True)) == {f"K-{n:06d}" for n in range(ROWS)}
    assert ledger.aggregate(total=Sum("points"))["total"] == expected_points()
    assert not ImportStagedPoints.objects.filter(job=job).exists()
    events = AuditEvent.objects.filter(object_type="members.importjob", object_id=str(job.pk)).order_by("pk")
    actions = list(events.values_list("action", flat=True))
    assert actions == ["import.queued", "import.restarted", "import.completed"]
    page = manager.get(detail_url).text
    assert f"Imported {ROWS:,} of {ROWS:,} rows." in page
    assert "The worker stopped" not in page
