"""The members import's fast paths (issue 17, item 3) give what the full rules give.

The hand-written SA ID check against python-stdnum on many numbers; the plain-row check against
parse_member_row on many generated rows, odd ones included; FastCsvSource against CsvSource
on files of every awkward shape, at block sizes that cut them everywhere.
"""

import datetime as dt
import gc
import io
import random

import pytest
import time_machine
from stdnum import luhn
from stdnum.za import idnr

from members.identity import sa_id_born
from members.imports import (
    _MEMBER_STAGED,
    CsvSource,
    FastCsvSource,
    FileRejected,
    Lookups,
    RowInvalid,
    heap_frozen,
    member_row_plain,
    parse_member_row,
    row_text,
)
from members.tests.test_imports import MEMBERS_HEADER

TODAY = dt.date(2026, 11, 2)


@pytest.fixture(autouse=True)
def _pinned_clock():
    with time_machine.travel(dt.datetime(2026, 11, 2, 10, 0, tzinfo=dt.UTC), tick=False):
        yield


def _sa_id(rng: random.Random, born: dt.date, citizenship: str = "0") -> str:
    body = f"{born:%y%m%d}{rng.randrange(10000):04d}{citizenship}8"
    return body + luhn.calc_check_digit(body)


def test_the_sa_id_check_agrees_with_stdnum_on_many_numbers():
    rng = random.Random(17)
    valid = 0
    for index in range(60_000):
        born = dt.date(1925, 1, 1) + dt.timedelta(days=rng.randrange(37_000))
        number = _sa_id(rng, born, rng.choice("0120"))
        kind = index % 6
        if kind == 1:  # a wrong check digit
            number = number[:12] + str((int(number[12]) + rng.randrange(1, 10)) % 10)
        elif kind == 2:  # any 13 digits: impossible dates, months 13-99 ...
            number = "".join(rng.choice("0123456789") for _ in range(13))
        elif kind == 3:  # two digits swapped
            i = rng.randrange(12)
            number = number[:i] + number[i + 1] + number[i] + number[i + 2 :]
        elif kind == 4:  # 29 February, of leap and other years
            number = _sa_id(rng, dt.date(2000, 2, 29), "0").replace("000229", f"{rng.randrange(100):02d}0229", 1)
        expected = idnr.get_birth_date(number) if idnr.is_valid(number) else None
        assert sa_id_born(number) == expected, number
        valid += expected is not None
    assert valid > 10_000  # a good share of valid numbers: both answers were compared
    odd_ones = ["", "12", "850615512308", "85061551230840", "85061551230\uff184", "\uff18506155123084", "8506155123O84"]
    for odd in [*odd_ones, "8506155123084\n", " 8506155123084 ", "8506155123084\t"]:
        assert (sa_id_born(odd) is not None) == idnr.is_valid(odd), odd


def _member_row(rng: random.Random, index: int) -> dict[str, str]:
    """A row of the usual shape, or (one in three) with one field made unusual or wrong."""
    born = dt.date(1940, 1, 1) + dt.timedelta(days=rng.randrange(24_000))
    row = {
        "card_number": f"{4_000_000_000 + index}",
        "first_name": rng.choice(["Naledi", "John", "Lee-Ann", "Zoë", "van der Merwe"]),
        "last_name": rng.choice(["Mokoena", "Smith", "O'Brien", "Ndlovu"]),
        "id_type": rng.choice(["sa_id", "SA ID", "id", "South African ID"]),
        "id_number": _sa_id(rng, born),
        "date_of_birth": "",
        "tier": rng.choice(["Ten", "jack", "QUEEN"]),
        "property": rng.choice(["GRC", "grc", "Gold Reef City"]),
        "phone": rng.choice(["082 123 4567", "0821234567", "+27 82 123 4567", "+27821234567", ""]),
        "email": rng.choice(["naledi@example.com", "j.smith+promo@mail.example.co.za", ""]),
        "app_registered_on": rng.choice(["", "2026-03-01", "2025-12-31"]),
    }
    if index % 4 == 1:
        row.update(id_type=rng.choice(["passport", "driving_licence", "Passport"]), id_number=f"A{index:08d}")
        row["date_of_birth"] = born.isoformat()
    variants = [
        ("card_number", ["12345", "1234567890123456789012", " 1000000016 ", "10000000\uff116"]),
        ("first_name", ["", "   ", "x" * 61, " Naledi "]),
        ("id_type", ["visa", "", "PASSPORT", "driving license"]),
        ("id_number", ["", "8506155123085", "850615 5123 084", "850615-5123-084", "a12345678", "A1", "A12 345 678"]),
        ("date_of_birth", ["1899-12-31", "2027-01-01", "21/03/1979", "1979-03-21", born.isoformat(), "19790321"]),
        ("tier", ["Platinum", ""]),
        ("property", ["XYZ", ""]),
        ("phone", ["082-123-4567", "(082) 123 4567", "+27 (0)82 123 4567", "0027821234567", "12", "+44 20 7946 0958"]),
        ("phone", ["0021234567", "+270821234567", "082 123 456", "٠٨٢١٢٣٤٥٦٧"]),
        ("email", ["not-an-email", "a@b", "a@localhost", "Zoë@example.com", "a..b@example.com", "-a@x-.com"]),
        ("email", ["a@[127.0.0.1]", "a@example.c0m", "a@" + "x" * 64 + ".com", "ÄB@example.com", "a@ex_ample.com"]),
        ("app_registered_on", ["2030-01-01", "yesterday", "1900-01-01"]),
    ]
    if index % 3 == 2:
        column, values = rng.choice(variants)
        row[column] = rng.choice(values)
    return row


def test_a_plain_row_gives_what_the_full_rules_give(reference_data):
    lookups = Lookups.load()
    rng = random.Random(2026)
    plain = full = 0
    for index in range(6000):
        row = _member_row(rng, index)
        values = member_row_plain(row, lookups, TODAY)
        try:
            member = parse_member_row(row, lookups)
        except RowInvalid:
            assert values is None, row  # a bad row never passes the short way
            continue
        full += 1
        if values is not None:
            plain += 1
            assert values == tuple(getattr(member, column) for column in _MEMBER_STAGED), row
    # The usual rows take the short way (else it saves nothing); the odd ones are still imported.
    assert plain > 0.7 * full
    assert full > plain


FILES = {
    "plain": [MEMBERS_HEADER, *(f"{1000 + n},A{n},B,sa_id,X,,Ten,GRC,,," for n in range(40)), ""],
    "crlf and blank lines": [MEMBERS_HEADER, "1,a,b,c,d,e,f,g,h,i,j", "", "  ", ",,,,", "2,a,b", "3,,,,,,,,,,", ""],
    "no line end at the end": [MEMBERS_HEADER, "1,a,b,c,d,e,f,g,h,i,j", "2,a,b,c,d,e,f,g,h,i,j"],
    "quoted fields midway": [
        MEMBERS_HEADER,
        *(f"{n},a,b,c,d,e,f,g,h,i,j" for n in range(30)),
        '7,"Smith, Jr",b,c,d,e,f,g,h,i,j',
        '8,"two\nlines",b,c,d,e,f,g,h,i,j',
        *(f"{n},a,b,c,d,e,f,g,h,i,j" for n in range(30)),
        "",
    ],
    "quote in the header": [
        '"card_number",first_name,last_name,id_type,id_number,date_of_birth,tier,property,'
        "phone,email,app_registered_on",
        "1,a,b,c,d,e,f,g,h,i,j",
        "",
    ],
    "not UTF-8 on a line": [MEMBERS_HEADER, "1,a,b,c,d,e,f,g,h,i,j", b"2,\xe9,b,c,d,e,f,g,h,i,j", "3,a,b", ""],
    "a NUL": [MEMBERS_HEADER, "1,a,b,c,d,e,f,g,h,i,j", "2,a\x00,b,c,d,e,f,g,h,i,j", ""],
    "a stray carriage return": [MEMBERS_HEADER, "1,a,b,c,d,e,f,g,h,i,j", "2,a\rb,b,c,d,e,f,g,h,i,j", ""],
    "a too long line": [MEMBERS_HEADER, "1,a,b,c,d,e,f,g,h,i,j", "2," + "x" * 70_000, "3,a", ""],
    "a BOM": ["\ufeff" + MEMBERS_HEADER, "1,a,b,c,d,e,f,g,h,i,j", ""],
    "wrong header": ["card,name", "1,a", ""],
    "header only": [MEMBERS_HEADER, ""],
    "empty": [],
    "names with any letters": [MEMBERS_HEADER, "1,Zoë,Nxumalo-Ndlovu,c,d,e,f,g,h,i,j", "2,Jürgen,O'Neil,c,d,e,f,g,h,i"],
}


def _bytes(lines: list, separator: bytes = b"\n") -> bytes:
    return separator.join(line if isinstance(line, bytes) else line.encode("utf-8") for line in lines)


def _read(source_class, data: bytes, block: int | None = None):
    source = source_class(io.BufferedReader(io.BytesIO(data)), "members")
    if block:
        source.BLOCK_BYTES = block
    try:
        records = [(r.line, r.row, r.problem, r.chars, row_text(r.text)) for r in source]
    except FileRejected as rejected:
        return "rejected", str(rejected)
    return records, source.bytes_read


@pytest.mark.parametrize("name", list(FILES))
@pytest.mark.parametrize("block", [None, 7, 64, 300])
def test_fast_reading_gives_csv_sources_records_and_refusals(name, block):
    data = _bytes(FILES[name], b"\r\n" if name.startswith("crlf") else b"\n")
    assert _read(FastCsvSource, data, block) == _read(CsvSource, data)


def test_a_plain_file_is_read_without_the_csv_module(monkeypatch):
    """FastCsvSource's own path is taken for the usual file (the comparison above would pass
    if it always handed over to CsvSource)."""
    monkeypatch.setattr(CsvSource, "__iter__", lambda self: pytest.fail("read by CsvSource"))
    records, _ = _read(FastCsvSource, _bytes(FILES["plain"]), 64)
    assert [r[0] for r in records] == list(range(2, 42))


def test_the_heap_is_handed_back_to_the_collector():
    with heap_frozen():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
