"""Rejected uploads are kept IMPORT_KEEP_REJECTED_DAYS, then deleted; the job and its error
report stay (issue 6, 3.5)."""

import datetime as dt
from pathlib import Path

import pytest
from django.urls import reverse

from core.models import AuditEvent
from members.models import ImportJob, ImportStatus
from members.services import import_files_purge
from members.tests.test_imports import MEMBERS_HEADER, member_line, run_import

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 11, 30, 10, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    settings.IMPORT_KEEP_REJECTED_DAYS = 30


def finished(status_line: str, *, days_ago: float) -> ImportJob:
    job = run_import("members", f"{MEMBERS_HEADER}\n{status_line}\n")
    ImportJob.objects.filter(pk=job.pk).update(finished_at=NOW - dt.timedelta(days=days_ago))
    job.refresh_from_db()
    return job


def test_a_rejected_upload_is_deleted_after_the_days_it_is_kept(reference_data, django_capture_on_commit_callbacks):
    old = finished(member_line(tier="Gold"), days_ago=30.01)
    recent = finished(member_line("2000000002", tier="Gold"), days_ago=29.99)
    imported = finished(member_line("2000000003"), days_ago=90)
    assert (old.status, imported.status) == (ImportStatus.FAILED, ImportStatus.SUCCEEDED)
    stored = Path(old.file.path)
    assert stored.exists()

    with django_capture_on_commit_callbacks(execute=True):
        assert import_files_purge(now=NOW) == 1

    assert not stored.exists()
    old.refresh_from_db()
    assert (old.file.name, old.file_purged_at, old.error_count) == ("", NOW, 1)
    assert old.row_errors.count() == 1  # the error report stays
    assert Path(recent.file.path).exists() and Path(imported.file.path).exists()
    event = AuditEvent.objects.get(action="import.file_purged")
    assert event.object_id == str(old.pk) and event.data["kept_days"] == 30
    assert import_files_purge(now=NOW) == 0


def test_the_page_of_a_purged_import_still_shows_its_errors(reference_data, manager):
    job = finished(member_line(tier="Gold"), days_ago=31)
    import_files_purge(now=NOW)
    page = manager.get(reverse("members:import_detail", args=[job.pk])).text
    assert "unknown tier" in page and "The uploaded file was deleted on 30 Nov 2026" in page
