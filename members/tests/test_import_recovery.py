"""An import whose worker was killed is run again from the start, or failed, within minutes
(issue 6, 3.3): the heartbeat, the claim, the redelivered task and the tick."""

import datetime as dt

import pytest
import time_machine
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.urls import reverse

from core.audit import Actor
from core.models import AuditEvent
from members import services
from members.models import ImportJob, ImportStagedPoints, ImportStatus, PointsEntry
from members.services import import_job_create, import_job_run, import_jobs_fail_stale
from members.tests.factories import MemberFactory
from members.tests.test_imports import points_file

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2026, 11, 2, 10, 0, tzinfo=dt.UTC)
STALE = dt.timedelta(seconds=120)
JUST_FRESH, JUST_STALE = T0 + STALE - dt.timedelta(seconds=1), T0 + STALE + dt.timedelta(seconds=1)
SYSTEM = Actor.system("test")


@pytest.fixture(autouse=True)
def stale_after_two_minutes(settings):
    """The edges below are the setting's, whatever IMPORT_STALE_SECONDS the machine sets."""
    settings.IMPORT_STALE_SECONDS = STALE.total_seconds()


@pytest.fixture
def job(reference_data):
    MemberFactory(card_number="3000000001")
    text = points_file("3000000001,GRC,2026-10-01,5,R1", "3000000001,GRC,2026-10-01,7,R2")
    return import_job_create(actor=SYSTEM, kind="points", file=ContentFile(text.encode()), name="p.csv")


def abandon(job: ImportJob, *, at: dt.datetime, attempts: int = 1) -> None:
    """What a worker killed with SIGKILL leaves: running, its last heartbeat at `at`."""
    ImportJob.objects.filter(pk=job.pk).update(
        status=ImportStatus.RUNNING, started_at=at, heartbeat_at=at, attempts=attempts, claim="dead-worker"
    )


def test_a_redelivered_task_leaves_a_job_with_a_fresh_heartbeat_alone(job):
    abandon(job, at=T0)
    with time_machine.travel(JUST_FRESH, tick=False):
        assert import_job_run(job_id=job.pk, actor=SYSTEM).status == ImportStatus.RUNNING
    assert PointsEntry.objects.count() == 0


def test_a_redelivered_task_runs_again_a_job_whose_worker_went_silent(job):
    abandon(job, at=T0)
    ImportStagedPoints.objects.create(  # what the killed attempt had staged
        job=job, line=2, member_id=1, property_id=1, earned_at=T0, points=5, reference="R1"
    )
    with time_machine.travel(JUST_STALE, tick=False):
        done = import_job_run(job_id=job.pk, actor=SYSTEM)
    assert (done.status, done.rows_imported, done.attempts) == (ImportStatus.SUCCEEDED, 2, 2)
    assert PointsEntry.objects.count() == 2  # the first attempt's staged rows were not kept
    assert not ImportStagedPoints.objects.exists()
    actions = list(AuditEvent.objects.filter(object_id=str(job.pk)).values_list("action", flat=True))
    assert "import.restarted" in actions and "import.completed" in actions


def test_the_tick_puts_a_silent_job_back_in_the_queue_and_sends_it_to_a_worker(
    job, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr("members.tasks.import_job_run_task.delay", sent.append)
    abandon(job, at=T0)
    assert import_jobs_fail_stale(now=JUST_FRESH) == 0
    with django_capture_on_commit_callbacks(execute=True):
        assert import_jobs_fail_stale(now=JUST_STALE) == 1
    job.refresh_from_db()
    assert (job.status, job.claim, sent) == (ImportStatus.QUEUED, "", [job.pk])
    assert AuditEvent.objects.filter(action="import.restarted", object_id=str(job.pk)).count() == 1
    assert import_jobs_fail_stale(now=T0 + dt.timedelta(hours=1)) == 0  # queued is not stalled

    with time_machine.travel(JUST_STALE + dt.timedelta(seconds=9), tick=False):
        assert import_job_run(job_id=job.pk, actor=SYSTEM).status == ImportStatus.SUCCEEDED
    assert PointsEntry.objects.count() == 2


def test_a_job_that_stopped_its_worker_three_times_is_failed(job, settings):
    settings.IMPORT_MAX_ATTEMPTS = 3
    abandon(job, at=T0, attempts=3)
    assert import_jobs_fail_stale(now=JUST_STALE) == 1
    job.refresh_from_db()
    assert job.status == ImportStatus.FAILED
    assert job.message.startswith("The worker stopped during this import 3 times; nothing was imported.")
    assert AuditEvent.objects.filter(action="import.abandoned", object_id=str(job.pk)).count() == 1


def test_a_job_left_running_before_heartbeats_existed_is_recovered_by_its_start(job):
    ImportJob.objects.filter(pk=job.pk).update(status=ImportStatus.RUNNING, started_at=T0, attempts=1)
    assert import_jobs_fail_stale(now=JUST_FRESH) == 0
    assert import_jobs_fail_stale(now=JUST_STALE) == 1


def test_the_heartbeat_moves_with_every_chunk(job, monkeypatch):
    monkeypatch.setattr("members.imports.CHUNK_ROWS", 1)
    beats = []
    with time_machine.travel(T0, tick=False) as traveller:
        original = services.points_stage

        def stage(rows):
            original(rows)
            beats.append(ImportJob.objects.get(pk=job.pk).heartbeat_at)
            traveller.shift(dt.timedelta(seconds=10))

        monkeypatch.setattr("members.services.points_stage", stage)
        assert import_job_run(job_id=job.pk, actor=SYSTEM).status == ImportStatus.SUCCEEDED
    assert beats == [T0, T0 + dt.timedelta(seconds=10)]


def test_a_worker_that_lost_its_job_writes_nothing_more(job, monkeypatch):
    """Presumed dead (paused, not killed), it wakes up after the job was given to another."""
    monkeypatch.setattr("members.imports.CHUNK_ROWS", 1)
    original = services.points_stage

    def stage_then_lose_the_job(rows):
        original(rows)
        ImportJob.objects.filter(pk=job.pk).update(claim="another-worker")

    monkeypatch.setattr("members.services.points_stage", stage_then_lose_the_job)
    left = import_job_run(job_id=job.pk, actor=SYSTEM)
    assert (left.status, left.claim) == (ImportStatus.RUNNING, "another-worker")
    assert PointsEntry.objects.count() == 0
    assert not AuditEvent.objects.filter(action__in=["import.completed", "import.rejected"]).exists()


def test_a_worker_that_lost_its_job_leaves_the_progress_bar_to_the_new_worker(job, monkeypatch):
    monkeypatch.setattr("members.imports.CHUNK_ROWS", 1)
    beat = services._import_job_beat
    beats = []

    def taken_over_before_the_second_chunk(job_, claim):
        beats.append(claim)
        if len(beats) == 2:  # meanwhile the job was re-queued and a new worker is at 3%
            ImportJob.objects.filter(pk=job.pk).update(claim="another-worker")
            cache.set(services._progress_key(job.pk), {"rows": 0, "percent": 3})
        beat(job_, claim)

    monkeypatch.setattr(services, "_import_job_beat", taken_over_before_the_second_chunk)
    assert import_job_run(job_id=job.pk, actor=SYSTEM).status == ImportStatus.RUNNING
    assert len(beats) == 2
    assert services.import_job_progress(job) == {"rows": 0, "percent": 3}


def test_the_import_page_says_the_worker_stopped(job, manager):
    abandon(job, at=T0)
    url = reverse("members:import_progress", args=[job.pk])
    with time_machine.travel(JUST_FRESH, tick=False):
        assert "The worker stopped" not in manager.get(url).text
    with time_machine.travel(JUST_STALE, tick=False):
        assert "The worker stopped during this import: it has not reported since 12:00:00" in manager.get(url).text
        import_jobs_fail_stale()
        page = manager.get(reverse("members:import_detail", args=[job.pk])).text
    assert "it will start again from the beginning as soon as a worker is free" in page
