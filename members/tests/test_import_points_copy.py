"""Points files on PostgreSQL (issue 17, item 3): rows in the plain form go to the staging table
as they are, through COPY; every other row is parsed by parse_points_row as before. Whatever the
route, a row lands as parse_points_row reads it and a bad row is named in its words. And the
ledger, without per-row foreign keys, still refuses unknown members and protects its members."""

import datetime as dt

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.audit import Actor
from core.tests.test_audit_role import as_app_role
from members.imports import (
    POINTS_COLUMNS,
    Lookups,
    RowInvalid,
    _points_skip_imported,
    parse_points_row,
    points_file_is_plain,
)
from members.models import ImportStatus, Member, PointsEntry
from members.tests.factories import MemberFactory
from members.tests.test_imports import errors_of, points_file, run_import

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's COPY route")


def oracle(lines: list[str]) -> tuple[set, list]:
    """What parse_points_row makes of each row (the reading before issue 17): the rows it
    accepts, as ledger values, and the (line, message) of those it refuses."""
    lookups, now = Lookups.load(points_importer=Actor.system("test")), timezone.now()
    good, bad = set(), []
    for line, text in enumerate(lines, start=2):
        try:
            p = parse_points_row(line, dict(zip(POINTS_COLUMNS, text.split(","), strict=True)), lookups, now)
        except RowInvalid as invalid:
            bad.append((line, str(invalid)))
        else:
            good.add((p.property_id, p.earned_at, p.points, p.reference))
    return good, bad


def ledger() -> set:
    return set(PointsEntry.objects.values_list("property_id", "earned_at", "points", "reference"))


# Plain rows, and rows the plain form leaves to parse_points_row (spaces, names, other
# spellings of a time, a fraction, an offset, a non-ASCII reference, the 29th of a leap year).
VALID = [
    "3000000001,GRC,2026-10-01 10:15:00,250,CMS-1",
    "3000000001,grc,2026-10-01 23:59:59,5,CMS-2",
    "3000000001,Golden Horse,2026-10-02 00:00:00,40,CMS-1",
    " 3000000001 , GRC ,2026-10-01 10:15:00, 7 , CMS-3 ",
    "3000000001,GRC,2026-10-01T10:15:00+00:00,8,CMS-4",
    "3000000001,GRC,2026-10-01,9,CMS-5",
    "3000000001,GRC,2026-10-01 10:15:00,007,CMS-6",
    "3000000001,GRC,2026-10-01 10:15:00.5,3,CMS-7",
    "3000000001,GRC,2026-10-01 10:15,3,CMS-8",
    "3000000001,GRC,2026-10-01 10:15:00,3,CMS-é",
    "3000000001,GRC,2024-02-29 12:00:00,3,CMS-9",
    "3000000001,GRC,2000-01-01 02:00:00,1,CMS-10",  # midnight UTC: the first moment allowed
    "3000000001,GRC,2026-10-01 10:15:00,999999999," + "R" * 64,
]


def test_every_row_lands_as_parse_points_row_reads_it(reference_data):
    MemberFactory(card_number="3000000001")
    text = points_file(*VALID)
    assert points_file_is_plain_text(text)
    job = run_import("points", text)
    assert (job.status, job.rows_imported, job.error_count) == (ImportStatus.SUCCEEDED, len(VALID), 0)
    good, bad = oracle(VALID)
    assert bad == [] and ledger() == good


def test_a_quoted_file_is_read_row_by_row_and_lands_the_same(reference_data):
    MemberFactory(card_number="3000000001")
    rows = [*VALID[:3], '3000000001,GRC,2026-10-01 10:15:00,3,"CMS,11"']
    text = points_file(*rows)
    assert not points_file_is_plain_text(text)
    job = run_import("points", text)
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 4)
    good, _ = oracle(VALID[:3])
    quoted = (reference_data["properties"]["GRC"].pk, dt.datetime(2026, 10, 1, 8, 15, tzinfo=dt.UTC), 3, "CMS,11")
    assert ledger() == good | {quoted}


def test_rows_that_look_plain_but_are_not_are_refused_in_parse_points_rows_words(reference_data):
    MemberFactory(card_number="3000000001")
    future = timezone.localtime() + dt.timedelta(days=2)
    rows = [
        "3000000001,GRC,2026-02-29 10:00:00,5,R1",  # not a leap year
        "3000000001,GRC,2026-04-31 10:00:00,5,R2",
        "3000000001,GRC,2026-13-01 10:00:00,5,R3",
        f"3000000001,GRC,{future:%Y-%m-%d %H:%M:%S},5,R4",
        "3000000001,GRC,2000-01-01 01:59:59,5,R5",  # 1999 in UTC
        "3000000001,GRC,2026-10-01 10:00:00,0,R6",
        "3000000001,GRC,2026-10-01 10:00:00,000,R7",
        "3000000001,GRC,2026-10-01 10:00:00,1234567890,R8",
        "3000000001,GRC,2026-10-01 10:00:00,5,",
        "3000000001,GRC,2026-10-01 10:00:00,5," + "R" * 65,
        "30000,GRC,2026-10-01 10:00:00,5,R9",
        "3000000001,XYZ,2026-10-01 10:00:00,5,R10",
        "3000000001,GRC,2026-10-01 10:00:00,5,R11",  # good, but the file is rejected
    ]
    job = run_import("points", points_file(*rows))
    _, bad = oracle(rows)
    assert len(bad) == len(rows) - 1
    assert job.status == ImportStatus.FAILED and errors_of(job) == bad
    assert PointsEntry.objects.count() == 0


def test_unknown_cards_twice_in_the_file_and_already_imported_are_told_apart(reference_data):
    MemberFactory(card_number="3000000001")
    first = run_import("points", points_file("3000000001,GRC,2026-10-01 10:00:00,5,OLD"))
    assert first.status == ImportStatus.SUCCEEDED
    rows = [
        "3000000001,GRC,2026-10-01 10:00:00,5,OLD",  # in the ledger: skipped...
        "3000000001,GRC,2026-10-01 10:00:00,5,OLD",  # ...however often
        "3000000001,GRC,2026-10-01 10:00:00,5,NEW",
        "3000000009,GRC,2026-10-01 10:00:00,5,NEW",  # unknown card
        "3000000001,GRC,2026-10-01 10:00:00,5,NEW",  # twice
        "3000000001,GH,2026-10-01 10:00:00,5,NEW",  # another property: not twice
    ]
    job = run_import("points", points_file(*rows))
    assert errors_of(job) == [
        (5, "unknown card number 3000000009"),
        (6, "reference NEW appears twice in this file for GRC"),
    ]
    assert PointsEntry.objects.count() == 1
    # Without the bad rows: the new ones land once, the old one is skipped.
    job = run_import("points", points_file(*rows[:3], rows[5]))
    assert (job.status, job.rows_imported, job.rows_skipped) == (ImportStatus.SUCCEEDED, 2, 2)
    # A duplicate alone (no unknown card, no row bad on reading) is found by the counts.
    job = run_import("points", points_file("3000000001,GRC,2026-10-01 10:00:00,5,X", "3000000001,GRC,2026-10-01,6,X"))
    assert errors_of(job) == [(3, "reference X appears twice in this file for GRC")]
    assert not PointsEntry.objects.filter(reference="X").exists()


def points_file_is_plain_text(text: str) -> bool:
    import io

    return points_file_is_plain(io.BytesIO(text.encode()))


def test_the_ledger_refuses_points_of_no_member_and_keeps_a_member_with_points(reference_data):
    member = MemberFactory(card_number="3000000001")
    grc = reference_data["properties"]["GRC"]
    values = {"property": grc, "earned_at": timezone.now(), "points": 5}
    with pytest.raises(IntegrityError, match="member 987654321 does not exist"), transaction.atomic():
        PointsEntry.objects.create(member_id=987654321, reference="A", **values)
    with pytest.raises(IntegrityError, match="property"), transaction.atomic():
        PointsEntry.objects.create(member=member, reference="A", **{**values, "property_id": 987654321})
    with pytest.raises(IntegrityError, match="import job"), transaction.atomic():
        PointsEntry.objects.create(member=member, reference="A", import_job_id=987654321, **values)
    entry = PointsEntry.objects.create(member=member, reference="A", **values)
    with pytest.raises(IntegrityError, match="members_pointsentry"), transaction.atomic():
        PointsEntry.objects.filter(pk=entry.pk).update(member_id=987654321)
    for table, pk in (("members_member", member.pk), ("members_property", grc.pk)):
        raises = pytest.raises(IntegrityError, match="still has points")
        with raises, transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {table} WHERE id = %s", [pk])  # noqa: S608
    assert Member.objects.filter(pk=member.pk).exists()
    entry.delete()
    Member.objects.filter(pk=member.pk).delete()  # without points it may go


def test_a_statement_of_many_rows_with_one_of_no_member_is_refused_whole(reference_data):
    """Migration 0020 plans the member check for the statement's size (a merge or hash anti-join
    for thousands of rows, not one look-up a row): it still finds the one missing member."""
    member = MemberFactory(card_number="3000000001")
    grc = reference_data["properties"]["GRC"]
    insert = (
        "INSERT INTO members_pointsentry (member_id, property_id, earned_at, points, reference)"
        " SELECT CASE WHEN g = 3000 THEN 987654321 ELSE %s END, %s, now(), 5, 'R' || g FROM generate_series(1, 5000) g"
    )
    refused = pytest.raises(IntegrityError, match="member 987654321 does not exist")
    with refused, as_app_role() as cursor:  # as the application's own role, which writes the ledger
        cursor.execute(insert, [member.pk, grc.pk])
    assert not PointsEntry.objects.exists()


def test_the_control_without_the_statement_trigger_points_of_no_member_get_in(reference_data):
    """What refuses them is the trigger: no foreign key does any more."""
    grc = reference_data["properties"]["GRC"]
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE members_pointsentry DISABLE TRIGGER members_points_refs_insert")
    PointsEntry.objects.create(member_id=987654321, property=grc, earned_at=timezone.now(), points=5, reference="A")
    assert PointsEntry.objects.filter(member_id=987654321).exists()


def ledger_inserts(queries) -> list[bool]:
    """For each statement that inserted into the ledger: whether it had ON CONFLICT."""
    return ["ON CONFLICT" in q["sql"] for q in queries if 'INSERT INTO "members_pointsentry"' in q["sql"]]


def test_a_re_import_is_one_insert_that_skips_the_references_already_there(reference_data):
    MemberFactory(card_number="3000000001")
    rows = ["3000000001,GRC,2026-10-01 10:00:00,5,A", "3000000001,GRC,2026-10-01 11:00:00,6,B"]
    with CaptureQueriesContext(connection) as first:
        job = run_import("points", points_file(*rows))
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 2)
    assert ledger_inserts(first.captured_queries) == [False]
    with CaptureQueriesContext(connection) as again:
        job = run_import("points", points_file(*rows, "3000000001,GRC,2026-10-01 12:00:00,7,C"))
    assert (job.status, job.rows_imported, job.rows_skipped) == (ImportStatus.SUCCEEDED, 1, 2)
    assert ledger_inserts(again.captured_queries) == [False]  # no savepoint, no second statement
    assert sorted(PointsEntry.objects.values_list("reference", "points")) == [("A", 5), ("B", 6), ("C", 7)]


def test_a_reference_in_the_ledger_is_skipped_whatever_its_earned_at(reference_data):
    """The unique index holds earned_at (the partition key): the anti-join keeps the rest out."""
    MemberFactory(card_number="3000000001")
    run_import("points", points_file("3000000001,GRC,2026-10-01 10:00:00,5,A"))
    job = run_import("points", points_file("3000000001,GRC,2026-11-03 10:00:00,6,A", "3000000001,GRC,2026-11-03,7,B"))
    assert (job.status, job.rows_imported, job.rows_skipped) == (ImportStatus.SUCCEEDED, 1, 1)
    assert sorted(PointsEntry.objects.values_list("reference", "points")) == [("A", 5), ("B", 7)]


def test_the_control_without_the_anti_join_a_reference_gets_in_twice(reference_data, monkeypatch):
    from members import imports

    assert "NOT EXISTS" in _points_skip_imported()
    monkeypatch.setattr(imports, "_points_skip_imported", lambda: "")
    MemberFactory(card_number="3000000001")
    run_import("points", points_file("3000000001,GRC,2026-10-01 10:00:00,5,A"))
    job = run_import("points", points_file("3000000001,GRC,2026-11-03 10:00:00,6,A"))
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 1)
    assert PointsEntry.objects.filter(reference="A").count() == 2


def test_a_file_makes_its_months_and_takes_over_their_rows_from_the_default_partition(reference_data):
    member = MemberFactory(card_number="3000000001")
    grc = reference_data["properties"]["GRC"]
    PointsEntry.objects.create(
        member=member, property=grc, earned_at=dt.datetime(2021, 3, 5, tzinfo=dt.UTC), points=4, reference="OLD"
    )
    job = run_import("points", points_file("3000000001,GRC,2021-03-20 10:00:00,5,A", "3000000001,GRC,2021-04-01,6,B"))
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 2)
    with connection.cursor() as cursor:
        cursor.execute("SELECT reference, tableoid::regclass::text FROM members_pointsentry ORDER BY reference")
        # 2021-04-01 local (Johannesburg) is still March in UTC, the months' time zone.
        assert cursor.fetchall() == [
            ("A", "members_pointsentry_2021_03"),
            ("B", "members_pointsentry_2021_03"),
            ("OLD", "members_pointsentry_2021_03"),
        ]


def test_the_months_made_are_those_of_the_rows_in_utc_and_no_others(reference_data):
    """The reader collects them as it reads (PointsReader.months): the staged rows are not read again."""
    MemberFactory(card_number="3000000001")
    rows = [
        "3000000001,GRC,2019-08-01 01:59:59,5,A",  # plain, local: 31 July in UTC
        "3000000001,GRC,2019-09-01 02:00:00,6,B",  # plain, local: 1 September in UTC
        "3000000001,GRC,2019-11-01T00:30:00+00:00,7,C",  # parsed: its own offset
    ]
    job = run_import("points", points_file(*rows))
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 3)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            " WHERE i.inhparent = 'members_pointsentry'::regclass AND c.relname LIKE 'members_pointsentry_2019%%'"
        )
        made = {name for (name,) in cursor.fetchall()}
    assert made == {"members_pointsentry_2019_07", "members_pointsentry_2019_09", "members_pointsentry_2019_11"}
