"""The same file uploaded twice at once (issue 6, 3.4): both jobs stage their rows, then
apply one after the other; the second skips what the first imported, or names the rows the
first took. Nobody reads database text.

Each race has its control, which switches the protection off and sees the raw failure: proof
that the two jobs really do collide on the same rows here. For points the protection is the
skip of references already in the ledger; for members, the check for rows another import took,
made under the apply lock (the lock alone turns no race into an error the manager sees: without
it, the insert's own unique violation is caught and the rows named just the same)."""

import threading

import pytest
from django.core.files.base import ContentFile
from django.db import connection

from core.audit import Actor
from members import imports, services
from members.models import ImportJob, ImportStatus, Member, PointsEntry
from members.services import UNEXPECTED_IMPORT_ERROR, import_job_create, import_job_run
from members.tests.factories import MemberFactory
from members.tests.test_imports import MEMBERS_HEADER, member_line, points_file

pytestmark = pytest.mark.django_db(transaction=True)

SYSTEM = Actor.system("test")


def run_both_at_once(kind: str, text: str, monkeypatch) -> tuple[list[ImportJob], list[Exception]]:
    """Two jobs of the same file, each on its own thread and connection; both have staged
    every row before either applies (the barrier), the interleaving that broke. The jobs as
    they ended, and what the runs raised."""
    jobs = [
        import_job_create(actor=SYSTEM, kind=kind, file=ContentFile(text.encode()), name=f"{n}.csv") for n in (1, 2)
    ]
    both_staged = threading.Barrier(2, timeout=30)
    waited = set()

    def after_both_staged(apply):
        def wrapper(*args, **kwargs):
            if threading.get_ident() not in waited:  # a job's first step to apply, whichever it is
                waited.add(threading.get_ident())
                both_staged.wait()
            return apply(*args, **kwargs)

        return wrapper

    # A plain members file first tries the one statement that checks and inserts it all.
    for step in ("_import_apply", "_members_apply_checked"):
        monkeypatch.setattr(services, step, after_both_staged(getattr(services, step)))
    done, failures = {}, []

    def run(job_id):
        try:
            done[job_id] = import_job_run(job_id=job_id, actor=SYSTEM)
        except Exception as error:
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(job.pk,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return [done.get(job.pk) or ImportJob.objects.get(pk=job.pk) for job in jobs], failures


def raw_database_errors(failures: list[Exception]) -> list[str]:
    return [str(error) for error in failures if "duplicate key value violates unique constraint" in str(error)]


def test_the_second_of_two_identical_points_files_skips_what_the_first_imported(reference_data, monkeypatch):
    MemberFactory(card_number="3000000001")
    text = points_file(*(f"3000000001,GRC,2026-10-01,{n},CMS-{n}" for n in range(1, 8)))

    jobs, failures = run_both_at_once("points", text, monkeypatch)

    assert failures == []
    assert [job.status for job in jobs] == [ImportStatus.SUCCEEDED] * 2
    assert sorted((job.rows_imported, job.rows_skipped) for job in jobs) == [(0, 7), (7, 0)]
    assert PointsEntry.objects.count() == 7


def test_the_second_of_two_identical_members_files_names_every_row_the_first_took(reference_data, monkeypatch):
    text = "\n".join([MEMBERS_HEADER, member_line("2000000001"), member_line("2000000002")])

    jobs, failures = run_both_at_once("members", text, monkeypatch)
    jobs.sort(key=lambda job: job.status)

    assert failures == []
    assert [job.status for job in jobs] == [ImportStatus.FAILED, ImportStatus.SUCCEEDED]
    assert list(jobs[0].row_errors.values_list("line", "message")) == [
        (2, "card number 2000000001 already belongs to a member"),
        (3, "card number 2000000002 already belongs to a member"),
    ]
    assert "nothing was imported" in jobs[0].message and "duplicate key" not in jobs[0].message
    assert Member.objects.count() == 2


def test_without_skipping_imported_references_the_second_points_file_hits_the_unique_index(reference_data, monkeypatch):
    """The control of the points race."""
    monkeypatch.setattr(imports, "_points_skip_imported", lambda: "")
    MemberFactory(card_number="3000000001")
    text = points_file(*(f"3000000001,GRC,2026-10-01,{n},CMS-{n}" for n in range(1, 8)))

    jobs, failures = run_both_at_once("points", text, monkeypatch)
    jobs.sort(key=lambda job: job.status)

    assert len(raw_database_errors(failures)) == 1
    assert [job.status for job in jobs] == [ImportStatus.FAILED, ImportStatus.SUCCEEDED]
    assert jobs[0].message == UNEXPECTED_IMPORT_ERROR.format(job_id=jobs[0].pk)  # still no database text shown
    assert PointsEntry.objects.count() == 7


def test_without_the_check_for_taken_rows_the_second_members_file_hits_the_unique_index(reference_data, monkeypatch):
    """The control of the members race."""
    monkeypatch.setattr(services, "members_conflicts", lambda job_id: iter(()))
    text = "\n".join([MEMBERS_HEADER, member_line("2000000001"), member_line("2000000002")])

    jobs, failures = run_both_at_once("members", text, monkeypatch)
    jobs.sort(key=lambda job: job.status)

    assert len(raw_database_errors(failures)) == 1
    assert [job.status for job in jobs] == [ImportStatus.FAILED, ImportStatus.SUCCEEDED]
    assert list(jobs[0].row_errors.all()) == []  # no row named: the manager learns nothing useful
    assert Member.objects.count() == 2
