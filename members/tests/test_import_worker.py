"""CSV imports run by a real Celery worker over Redis, from the service and from the web."""

import csv
import datetime as dt
import io
import time

import pytest
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from core.audit import Actor
from core.models import AuditEvent
from core.roles import PROMOTIONS_MANAGER
from members.imports import MEMBER_COLUMNS
from members.models import ImportJob, ImportRowError, ImportStatus, Member
from members.services import import_job_create
from members.tasks import import_job_run_task
from members.tests.factories import sa_id_for
from testing.worker import celery_worker_fixture, celery_worker_process_fixture  # noqa: F401

pytestmark = pytest.mark.worker

GOOD_ROWS = [
    ["100000101", "Thabo", "Nkosi", "sa_id", sa_id_for(dt.date(1980, 3, 14), 5101), "", "Ten", "GRC", "", "", ""],
    [
        "100000102",
        "Lerato",
        "Mokoena",
        "sa_id",
        sa_id_for(dt.date(1991, 7, 2), 1102),
        "1991-07-02",
        "Queen",
        "MC",
        "+27 82 555 0102",
        "lerato@example.co.za",
        "2025-01-15",
    ],
    ["100000103", "Johan", "Botha", "sa_id", sa_id_for(dt.date(1965, 11, 30), 5103), "", "Ace", "GH", "", "", ""],
]


def members_csv(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(MEMBER_COLUMNS)
    writer.writerows(rows)
    return buffer.getvalue().encode()


def queue_import(user, content: bytes) -> ImportJob:
    job = import_job_create(actor=Actor.for_user(user), kind="members", file=ContentFile(content), name="m.csv")
    import_job_run_task.delay(job.pk)
    return job


def finished(job: ImportJob):
    def probe():
        job.refresh_from_db()
        return job.is_finished and job

    return probe


def test_a_valid_file_is_imported_by_the_worker(celery_worker, reference_data, user_for):
    manager = user_for(PROMOTIONS_MANAGER)
    job = queue_import(manager, members_csv(GOOD_ROWS))

    celery_worker.wait_for(finished(job), f"import #{job.pk} to finish on the worker")

    assert job.status == ImportStatus.SUCCEEDED, job.message
    assert (job.rows_total, job.rows_imported, job.error_count) == (3, 3, 0)
    assert set(Member.objects.values_list("card_number", flat=True)) == {"100000101", "100000102", "100000103"}
    lerato = Member.objects.select_related("tier", "home_property").get(card_number="100000102")
    assert (lerato.full_name, lerato.tier.code, lerato.home_property.code) == ("Lerato Mokoena", "QUEEN", "MC")
    assert lerato.date_of_birth == dt.date(1991, 7, 2)
    completed = AuditEvent.objects.get(action="import.completed", object_id=str(job.pk))
    assert completed.actor_label == manager.username
    assert completed.data["imported"] == 3
    # The worker's progress reached this process through the shared Redis cache.
    assert cache.get(f"import-progress:{job.pk}") == {"rows": 3, "percent": 100}


def test_a_file_with_a_bad_row_is_rejected_by_the_worker(celery_worker, reference_data, user_for):
    bad = [*GOOD_ROWS[1][:6], "Platinum", *GOOD_ROWS[1][7:]]
    job = queue_import(user_for(PROMOTIONS_MANAGER), members_csv([GOOD_ROWS[0], bad, GOOD_ROWS[2]]))

    celery_worker.wait_for(finished(job), f"import #{job.pk} to finish on the worker")

    assert job.status == ImportStatus.FAILED
    assert job.rows_total == 3
    assert job.rows_imported == 0
    assert "1 bad row: nothing was imported" in job.message
    errors = list(ImportRowError.objects.filter(job=job).values_list("line", "message"))
    assert [line for line, _ in errors] == [3]  # the header is line 1
    assert "unknown tier 'Platinum'" in errors[0][1]
    assert not Member.objects.exists()  # the good rows were rolled back with the bad one
    assert AuditEvent.objects.filter(action="import.rejected", object_id=str(job.pk)).exists()
    assert not AuditEvent.objects.filter(action="import.completed").exists()


def test_an_upload_through_the_web_is_run_by_the_worker(celery_worker, reference_data, client_for):
    manager = client_for(PROMOTIONS_MANAGER)
    upload = SimpleUploadedFile("members.csv", members_csv(GOOD_ROWS), content_type="text/csv")

    response = manager.post(reverse("members:imports"), {"kind": "members", "file": upload})

    assert response.status_code == 302
    job = ImportJob.objects.get()
    assert response.url == reverse("members:import_detail", args=[job.pk])
    progress_url = reverse("members:import_progress", args=[job.pk])
    polls = []

    def refreshed():
        time.sleep(0.2)  # the page polls every second; a little slower than the probe loop is plenty
        progress = manager.get(progress_url)
        assert progress.status_code == 200
        polls.append(progress)
        return progress.headers.get("HX-Refresh") == "true" and progress

    last = celery_worker.wait_for(refreshed, f"the progress of import #{job.pk} to ask for a refresh")

    assert 'id="progress"' in last.text
    assert "Imported" in last.text and "100%" in last.text
    assert "hx-get" not in last.text  # a finished job stops polling
    job.refresh_from_db()
    assert job.status == ImportStatus.SUCCEEDED, job.message
    assert Member.objects.count() == 3
    detail = manager.get(reverse("members:import_detail", args=[job.pk]))
    assert detail.status_code == 200
    assert "Imported 3 of 3 rows." in detail.text
    assert 'id="import-result"' in detail.text
