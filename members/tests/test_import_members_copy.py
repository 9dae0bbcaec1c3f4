"""Plain members files on PostgreSQL (issue 17, item 3): COPY to a staging table, the usual rows
checked and converted by one statement, the others parsed by parse_member_row as before. The
SQL is pinned against the Python rules on many rows and numbers, and a whole file gives what the
row-by-row path gives: the same members, or the same bad lines in the same words."""

import datetime as dt
import io
import random

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from stdnum.za import idnr

from members import services
from members.imports import (
    MEMBER_COLUMNS,
    ErrorSpool,
    FastCsvSource,
    ImportCounts,
    Lookups,
    RowInvalid,
    _has_odd_spaces,
    member_row_plain,
    members_checked,
    members_copy,
    members_read_plain,
    parse_member_row,
    sql_with_sa_id_born,
)
from members.models import ImportJob, ImportStatus, Member
from members.tests.factories import MemberFactory, sa_id_for
from members.tests.test_import_fast_path import _member_row, _sa_id
from members.tests.test_imports import MEMBERS_HEADER, member_line, run_import

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's COPY route")

TODAY = dt.date(2026, 11, 2)


@pytest.fixture(autouse=True)
def _pinned_clock():
    with time_machine.travel(dt.datetime(2026, 11, 2, 10, 0, tzinfo=dt.UTC), tick=False):
        yield


def test_every_whitespace_strip_removes_but_the_space_sends_the_line_to_python():
    for char in map(chr, range(0x110000)):
        if char.isspace() and char not in " \n\r":
            assert _has_odd_spaces(f"a,b{char}c,d".encode()), hex(ord(char))
    for cells in [" a,b", "a ,b", "a, b", "a,b ", "a,b\n c", "a \nb"]:
        assert _has_odd_spaces(cells.encode()), cells
    assert not _has_odd_spaces(b"1000000016,Naledi,van der Merwe,sa_id,,082 123 4567,\n2,a,b\n")


def test_the_sql_sa_id_check_agrees_with_stdnum_on_many_numbers(db):
    rng = random.Random(170)
    numbers = []
    for index in range(30_000):
        born = dt.date(1925, 1, 1) + dt.timedelta(days=rng.randrange(37_000))
        number = _sa_id(rng, born, rng.choice("0120"))
        kind = index % 5
        if kind == 1:  # a wrong check digit
            number = number[:12] + str((int(number[12]) + rng.randrange(1, 10)) % 10)
        elif kind == 2:  # any 13 digits: impossible dates, months 13-99 ...
            number = "".join(rng.choice("0123456789") for _ in range(13))
        elif kind == 3:  # 29 February, of leap and other years, and this year's last days
            number = _sa_id(rng, dt.date(2000, 2, 29), "0").replace("000229", f"{rng.randrange(100):02d}0229", 1)
        elif kind == 4:
            number = _sa_id(rng, dt.date(1926, 12, rng.randrange(1, 32)), "0")
        numbers.append(number)
    odd = ["", "12", "850615512308", "85061551230840", "85061551230\uff184", "8506155123O84", " 8506155123084"]
    with connection.cursor() as cursor:
        numbers_born = sql_with_sa_id_born("SELECT n FROM unnest(%s::text[]) n", "n", str(TODAY.year))
        cursor.execute(f"SELECT n, born FROM ({numbers_born}) b", [[*numbers, *odd]])  # noqa: S608
        answers = dict(cursor.fetchall())
    valid = 0
    for number in numbers:
        expected = idnr.get_birth_date(number) if idnr.is_valid(number) else None
        assert answers[number] == expected, number
        valid += expected is not None
    assert valid > 8_000  # a good share of valid numbers: both answers were compared
    assert [answers[number] for number in odd] == [None] * len(odd)  # not 13 ASCII digits: Python's


def _stage(job_id: int, lines: list[str]) -> ImportCounts:
    data = "\n".join([MEMBERS_HEADER, *lines]).encode() + b"\n"
    counts = ImportCounts()
    members_read_plain(io.BufferedReader(io.BytesIO(data)), job_id, ErrorSpool(), counts, members_copy)
    return counts


# Cells that the SQL must leave to Python, or refuse, as member_row_plain does: whitespace that
# strip() removes, other spellings, other scripts, 29 February, dates at the ends of the range.
ODD_CELLS = [
    ("first_name", [" Naledi", "Naledi\t", "\xa0Naledi", "Naledi\u2003", "Zoë", "Na\u2019ledi"]),
    ("tier", ["Queen", "QUEEN", "qUeen", "Q", "\uff31ueen", " Queen"]),
    ("property", ["GRC", "Grc", "gold reef city", "Gold Reef City", "GOLD REEF CITY", "MC"]),
    ("id_type", ["Sa_Id", "PASSPORT", "Driving Licence", "south african id", "ID", "Id"]),
    ("phone", ["082 123 4567 ", "0821234567", "082123456789", "+2782123456", "+27 82 123 4567", "0 82 123 4567"]),
    ("email", ["a@" + "b" * 60 + ".com", "a@" + "b" * 62 + ".com", "A.B+c@x-y.co.za", "a@b.c", "a@b-.com"]),
    ("app_registered_on", ["2024-02-29", "2023-02-29", "1900-01-01", "1899-12-31", "2026-11-02", "2026-11-03"]),
    ("app_registered_on", ["2026-04-31", "2026-06-30", "0000-01-01", "2026-1-02", "20260102", "2026-13-01"]),
    ("date_of_birth", ["1979-02-29", "1980-02-29", "1900-01-01", "2026-11-02", "2026-11-03", "1979-03-21 "]),
]


def test_the_sql_check_gives_what_member_row_plain_gives(reference_data):
    lookups = Lookups.load()
    rng = random.Random(4242)
    rows = []
    for index in range(4000):
        row = _member_row(rng, index)
        if index % 3 == 0:
            column, values = rng.choice(ODD_CELLS)
            row[column] = rng.choice(values)
        rows.append(row)
    _stage(1, [",".join(row[column] for column in MEMBER_COLUMNS) for row in rows])
    sql, params = members_checked(1, lookups, TODAY)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM ({sql}) c ORDER BY line", params)  # noqa: S608
        checked = cursor.fetchall()
    assert [line for line, *_ in checked] == list(range(2, len(rows) + 2))
    in_sql = 0
    for row, (_, ok, *values) in zip(rows, checked, strict=True):
        plain = member_row_plain(row, lookups, TODAY, TODAY.year)
        try:
            parse_member_row(row, lookups)
        except RowInvalid:
            assert not ok, row  # a bad row never passes the SQL
            continue
        if ok:
            in_sql += 1
            assert tuple(values) == plain, row  # the very values of the Python rules
    # The usual rows are checked in SQL (else it saves nothing); the odd ones are left to Python.
    in_python = sum(member_row_plain(row, lookups, TODAY, TODAY.year) is not None for row in rows)
    assert 0.6 * in_python < in_sql < in_python


def _both_ways(text: str, monkeypatch) -> tuple:
    """The job and its members through the COPY route, then (everything rolled back between)
    through the row-by-row route; the first never reads with FastCsvSource."""
    outcomes = []
    for copy_route in (True, False):
        with monkeypatch.context() as patch:
            if copy_route:
                patch.setattr(FastCsvSource, "__iter__", lambda self: pytest.fail("read row by row"))
            else:
                patch.setattr(services, "points_file_is_plain", lambda binary: False)
            before = set(Member.objects.values_list("pk", flat=True))
            job = run_import("members", text)
            added = Member.objects.exclude(pk__in=before).order_by("pk")
            columns = ["card_number", "first_name", "last_name", "search_name", "id_type", "id_number"]
            members = list(added.values_list(*columns, "date_of_birth", "phone", "email", "tier", "home_property"))
            outcomes.append((job.status, job.rows_total, job.rows_imported, job.message, rows_of(job), members))
            added.delete()
    return outcomes


def rows_of(job):
    return list(job.row_errors.values_list("line", "message", "text"))


def test_a_messy_plain_file_gives_the_row_by_row_verdict(reference_data, monkeypatch):
    MemberFactory(card_number="2000000900", id_number=sa_id_for(dt.date(1970, 5, 5), 77))
    lines = [
        member_line("2000000001"),
        member_line("2000000002", first_name=" Naledi ", tier="queen", prop="gold reef city"),  # odd, good
        member_line("2000000003", first_name="Zoë", phone="+44 20 7946 0958"),  # odd, good
        member_line("2000000004", id_number="8001015009088"),  # bad check digit
        "1,2,3",  # too few columns
        "",
        ",,,,,,,,,,",  # blank cells: no row
        "\xa0,,,,,,,,,,",  # blank too, whatever blank
        member_line("2000000001", id_number=sa_id_for(dt.date(1970, 1, 1), 9)),  # card earlier in the file
        member_line("2000000900"),  # card of a member
        member_line("2000000010", id_number=sa_id_for(dt.date(1970, 5, 5), 77)),  # number of a member
        member_line("2000000011", id_type="passport", id_number="a1234567", date_of_birth="1979-02-29"),
        member_line("2000000012", app_registered_on="2026-11-03"),  # future
        member_line("2000000013", email="x@y"),
    ]
    text = "\r\n".join([MEMBERS_HEADER, *lines]) + "\r\n"
    copy_route, row_by_row = _both_ways(text, monkeypatch)
    assert copy_route == row_by_row
    status, rows, _, message, errors, _ = copy_route
    assert (status, rows) == (ImportStatus.FAILED, 11) and "8 bad rows" in message
    assert [line for line, *_ in errors] == [5, 6, 10, 11, 12, 13, 14, 15]
    assert errors[2][1:] == ("card number 2000000001 already belongs to a member", lines[8])


def test_a_plain_file_with_odd_rows_imports_what_row_by_row_imports(reference_data, monkeypatch):
    lines = [member_line(f"20000000{n:02d}") for n in range(1, 30)]
    lines[3] = member_line("2000000040", first_name="\tNaledi", phone="082 123 4567")
    lines[7] = member_line("2000000041", id_type="PASSPORT", id_number="a7654321", date_of_birth="1980-02-29")
    lines[9] = member_line("2000000042", last_name="Nxumalo-Ndlovu", tier="ACE", prop="GH", email="")
    text = "\n".join([MEMBERS_HEADER, *lines, "", ""])
    copy_route, row_by_row = _both_ways(text, monkeypatch)
    assert copy_route == row_by_row
    assert copy_route[:4] == (ImportStatus.SUCCEEDED, 29, 29, "")
    assert [m[0] for m in copy_route[5]] == [line.split(",")[0] for line in lines]  # in the file's order


def member_inserts(queries) -> list[str]:
    """For each statement that inserted into the members table: the table it read."""
    inserts = [q["sql"] for q in queries if q["sql"].startswith('INSERT INTO "members_member" ')]
    return ["text" if '"members_importstagedmembertext"' in sql else "staged" for sql in inserts]


def usual_lines() -> list[str]:
    """Rows of the usual shape, in each of the ways it comes (none that the statement leaves)."""
    return [
        member_line("2000000001"),
        member_line("2000000002", id_type="passport", id_number="A1234567", date_of_birth="1979-03-21"),
        member_line("2000000003", phone="0821234567", email="", app_registered_on="2026-03-01"),
        member_line("2000000004", phone="", tier="ACE", prop="gh", id_type="SA_ID"),
        member_line("2000000005", id_type="driving_licence", id_number="dl99887766", date_of_birth="1990-12-31"),
        member_line("2000000006", id_type="passport", id_number="B7654321", date_of_birth="1980-02-29"),
    ]


def test_a_file_of_usual_rows_is_checked_and_inserted_by_one_statement(reference_data, monkeypatch):
    """No staged members table between: the statement that checks the rows inserts them."""
    text = "\n".join([MEMBERS_HEADER, *usual_lines()]) + "\n"
    with CaptureQueriesContext(connection) as queries:
        job = run_import("members", text)
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 6)
    assert member_inserts(queries.captured_queries) == ["text"]
    assert not any('INSERT INTO "members_importstagedmember" ' in q["sql"] for q in queries.captured_queries)
    Member.objects.filter(card_number__startswith="200000000").delete()
    # The very members, in the file's order, that the row-by-row path writes.
    copy_route, row_by_row = _both_ways(text, monkeypatch)
    assert copy_route == row_by_row
    assert [m[0] for m in copy_route[5]] == [line.split(",")[0] for line in usual_lines()]


def test_a_row_the_statement_leaves_sends_the_file_row_by_row_and_it_imports_the_same(reference_data, monkeypatch):
    """A valid row that only the Python rules read (a tier spelled oddly): the statement inserts
    fewer rows than the file has, its savepoint goes, and every row is checked as before."""
    lines = usual_lines()
    lines.insert(2, member_line("2000000009", tier="qUeen"))
    text = "\n".join([MEMBERS_HEADER, *lines])
    with CaptureQueriesContext(connection) as queries:
        job = run_import("members", text)
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 7)
    assert member_inserts(queries.captured_queries) == ["text", "staged"]
    Member.objects.filter(card_number__startswith="200000000").delete()
    copy_route, row_by_row = _both_ways(text, monkeypatch)
    assert copy_route == row_by_row
    assert [m[0] for m in copy_route[5]] == [line.split(",")[0] for line in lines]


def test_a_taken_card_or_number_in_a_file_of_usual_rows_is_named_by_its_line(reference_data, monkeypatch):
    MemberFactory(card_number="2000000003")
    MemberFactory(card_number="2000000900", id_number="A1234567", id_type="passport")
    text = "\n".join([MEMBERS_HEADER, *usual_lines()])
    with CaptureQueriesContext(connection) as queries:
        job = run_import("members", text)
    assert member_inserts(queries.captured_queries) == ["text", "staged"]  # each met the unique index
    assert (job.status, rows_of(job)) == (
        ImportStatus.FAILED,
        [
            (3, "id_number A1234567 already belongs to a member", usual_lines()[1]),
            (4, "card number 2000000003 already belongs to a member", usual_lines()[2]),
        ],
    )
    copy_route, row_by_row = _both_ways(text, monkeypatch)
    assert copy_route == row_by_row


def test_a_row_that_is_not_ascii_sends_the_file_row_by_row_at_once(reference_data):
    """Such rows are left to Python anyway: the statement is not tried for nothing."""
    lines = [*usual_lines(), member_line("2000000009", first_name="Zoë")]
    with CaptureQueriesContext(connection) as queries:
        job = run_import("members", "\n".join([MEMBERS_HEADER, *lines]))
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 7)
    assert member_inserts(queries.captured_queries) == ["staged"]


def test_the_long_way_after_the_statement_starts_with_a_fresh_heartbeat(reference_data, monkeypatch):
    """The statement may take minutes on a big file, under the job's row lock; once it is undone
    the lock goes, and the tick must not take the job for dead before members_check beats."""
    start = dt.datetime(2026, 11, 2, 10, 0, tzinfo=dt.UTC)
    heartbeats = []
    with time_machine.travel(start, tick=False) as clock:
        apply, check = services.members_apply_checked, services._members_check

        def a_long_statement(*args, **kwargs):
            inserted = apply(*args, **kwargs)
            clock.shift(dt.timedelta(minutes=10))
            return inserted

        def check_after(job, *args, **kwargs):
            heartbeats.append(ImportJob.objects.get(pk=job.pk).heartbeat_at)
            return check(job, *args, **kwargs)

        monkeypatch.setattr(services, "members_apply_checked", a_long_statement)
        monkeypatch.setattr(services, "_members_check", check_after)
        lines = [*usual_lines(), member_line("2000000009", tier="qUeen")]
        job = run_import("members", "\n".join([MEMBERS_HEADER, *lines]))
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 7)
    assert heartbeats == [start + dt.timedelta(minutes=10)]
