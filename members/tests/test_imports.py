"""Imports are all or nothing per file, and every bad row is reported by its line."""

import datetime as dt
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.urls import reverse

from core.audit import Actor
from core.models import AuditEvent
from members import services
from members.imports import MEMBER_COLUMNS, POINTS_COLUMNS
from members.models import ImportJob, ImportRowError, ImportStatus, Member, PointsEntry
from members.services import import_job_create, import_job_run
from members.tests.factories import MemberFactory, sa_id_for
from testing.db import server_url

pytestmark = pytest.mark.django_db

MEMBERS_HEADER = ",".join(MEMBER_COLUMNS)
POINTS_HEADER = ",".join(POINTS_COLUMNS)


def member_line(card="2000000001", id_number=None, tier="Queen", prop="GRC", **kw):
    id_number = id_number or sa_id_for(dt.date(1984, 6, 1), int(card[-4:]))
    fields = {
        "first_name": "Refilwe",
        "last_name": "Molefe",
        "id_type": "sa_id",
        "date_of_birth": "",
        "phone": "+27 82 000 1111",
        "email": "r@example.co.za",
        "app_registered_on": "",
    } | kw
    names = [fields["first_name"], fields["last_name"], fields["id_type"]]
    rest = [fields["date_of_birth"], tier, prop, fields["phone"], fields["email"], fields["app_registered_on"]]
    return ",".join([card, *names, id_number, *rest])


def run_import(kind: str, text: str | bytes) -> ImportJob:
    content = text.encode() if isinstance(text, str) else text
    job = import_job_create(actor=Actor.system("test"), kind=kind, file=ContentFile(content), name=f"{kind}.csv")
    return import_job_run(job_id=job.pk, actor=Actor.system("test"))


def errors_of(job: ImportJob) -> list[tuple[int, str]]:
    return list(job.row_errors.values_list("line", "message"))


# --- members --------------------------------------------------------------------------------


def test_a_good_members_file_imports_every_row(reference_data):
    lines = [MEMBERS_HEADER, member_line("2000000001"), member_line("2000000002", tier="ace", prop="Golden Horse")]
    job = run_import("members", "\n".join(lines) + "\n")
    assert (job.status, job.rows_total, job.rows_imported, job.error_count) == (ImportStatus.SUCCEEDED, 2, 2, 0)
    second = Member.objects.get(card_number="2000000002")
    assert (second.tier.name, second.home_property.code, second.search_name) == ("Ace", "GH", "refilwe molefe")
    assert AuditEvent.objects.filter(action="import.completed", object_id=str(job.pk)).exists()


def test_a_members_file_with_one_bad_row_imports_nothing_and_names_every_bad_line(reference_data):
    lines = [
        MEMBERS_HEADER,
        member_line("2000000001"),
        member_line("2000000002", id_number="8001015009088"),  # line 3: bad check digit
        member_line("2000000003", tier="Diamond"),  # line 4
        member_line("2000000004", prop="Sun City"),  # line 5
        member_line("2000000001", id_number=sa_id_for(dt.date(1970, 1, 1), 9)),  # line 6: card repeated
        member_line("2000000007"),
    ]
    job = run_import("members", "\n".join(lines))
    assert job.status == ImportStatus.FAILED
    assert Member.objects.count() == 0
    errors = errors_of(job)
    assert [line for line, _ in errors] == [3, 4, 5, 6]
    assert "not a valid South African ID number" in errors[0][1]
    assert "unknown tier 'Diamond'" in errors[1][1] and "Ten, Jack, Queen, King, Ace" in errors[1][1]
    assert "unknown property 'Sun City'" in errors[2][1]
    assert "card number 2000000001 already belongs to a member" in errors[3][1]
    assert AuditEvent.objects.filter(action="import.rejected", object_id=str(job.pk)).exists()


def test_a_card_already_in_the_database_is_a_bad_row(reference_data):
    MemberFactory(card_number="2000000001")
    job = run_import("members", f"{MEMBERS_HEADER}\n{member_line('2000000001')}\n")
    assert errors_of(job) == [(2, "card number 2000000001 already belongs to a member")]


def test_a_row_with_several_problems_lists_them_all(reference_data):
    line = member_line("12", first_name="", email="not-an-email", app_registered_on="yesterday")
    job = run_import("members", f"{MEMBERS_HEADER}\n{line}\n")
    message = errors_of(job)[0][1]
    for part in ("card number '12'", "first_name is required", "email 'not-an-email'", "app_registered_on 'yesterday'"):
        assert part in message


def test_a_passport_row_needs_a_birth_date(reference_data):
    line = member_line("2000000001", id_type="passport", id_number="A1234567")
    assert "date_of_birth is required" in errors_of(run_import("members", f"{MEMBERS_HEADER}\n{line}\n"))[0][1]


def test_a_duplicate_card_far_apart_in_a_large_file_is_found(reference_data, monkeypatch):
    monkeypatch.setattr("members.imports.CHUNK_ROWS", 10)  # the two rows land in different chunks
    lines = [MEMBERS_HEADER] + [member_line(f"20000{n:05d}") for n in range(1, 40)] + [member_line("2000000005")]
    job = run_import("members", "\n".join(lines))
    assert errors_of(job) == [(41, "card number 2000000005 already belongs to a member")]
    assert Member.objects.count() == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "The file is empty"),
        (b"\n\n", "The file is empty"),
        (b"card,first,last\n1,2,3\n", "Line 1: wrong header. Expected: card_number,first_name"),
        (MEMBERS_HEADER.encode() + b"\n", "The file has a header but no rows."),
        ("card_number,Zoë".encode("latin-1"), "Line 1 is not UTF-8 text"),
    ],
)
def test_an_unreadable_members_file_is_rejected_with_the_reason(content, message, reference_data):
    job = run_import("members", content)
    assert job.status == ImportStatus.FAILED and message in job.message
    assert Member.objects.count() == 0


def test_a_short_row_is_reported_with_its_line(reference_data):
    job = run_import("members", f"{MEMBERS_HEADER}\n2000000001,Only,Three\n")
    assert errors_of(job) == [(2, "expected 11 columns, found 3")]


def test_an_excel_style_byte_order_mark_is_accepted(reference_data):
    job = run_import("members", ("\ufeff" + MEMBERS_HEADER + "\r\n" + member_line() + "\r\n").encode())
    assert job.status == ImportStatus.SUCCEEDED


# --- points ---------------------------------------------------------------------------------


@pytest.fixture
def member(reference_data):
    return MemberFactory(card_number="3000000001")


def points_file(*rows: str) -> str:
    return "\n".join([POINTS_HEADER, *rows]) + "\n"


def test_a_good_points_file_lands_in_the_ledger(member):
    job = run_import(
        "points", points_file("3000000001,GRC,2026-10-01 10:15:00,250,CMS-1", "3000000001,GH,2026-10-02,40,CMS-1")
    )
    assert job.status == ImportStatus.SUCCEEDED and job.rows_imported == 2
    entry = PointsEntry.objects.get(property__code="GRC")
    assert entry.points == 250 and entry.member == member
    # Times without an offset are Johannesburg time.
    assert entry.earned_at == dt.datetime(2026, 10, 1, 8, 15, tzinfo=dt.UTC)


def test_re_importing_a_points_file_adds_nothing_twice(member):
    text = points_file("3000000001,GRC,2026-10-01 10:15:00,250,CMS-1", "3000000001,GRC,2026-10-01 11:15:00,50,CMS-2")
    assert run_import("points", text).rows_imported == 2
    again = run_import("points", text + "3000000001,GRC,2026-10-01 12:00:00,10,CMS-3\n")
    assert (again.status, again.rows_imported, again.rows_skipped) == (ImportStatus.SUCCEEDED, 1, 2)
    assert PointsEntry.objects.count() == 3


def test_the_same_reference_twice_in_one_file_is_a_bad_row(member):
    job = run_import("points", points_file("3000000001,GRC,2026-10-01,1,X", "3000000001,GRC,2026-10-02,2,X"))
    assert errors_of(job) == [(3, "reference X appears twice in this file for GRC")]
    assert PointsEntry.objects.count() == 0


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("3000000001,GRC,2026-10-01,-5,R", "points '-5' must be a whole number above 0"),
        ("3000000001,GRC,2026-10-01,abc,R", "points 'abc' must be a whole number above 0"),
        ("3000000001,GRC,2026-10-01,12.5,R", "points '12.5' must be a whole number above 0"),
        ("3000000001,GRC,2026-10-01,0,R", "points must be above 0"),
        ("3000000001,GRC,01/10/2026,5,R", "earned_at '01/10/2026' is not a date and time"),
        ("3000000001,GRC,2999-01-01,5,R", "is in the future"),
        ("3000000001,XYZ,2026-10-01,5,R", "unknown property 'XYZ'"),
        ("3000000001,GRC,2026-10-01,5,", "reference is required"),
        ("9999999999,GRC,2026-10-01,5,R", "unknown card number 9999999999"),
    ],
)
def test_a_bad_points_row_rejects_the_file(row, message, member):
    job = run_import("points", points_file("3000000001,GRC,2026-10-01,5,GOOD", row))
    assert job.status == ImportStatus.FAILED
    assert errors_of(job)[0][0] == 3 and message in errors_of(job)[0][1]
    assert PointsEntry.objects.count() == 0


def test_every_bad_row_is_stored_a_batch_at_a_time(member, monkeypatch):
    """A million bad rows must not sit in memory at once on their way from the spool to the table."""
    monkeypatch.setattr(services, "ROW_ERROR_BATCH", 100)
    sizes = []
    bulk_create = ImportRowError.objects.bulk_create

    def measured(objs, *args, **kwargs):
        objs = list(objs)  # what bulk_create does with whatever it is given
        sizes.append(len(objs))
        return bulk_create(objs, *args, **kwargs)

    monkeypatch.setattr(ImportRowError.objects, "bulk_create", measured)
    job = run_import("points", points_file(*(f"9999999999,GRC,2026-10-01,5,R{n}" for n in range(250))))

    assert (job.status, job.error_count, job.row_errors.count()) == (ImportStatus.FAILED, 250, 250)
    assert errors_of(job)[-1] == (251, "unknown card number 9999999999")
    assert sizes == [100, 100, 50]


def test_a_wrong_points_header_is_rejected(member):
    job = run_import("points", "card,points\n3000000001,5\n")
    assert "wrong header" in job.message and PointsEntry.objects.count() == 0


def test_a_job_runs_once_even_if_the_task_is_delivered_twice(member):
    job = import_job_create(
        actor=Actor.system("test"),
        kind="points",
        file=ContentFile(points_file("3000000001,GRC,2026-10-01,5,R").encode()),
        name="p.csv",
    )
    first = import_job_run(job_id=job.pk, actor=Actor.system("test"))
    second = import_job_run(job_id=job.pk, actor=Actor.system("test"))
    assert first.status == second.status == ImportStatus.SUCCEEDED
    assert PointsEntry.objects.count() == 1
    assert AuditEvent.objects.filter(action="import.completed").count() == 1


_CHILD = """
import os, resource, sys
import django
django.setup()
from django.core.management import call_command
from django.core.management.base import CommandError
try:
    call_command(*sys.argv[1:])
except CommandError as error:
    print("REJECTED", error)
print("MAXRSS_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _run_child(*args: str) -> tuple[str, int]:
    """Run a management command in a fresh process on the test database; its peak memory."""
    env = {
        **os.environ,
        "APP_ENV": "test",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": server_url(connection.settings_dict),
    }
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, *args],
        env=env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return result.stdout, int(result.stdout.rsplit("MAXRSS_KB", 1)[1])


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_50_mb_points_file_streams_in_bounded_memory_and_reports_its_bad_row(reference_data, tmp_path):
    """Half a million rows with one bad row near the end: rejected whole, memory bounded."""
    MemberFactory(card_number="3000000001")
    path = tmp_path / "big.csv"
    with path.open("w") as out:
        out.write(POINTS_HEADER + "\n")
        line = 1
        while out.tell() < 50 * 2**20:
            line += 1
            if line == 400_000:
                out.write("3000000001,GRC,2026-10-01,-1,BAD\n")
            else:  # a transaction id as long as casino systems write them
                out.write(f"3000000001,GRC,2026-10-01 10:00:00,7,CMS-GRC-2026-10-01-SLOT-FLOOR-A-{line:012d}\n")
    assert path.stat().st_size >= 50 * 2**20

    _, baseline_kb = _run_child("check")
    out, import_kb = _run_child("import_points", str(path))

    job = ImportJob.objects.get()
    assert job.status == ImportStatus.FAILED and job.rows_total == line - 1
    assert errors_of(job) == [(400_000, "points '-1' must be a whole number above 0")]
    assert "REJECTED" in out
    assert PointsEntry.objects.count() == 0
    # Reading the file whole would cost far more than its 50 MB; streaming costs a few MB.
    grown_mb = (import_kb - baseline_kb) / 1024
    assert grown_mb < 40, f"the import grew to {grown_mb:.0f} MB above a bare Django process"


# --- commands and pages ---------------------------------------------------------------------


def test_import_points_command_imports_a_file(member, tmp_path, capsys):
    path = tmp_path / "points.csv"
    path.write_text(points_file("3000000001,GRC,2026-10-01,5,C1"))
    call_command("import_points", str(path))
    assert PointsEntry.objects.count() == 1
    assert "Imported 1 of 1 rows" in capsys.readouterr().out


def test_import_members_command_fails_with_every_bad_line(reference_data, tmp_path, capsys):
    path = tmp_path / "members.csv"
    path.write_text(f"{MEMBERS_HEADER}\n{member_line(tier='Gold')}\n{member_line('2000000009', prop='Nowhere')}\n")
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_members", str(path))
    err = capsys.readouterr().err
    assert "line 2: unknown tier 'Gold'" in err and "line 3: unknown property 'Nowhere'" in err
    assert Member.objects.count() == 0


def test_the_import_page_shows_a_rejected_file_line_by_line(manager, reference_data):
    job = run_import("members", f"{MEMBERS_HEADER}\n{member_line(tier='Gold')}\n")
    content = manager.get(reverse("members:import_detail", args=[job.pk])).content.decode()
    assert "Rejected: nothing was imported." in content and "unknown tier" in content
    csv_body = b"".join(manager.get(reverse("members:import_errors_csv", args=[job.pk])).streaming_content)
    assert csv_body.decode().splitlines()[1].startswith("2,")


def test_an_unexpected_failure_marks_the_job_failed_instead_of_leaving_it_running(member, monkeypatch, caplog):
    def explode(*args, **kwargs):
        raise RuntimeError("disk went away")

    monkeypatch.setattr("members.services.points_apply", explode)
    job = import_job_create(
        actor=Actor.system("test"),
        kind="points",
        file=ContentFile(points_file("3000000001,GRC,2026-10-01,5,R").encode()),
        name="p.csv",
    )
    with pytest.raises(RuntimeError):
        import_job_run(job_id=job.pk, actor=Actor.system("test"))
    job.refresh_from_db()
    assert job.status == ImportStatus.FAILED and "unexpected error; nothing was imported" in job.message
    # The manager never reads the program's own words; the log has them.
    assert "disk went away" not in job.message and "disk went away" in caplog.text
    assert PointsEntry.objects.count() == 0
