"""Whatever is in the file, a bad row is reported by its line and the memory stays bounded
(issue 6, 2.7 and 3.4-3.5): NUL characters, undecodable text, impossible dates, huge lines."""

import datetime as dt
import tracemalloc

import pytest
import time_machine
from django.core.files import File

from core.audit import Actor
from members.imports import MAX_LINE_CHARS
from members.models import ImportStatus, Member, PointsEntry
from members.services import import_job_create, import_job_run
from members.tests.factories import MemberFactory
from members.tests.test_imports import MEMBERS_HEADER, errors_of, member_line, points_file, run_import

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 11, 2, 10, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def _pinned_clock():
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def member(reference_data):
    return MemberFactory(card_number="3000000001")


def members_file(*lines: str) -> str:
    return "\n".join([MEMBERS_HEADER, *lines]) + "\n"


def test_a_nul_character_in_a_name_is_a_bad_row_with_its_line(reference_data):
    lines = [member_line(f"20000000{n:02d}") for n in range(1, 6)] + [member_line("2000000006", first_name="Re\x00f")]
    job = run_import("members", members_file(*lines))
    assert job.status == ImportStatus.FAILED
    assert errors_of(job) == [(7, "first_name contains a NUL character")]
    assert Member.objects.count() == 0


def test_nul_characters_in_points_fields_are_named_by_column(member):
    job = run_import("points", points_file("3000000001,GRC,2026-10-01,5,R1", "300000\x000001,GRC,2026-10-01,5,R\x002"))
    assert errors_of(job) == [(3, "card_number contains a NUL character; reference contains a NUL character")]


@pytest.mark.parametrize(
    ("bad", "byte"), [(b"\xed\xa0\x80", "0xED"), ("Zo\u00eb".encode("latin-1"), "0xEB")], ids=["surrogate", "latin-1"]
)
def test_undecodable_text_is_a_bad_row_with_its_line(reference_data, bad, byte):
    content = members_file(member_line("2000000001"), member_line("2000000002", last_name="MARK")).encode()
    job = run_import("members", content.replace(b"MARK", bad))
    assert job.status == ImportStatus.FAILED
    [(line, message)] = errors_of(job)
    assert line == 3 and message.startswith(f"not UTF-8 text (byte {byte} at position")
    assert "save the file as CSV UTF-8" in message


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("3000000001,GRC,0001-01-01,5,R", "earned_at 0001-01-01 is before 2000"),
        ("3000000001,GRC,0001-01-01 00:00:00+14:00,5,R", "is before 2000"),
        ("3000000001,GRC,9999-12-31 23:59:59,5,R", "is in the future"),
    ],
)
def test_a_points_row_from_an_impossible_time_is_a_bad_row(member, row, message):
    job = run_import("points", points_file(row))
    assert job.status == ImportStatus.FAILED and message in errors_of(job)[0][1]
    assert PointsEntry.objects.count() == 0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"id_type": "passport", "date_of_birth": "0001-01-01"}, "date_of_birth 0001-01-01 must be between 1900-01-01"),
        ({"app_registered_on": "9999-12-31"}, "app_registered_on 9999-12-31 must be between 1900-01-01 and today"),
    ],
)
def test_a_members_row_with_an_impossible_date_is_a_bad_row(reference_data, fields, message):
    line = member_line("2000000001", id_number="A1234567" if "id_type" in fields else None, **fields)
    job = run_import("members", members_file(line))
    assert message in errors_of(job)[0][1]


def test_a_line_longer_than_the_limit_rejects_the_file_with_its_number(member):
    long_reference = "R" * (MAX_LINE_CHARS + 1)
    job = run_import(
        "points", points_file("3000000001,GRC,2026-10-01,5,R1", f"3000000001,GRC,2026-10-01,5,{long_reference}")
    )
    assert job.status == ImportStatus.FAILED
    assert job.message == "Line 3 is longer than 65,536 characters: this is not a points file."


def test_a_quoted_field_spanning_many_lines_counts_as_one_long_row(member):
    field = "\n".join(["x" * 1000] * 70)  # 70 short lines, one field of 70,069 characters
    job = run_import("points", points_file(f'3000000001,GRC,2026-10-01,5,"{field}"'))
    assert job.status == ImportStatus.FAILED and "is longer than 65,536 characters" in job.message


def test_a_row_just_within_the_limit_is_read(member):
    job = run_import("points", points_file(f"3000000001,GRC,2026-10-01,5,R1{' ' * (MAX_LINE_CHARS - 40)}"))
    assert job.status == ImportStatus.SUCCEEDED, job.message


def test_a_16_mb_file_of_one_line_is_rejected_in_bounded_memory(reference_data, tmp_path):
    """The shape that peaked at 518 MB: no line ends, so reading "a line" read the file."""
    path = tmp_path / "one-line.csv"
    with path.open("wb") as out:
        out.write(b"card_number,")
        for _ in range(16):
            out.write(b"9" * 2**20)
    with path.open("rb") as handle:
        job = import_job_create(
            actor=Actor.system("test"), kind="points", file=File(handle, name="x.csv"), name="x.csv"
        )

    tracemalloc.start()
    try:
        job = import_job_run(job_id=job.pk, actor=Actor.system("test"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert job.message == "Line 1 is longer than 65,536 characters: this is not a points file."
    assert peak < 4 * 2**20, f"reading the file took {peak / 2**20:.1f} MB"
