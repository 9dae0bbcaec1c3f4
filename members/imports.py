"""CSV imports of members and points from the casino management system.

All or nothing per file, in short transactions: the good rows of each chunk are written to a
staging table in a transaction of their own (so the desk, the tick and the progress bar keep
working during a long import, on SQLite too), and only a file without a bad row is moved to
the real tables, in one short step (members.services). A rejected file leaves no trace but
its error report.

Memory stays bounded whatever the shape of the file: lines are read with a length limit, a
chunk is capped in rows and in characters, rows already staged are found again through the
database (not a set in memory), and errors are spooled to a temporary file.
"""

import codecs
import contextlib
import csv
import datetime as dt
import gc
import io
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from core.audit import Actor
from core.bulk import bulk_insert
from members.identity import (
    DOCUMENT_NUMBER,
    IdType,
    is_sa_id_number,
    normalise_id_number,
    sa_id_born,
    validate_identity,
)
from members.models import (
    ImportJob,
    ImportKind,
    ImportStagedMember,
    ImportStagedMemberText,
    ImportStagedPoints,
    Member,
    PointsEntry,
    Property,
    Tier,
)
from members.phones import normalise_phone
from members.staff import staff_act_refusal

CHUNK_ROWS = 5000
CHUNK_CHARS = 4 * 2**20  # a chunk of long rows ends early: memory per chunk stays bounded
MAX_LINE_CHARS = 65_536  # no members or points row comes near; a longer one is another file
# A bad row's text is kept beside its reasons up to this length: enough to recognise any real row.
ROW_TEXT_CHARS = 1000
# Older dates are typing errors, and a year-1 date cannot even be shown in local time.
EARLIEST_DATE = dt.date(1900, 1, 1)
EARLIEST_POINTS = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)

MEMBER_COLUMNS = [
    "card_number",
    "first_name",
    "last_name",
    "id_type",
    "id_number",
    "date_of_birth",
    "tier",
    "property",
    "phone",
    "email",
    "app_registered_on",
]
POINTS_COLUMNS = ["card_number", "property", "earned_at", "points", "reference"]
COLUMNS = {ImportKind.MEMBERS: MEMBER_COLUMNS, ImportKind.POINTS: POINTS_COLUMNS}

# Example rows of each kind's sample file; {property} and {tier} are this installation's own.
_SAMPLE_ROWS = {
    ImportKind.MEMBERS: [
        "1000000016,Naledi,Mokoena,sa_id,8506155123084,,{tier},{property},082 123 4567,naledi@example.com,2026-03-01",
        "1000000024,John,Smith,passport,A12345678,1979-03-21,{tier},{property},+44 20 7946 0958,,",
    ],
    ImportKind.POINTS: [
        "1000000016,{property},2026-11-01 21:15:00,120,SLOT-2026-11-01-000123",
        "1000000024,{property},2026-11-02 14:05:00,35,TABLE-2026-11-02-000456",
    ],
}


def sample_csv(kind: str) -> str:
    """A small file of `kind` to start from: the header and two example rows, with this
    installation's first property and lowest tier."""
    prop = Property.objects.order_by("code").first()
    tier = Tier.objects.order_by("rank").first()
    values = {"property": prop.code if prop else "GRC", "tier": tier.name if tier else "Ten"}
    lines = [",".join(COLUMNS[kind]), *(row.format(**values) for row in _SAMPLE_ROWS[kind])]
    return "\r\n".join(lines) + "\r\n"


_CARD = re.compile(r"^\d{6,20}$")
_POINTS = re.compile(r"^\d{1,9}$")
_LOCAL = timezone.get_default_timezone()
_ID_TYPE_ALIASES = {
    **{value: value for value in IdType.values},
    **{label.lower(): value for value, label in IdType.choices},
    "sa id": IdType.SA_ID,
    "id": IdType.SA_ID,
    "driving license": IdType.DRIVING_LICENCE,
}


class RowInvalid(Exception):
    """The reasons one row cannot be imported."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = reasons


class FileRejected(Exception):
    """The whole file is unreadable (empty, wrong header, not UTF-8)."""


@dataclass
class ImportCounts:
    rows: int = 0
    imported: int = 0
    skipped: int = 0
    errors: int = 0
    bytes_read: int = 0  # of the file, line by line, where the reader counts them (the progress bar)


def row_text(text: str) -> str:
    """A row as the report keeps it: without its line ending, cut at ROW_TEXT_CHARS, and with
    any NUL written as \\0 (PostgreSQL stores no NUL)."""
    text = text.rstrip("\r\n").replace("\x00", "\\0")
    return text if len(text) <= ROW_TEXT_CHARS else text[: ROW_TEXT_CHARS - 1] + "…"


class ErrorSpool:
    """Bad rows, kept on disk: a file of a million bad rows must not fill memory. Each is its
    line number, its reasons and its text as the file has it."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")  # noqa: SIM115 (closed by close())
        self._writer = csv.writer(self._file)
        self.count = 0

    def add(self, line: int, message: str, text: str = "") -> None:
        self._writer.writerow([line, message[:500], row_text(text)])
        self.count += 1

    def __iter__(self) -> Iterator[tuple[int, str, str]]:
        self._file.seek(0)
        for line, message, text in csv.reader(self._file):
            yield int(line), message, text

    def close(self) -> None:
        self._file.close()


@dataclass
class Lookups:
    """The small reference tables, loaded once per file."""

    tiers: dict[str, Tier] = field(default_factory=dict)
    properties: dict[str, Property] = field(default_factory=dict)
    # Property pk -> why the importer may not import points there (members.staff), if they may not.
    elsewhere: dict[int, str] = field(default_factory=dict)

    @classmethod
    def load(cls, *, points_importer: Actor | None = None) -> "Lookups":
        """`points_importer`: whoever imports a points file; its rows must be at their properties
        (points decide the tickets at that property's draws). Member records are group-wide."""
        lookups = cls()
        for tier in Tier.objects.all():
            lookups.tiers[tier.name.lower()] = lookups.tiers[tier.code.lower()] = tier
        for prop in Property.objects.all():
            lookups.properties[prop.name.lower()] = lookups.properties[prop.code.lower()] = prop
            if points_importer is not None:
                refusal = staff_act_refusal(points_importer.user, prop, what="points", done="imported")
                if refusal:
                    lookups.elsewhere[prop.pk] = refusal
        return lookups

    def tier(self, value: str, reasons: list[str]) -> Tier | None:
        tier = self.tiers.get(value.strip().lower())
        if tier is None:
            names = ", ".join(t.name for t in sorted(set(self.tiers.values()), key=lambda t: t.rank))
            reasons.append(f"unknown tier {value!r} (expected one of {names})")
        return tier

    def property(self, value: str, reasons: list[str]) -> Property | None:
        prop = self.properties.get(value.strip().lower())
        if prop is None:
            codes = ", ".join(sorted({p.code for p in self.properties.values()}))
            reasons.append(f"unknown property {value!r} (expected one of {codes})")
        return prop


def _date(value: str, column: str, reasons: list[str], *, required: bool) -> dt.date | None:
    """A past date (birth, app registration) since 1900."""
    value = value.strip()
    if not value:
        if required:
            reasons.append(f"{column} is required")
        return None
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        reasons.append(f"{column} {value!r} is not a date (YYYY-MM-DD)")
        return None
    if not EARLIEST_DATE <= day <= timezone.localdate():
        reasons.append(f"{column} {value} must be between {EARLIEST_DATE:%Y-%m-%d} and today")
        return None
    return day


def _timestamp(value: str, column: str, reasons: list[str]) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        reasons.append(f"{column} {value!r} is not a date and time (YYYY-MM-DD HH:MM:SS)")
        return None
    # Times without an offset are casino local time, as the management system writes them.
    return moment.replace(tzinfo=_LOCAL) if moment.tzinfo is None else moment


def parse_member_row(row: dict[str, str], lookups: Lookups) -> Member:
    reasons: list[str] = []
    card_number = row["card_number"].strip()
    if not _CARD.match(card_number):
        reasons.append(f"card number {card_number!r} must be 6 to 20 digits")
    names = {}
    for column in ("first_name", "last_name"):
        names[column] = row[column].strip()
        if not names[column]:
            reasons.append(f"{column} is required")
        elif len(names[column]) > 60:
            reasons.append(f"{column} is longer than 60 characters")
    id_type = _ID_TYPE_ALIASES.get(row["id_type"].strip().lower())
    if id_type is None:
        reasons.append(f"id_type {row['id_type']!r} must be sa_id, passport or driving_licence")
    id_number = row["id_number"].strip()
    # An SA ID number carries the birth date, whatever id_type the file gives it.
    needs_birth_date = id_type != IdType.SA_ID and not is_sa_id_number(normalise_id_number(id_number))
    date_of_birth = _date(row["date_of_birth"], "date_of_birth", reasons, required=needs_birth_date)
    if id_type:
        try:
            identity = validate_identity(id_type, id_number, date_of_birth)
            id_type, id_number, date_of_birth = identity.id_type, identity.number, identity.date_of_birth
        except ValidationError as error:
            reasons.append(f"id_number {id_number!r}: {error.messages[0]}")
    tier = lookups.tier(row["tier"], reasons)
    home_property = lookups.property(row["property"], reasons)
    try:
        phone = normalise_phone(row["phone"])  # +27…, as the desk's sign-up stores it
    except ValidationError:
        phone = ""
        reasons.append(f"phone {row['phone'].strip()!r} is not a phone number (e.g. 082 123 4567 or +27 82 123 4567)")
    email = row["email"].strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            reasons.append(f"email {email!r} is not an e-mail address")
    app_registered_on = _date(row["app_registered_on"], "app_registered_on", reasons, required=False)
    if reasons:
        raise RowInvalid(reasons)
    return Member(
        card_number=card_number,
        first_name=names["first_name"],
        last_name=names["last_name"],
        search_name=f"{names['first_name']} {names['last_name']}".lower(),
        id_type=id_type,
        id_number=id_number,
        date_of_birth=date_of_birth,
        tier=tier,
        home_property=home_property,
        phone=phone,
        email=email,
        app_registered_on=app_registered_on,
    )


@dataclass(slots=True)
class PointsRow:
    line: int
    card_number: str
    property_id: int
    property_code: str
    earned_at: dt.datetime
    points: int
    reference: str


def parse_points_row(line: int, row: dict[str, str], lookups: Lookups, now: dt.datetime) -> PointsRow:
    """One ledger row, as a plain record: a million of them must not cost a model each."""
    reasons: list[str] = []
    card_number = row["card_number"].strip()
    if not _CARD.match(card_number):
        reasons.append(f"card number {card_number!r} must be 6 to 20 digits")
    prop = lookups.property(row["property"], reasons)
    if prop is not None and prop.pk in lookups.elsewhere:
        reasons.append(lookups.elsewhere[prop.pk].rstrip("."))
    earned_at = _timestamp(row["earned_at"], "earned_at", reasons)
    if earned_at and earned_at > now:
        reasons.append(f"earned_at {row['earned_at'].strip()} is in the future")
    elif earned_at and earned_at < EARLIEST_POINTS:
        reasons.append(f"earned_at {row['earned_at'].strip()} is before {EARLIEST_POINTS:%Y}")
    raw_points = row["points"].strip()
    points = int(raw_points) if _POINTS.match(raw_points) else None
    if points is None:
        reasons.append(f"points {raw_points!r} must be a whole number above 0")
    elif points == 0:
        reasons.append("points must be above 0")
    reference = row["reference"].strip()
    if not reference:
        reasons.append("reference is required")
    elif len(reference) > 64:
        reasons.append("reference is longer than 64 characters")
    if reasons:
        raise RowInvalid(reasons)
    return PointsRow(line, card_number, prop.pk, prop.code, earned_at, points, reference)


@dataclass(slots=True)
class Record:
    """One CSV row of the file: its fields, or the problem that makes it unreadable."""

    line: int  # physical line where the row ends (the header is line 1)
    row: dict[str, str] | None
    problem: str
    chars: int
    text: str = ""  # the row as the file has it (its lines, if a quoted field spans several)

    @property
    def is_blank(self) -> bool:
        return self.row is None and not self.problem


def _undecodable(line: int, error: UnicodeDecodeError) -> str:
    byte = error.object[error.start : error.start + 1].hex().upper()
    return f"not UTF-8 text (byte 0x{byte} at position {error.start + 1} of line {line}): save the file as CSV UTF-8"


class CsvSource:
    """The rows of an uploaded CSV file, read line by line with a length limit.

    Undecodable text (another encoding, lone surrogates) and NUL characters make a bad row,
    reported by its line; a line longer than MAX_LINE_CHARS rejects the file at once (it is
    not a members or points file, and reading it whole could take all memory).
    """

    def __init__(self, binary: io.BufferedReader, kind: str) -> None:
        self._binary = binary
        self._kind = kind
        self.bytes_read = 0
        self._line = 0
        self._record_chars = 0
        self._record_text: list[str] = []
        self._bad_text: str = ""

    def _lines(self) -> Iterator[str]:
        # Up to 4 bytes a character: a line cut at this size is too long whatever it holds.
        limit = 4 * MAX_LINE_CHARS + 2
        while raw := self._binary.readline(limit):
            self.bytes_read += len(raw)
            self._line += 1
            if self._line == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8) :]  # Excel's "CSV UTF-8" starts with one
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                text = raw.decode("utf-8", errors="replace")
                self._bad_text = self._bad_text or _undecodable(self._line, error)
            # A quoted field may span lines: the limit holds for the whole row.
            self._record_chars += len(text.rstrip("\r\n"))
            self._record_text.append(text)
            if self._record_chars > MAX_LINE_CHARS:
                raise FileRejected(
                    f"Line {self._line} is longer than {MAX_LINE_CHARS:,} characters: this is not a {self._kind} file."
                )
            yield text

    def __iter__(self) -> Iterator[Record]:
        """Every data row; the header is checked first."""
        reader = csv.reader(self._lines())
        try:
            header = next(reader, None)
            if header is None or not any(cell.strip() for cell in header):
                raise FileRejected("The file is empty: expected a header line and at least one row.")
            if self._bad_text:
                raise FileRejected(f"Line 1 is {self._bad_text} and try again.")
            expected = COLUMNS[self._kind]
            found = [cell.strip().lower() for cell in header]
            if found != expected:
                shown = ",".join(header).replace("\x00", "\\0")  # PostgreSQL stores no NUL
                raise FileRejected(f"Line 1: wrong header. Expected: {','.join(expected)}. Found: {shown}.")
            width = len(expected)
            self._record_chars, self._record_text, self._bad_text = 0, [], ""
            for cells in reader:
                line, chars, bad_text = reader.line_num, self._record_chars, self._bad_text
                text = "".join(self._record_text)
                self._record_chars, self._record_text, self._bad_text = 0, [], ""
                if bad_text:
                    yield Record(line, None, bad_text, chars, text)
                elif not any(cell.strip() for cell in cells):
                    yield Record(line, None, "", chars)  # blank lines, often at the end of a file
                elif len(cells) != width:
                    yield Record(line, None, f"expected {width} columns, found {len(cells)}", chars, text)
                elif nul := [column for column, cell in zip(expected, cells, strict=True) if "\x00" in cell]:
                    problem = "; ".join(f"{column} contains a NUL character" for column in nul)
                    yield Record(line, None, problem, chars, text)
                else:
                    yield Record(line, dict(zip(expected, cells, strict=True)), "", chars, text)
        except csv.Error as error:
            raise FileRejected(f"Line {reader.line_num}: the CSV is malformed ({error}).") from None


class _NotPlain(Exception):
    """A block of the file that only the csv module reads right (FastCsvSource)."""


class FastCsvSource(CsvSource):
    """CsvSource's records at a fraction of its cost per row, for the members import.

    The file is read a megabyte at a time. A block of plain lines (UTF-8, no quote, NUL or
    stray carriage return, none too long) is split on commas directly: exactly what the csv
    module makes of such lines. At the first block that is not plain, CsvSource reads the file
    again from the start and its records after the last one given are passed on, so any other
    file gets CsvSource's very records and refusals (a file with quoted fields is read at
    CsvSource's speed from its first such block on).
    """

    BLOCK_BYTES = 2**20

    def __iter__(self) -> Iterator[Record]:
        last_line = 0
        try:
            for record in self._plain_records():
                last_line = record.line
                yield record
            return
        except _NotPlain:
            pass
        self._binary.seek(0)
        source = CsvSource(self._binary, self._kind)
        for record in source:
            self.bytes_read = max(self.bytes_read, source.bytes_read)
            if record.line > last_line:
                yield record

    def _plain_records(self) -> Iterator[Record]:
        expected = COLUMNS[self._kind]
        width = len(expected)
        line = 0
        rest = b""
        while True:
            block = self._binary.read(self.BLOCK_BYTES)
            if block:
                block = rest + block
                cut = block.rfind(b"\n") + 1
                if cut == 0:  # a line longer than the block so far
                    if len(block) > 4 * MAX_LINE_CHARS + 2:
                        raise _NotPlain  # too long whatever it holds: CsvSource refuses the file
                    rest = block
                    continue
                block, rest = block[:cut], block[cut:]
            elif rest:
                block, rest = rest, b""  # the last line, without a line end
            else:
                break
            block_end = self.bytes_read + len(block)
            if line == 0 and block.startswith(codecs.BOM_UTF8):
                block = block[len(codecs.BOM_UTF8) :]
            if b'"' in block or b"\x00" in block:
                raise _NotPlain
            try:
                lines = block.decode("utf-8").split("\n")
            except UnicodeDecodeError:
                raise _NotPlain from None
            if not lines[-1]:
                lines.pop()  # after the block's last line end
            for text in lines:
                if text.endswith("\r"):
                    text = text[:-1]
                if "\r" in text or len(text) > MAX_LINE_CHARS:
                    raise _NotPlain
                line += 1
                # The progress bar moves row by row: characters for bytes, set right at the block's end.
                self.bytes_read += len(text) + 1
                cells = text.split(",")
                if line == 1:
                    if [cell.strip().lower() for cell in cells] != expected:
                        raise _NotPlain  # CsvSource words the refusal
                elif not cells[0].strip() and not any(cell.strip() for cell in cells):
                    yield Record(line, None, "", len(text))
                elif len(cells) != width:
                    yield Record(line, None, f"expected {width} columns, found {len(cells)}", len(text), text)
                else:
                    yield Record(line, dict(zip(expected, cells, strict=True)), "", len(text), text)
            self.bytes_read = block_end
        if line == 0:
            raise _NotPlain  # an empty file: CsvSource words the refusal


@contextlib.contextmanager
def heap_frozen() -> Iterator[None]:
    """The objects alive now (Django, the worker) left out of the garbage collector's full
    passes while a file is read: a file makes a few container objects a row, which set off
    full passes over that whole heap, half the time of reading a members file. What the file's
    rows leave behind is still collected; the frozen objects are handed back afterwards."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def chunks(records: Iterator[Record]) -> Iterator[list[Record]]:
    """Records in lists of at most CHUNK_ROWS rows and about CHUNK_CHARS characters."""
    chunk: list[Record] = []
    chars = 0
    for record in records:
        chunk.append(record)
        chars += record.chars
        if len(chunk) >= CHUNK_ROWS or chars >= CHUNK_CHARS:
            yield chunk
            chunk, chars = [], 0
    if chunk:
        yield chunk


def _parsed(chunk: list[Record], errors: ErrorSpool, counts: ImportCounts, parse: Callable) -> list:
    parsed = []
    for record in chunk:
        if record.is_blank:
            continue
        counts.rows += 1
        try:
            if record.problem:
                raise RowInvalid([record.problem])
            parsed.append(parse(record))
        except RowInvalid as invalid:
            errors.add(record.line, str(invalid), record.text)
    return parsed


def with_row_texts(binary: io.BufferedReader, kind: str, errors: Iterator[tuple[int, str]]) -> Iterator[tuple]:
    """Row errors found after the file was read (in line order), each with its row's text, read
    again from the file alongside: (line, message, text)."""
    records = iter(CsvSource(binary, kind))
    record = None
    for line, message in errors:
        while record is None or record.line < line:
            record = next(records, None)
            if record is None:
                break
        yield line, message, record.text if record is not None and record.line == line else ""


# --- Members ----------------------------------------------------------------------------------

_MEMBER_STAGED = [
    "card_number",
    "first_name",
    "last_name",
    "search_name",
    "id_type",
    "id_number",
    "date_of_birth",
    "phone",
    "email",
    "tier_id",
    "home_property_id",
    "app_registered_on",
]


# The shapes of the great majority of rows, checked at a fraction of the full rules' cost. Each
# is a strict subset of what the full rules accept, with the same result; any other row goes
# through parse_member_row, which words the refusal (tests pin the two against each other).
_PLAIN_PHONE = re.compile(r"(?:0|\+27)[1-9][0-9]{8}")  # after removing spaces: 0821234567, +27821234567
_PLAIN_EMAIL = re.compile(  # a subset of Django's EmailValidator: ASCII dot-atom @ host.tld
    r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@"
    r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
    r"\.[A-Za-z]{2,63}"
)


def _plain_date(value: str, today: dt.date) -> dt.date | None:
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        return None
    return day if EARLIEST_DATE <= day <= today else None


def member_row_plain(
    row: dict[str, str], lookups: Lookups, today: dt.date, this_year: int | None = None
) -> tuple | None:
    """The staging values (_MEMBER_STAGED) of a row of the usual shape, as parse_member_row
    would give them; None for any other row (perhaps valid, perhaps not: the full rules say).
    `this_year`: the year by the system's date, as python-stdnum reads SA ID numbers."""
    card_number = row["card_number"].strip()
    first_name = row["first_name"].strip()
    last_name = row["last_name"].strip()
    if not _CARD.match(card_number) or not first_name or not last_name or len(first_name) > 60 or len(last_name) > 60:
        return None
    id_type = _ID_TYPE_ALIASES.get(row["id_type"].strip().lower())
    id_number = row["id_number"].strip()
    if id_type is None or not id_number.isascii() or not id_number.isalnum():
        return None  # spaces, dashes, other letters: normalised (or refused) by the full rules
    id_number = id_number.upper()
    born = sa_id_born(id_number, this_year) if len(id_number) == 13 else None
    typed_birth = row["date_of_birth"].strip()
    if born is not None:  # an SA ID number, whatever id_type says; a typed birth date must agree
        id_type = IdType.SA_ID
        if typed_birth and _plain_date(typed_birth, today) != born:
            return None
        date_of_birth = born
    elif id_type == IdType.SA_ID or not DOCUMENT_NUMBER.match(id_number):
        return None
    else:
        date_of_birth = _plain_date(typed_birth, today)
        if date_of_birth is None:
            return None
    tier = lookups.tiers.get(row["tier"].strip().lower())
    home_property = lookups.properties.get(row["property"].strip().lower())
    if tier is None or home_property is None:
        return None
    phone = row["phone"].strip()
    if phone:
        phone = phone.replace(" ", "")
        if not _PLAIN_PHONE.fullmatch(phone):
            return None
        phone = "+27" + phone[-9:]
    email = row["email"].strip()
    if email and not (len(email) <= 320 and _PLAIN_EMAIL.fullmatch(email)):
        return None
    registered = row["app_registered_on"].strip()
    app_registered_on = None
    if registered and (app_registered_on := _plain_date(registered, today)) is None:
        return None
    return (
        card_number,
        first_name,
        last_name,
        f"{first_name} {last_name}".lower(),
        id_type,
        id_number,
        date_of_birth,
        phone,
        email,
        tier.id,
        home_property.id,
        app_registered_on,
    )


def members_chunk_check(
    chunk: list[Record], *, job_id: int, lookups: Lookups, errors: ErrorSpool, counts: ImportCounts
) -> list[tuple]:
    """The staging rows of one chunk's good members; bad rows go to `errors`."""
    today, this_year = timezone.localdate(), dt.date.today().year
    parsed: list[tuple[Record, tuple]] = []
    for record in chunk:
        if record.is_blank:
            continue
        counts.rows += 1
        if record.problem:
            errors.add(record.line, record.problem, record.text)
            continue
        values = member_row_plain(record.row, lookups, today, this_year)
        if values is None:
            try:
                member = parse_member_row(record.row, lookups)
            except RowInvalid as invalid:
                errors.add(record.line, str(invalid), record.text)
                continue
            values = tuple(getattr(member, column) for column in _MEMBER_STAGED)
        parsed.append((record, values))
    # One member per document number whatever its type (the member_unique_id_number constraint).
    taken_cards, taken_ids = _members_taken(job_id, {v[0] for _, v in parsed}, {v[5] for _, v in parsed})
    fresh = []
    for record, values in parsed:
        card_number, id_number = values[0], values[5]
        if card_number in taken_cards:
            errors.add(record.line, f"card number {card_number} already belongs to a member", record.text)
        elif id_number in taken_ids:
            errors.add(record.line, f"id_number {id_number} already belongs to a member", record.text)
        else:
            taken_cards.add(card_number)
            taken_ids.add(id_number)
            fresh.append((job_id, record.line, *values))
    counts.imported += len(fresh)
    return fresh


def _members_taken(job_id: int, cards: set[str], numbers: set[str]) -> tuple[set[str], set[str]]:
    """The cards and document numbers among these that a member or a row staged earlier from
    this file already has."""
    if connection.vendor != "postgresql":
        staged = ImportStagedMember.objects.filter(job_id=job_id)
        taken_cards = set(Member.objects.filter(card_number__in=cards).values_list("card_number", flat=True))
        taken_cards |= set(staged.filter(card_number__in=cards).values_list("card_number", flat=True))
        taken_ids = set(Member.objects.filter(id_number__in=numbers).values_list("id_number", flat=True))
        taken_ids |= set(staged.filter(id_number__in=numbers).values_list("id_number", flat=True))
        return taken_cards, taken_ids
    # One statement, each array sent once, not four with 5,000 parameters each: building and
    # parsing those took longer than the index look-ups themselves.
    qn = connection.ops.quote_name
    members, staged = qn(Member._meta.db_table), qn(ImportStagedMember._meta.db_table)
    cards_sql, numbers_sql = "ANY((SELECT cards FROM sent)::text[])", "ANY((SELECT numbers FROM sent)::text[])"
    sql = (
        "WITH sent AS (SELECT %s::text[] AS cards, %s::text[] AS numbers, %s::bigint AS job) "  # noqa: S608
        f"SELECT true, card_number FROM {members} WHERE card_number = {cards_sql} "
        f"UNION ALL SELECT true, card_number FROM {staged} "
        f"WHERE job_id = (SELECT job FROM sent) AND card_number = {cards_sql} "
        f"UNION ALL SELECT false, id_number FROM {members} WHERE id_number = {numbers_sql} "
        f"UNION ALL SELECT false, id_number FROM {staged} "
        f"WHERE job_id = (SELECT job FROM sent) AND id_number = {numbers_sql}"
    )
    taken_cards, taken_ids = set(), set()
    with connection.cursor() as cursor:
        cursor.execute(sql, [list(cards), list(numbers), job_id])
        for is_card, value in cursor.fetchall():
            (taken_cards if is_card else taken_ids).add(value)
    return taken_cards, taken_ids


def members_stage(rows: list[tuple]) -> None:
    bulk_insert(ImportStagedMember._meta.db_table, ["job_id", "line", *_MEMBER_STAGED], rows)


def members_conflicts(job_id: int) -> Iterator[tuple[int, str]]:
    """Staged rows whose card or number a member got since they were checked (another
    import or a sign-up meanwhile), as row errors in line order. On PostgreSQL also those whose
    card or number an earlier staged row of the file has (a plain file's rows are staged
    unchecked: members_read_plain)."""
    if connection.vendor == "postgresql":
        yield from _members_conflicts_sql(job_id)
        return
    rows = (
        ImportStagedMember.objects.filter(job_id=job_id)
        .filter(
            Exists(Member.objects.filter(card_number=OuterRef("card_number")))
            | Exists(Member.objects.filter(id_number=OuterRef("id_number")))
        )
        .annotate(card_taken=Exists(Member.objects.filter(card_number=OuterRef("card_number"))))
        .order_by("line")
        .values_list("line", "card_number", "id_number", "card_taken")
    )
    for line, card_number, id_number, card_taken in rows.iterator(chunk_size=5000):
        if card_taken:
            yield line, f"card number {card_number} already belongs to a member"
        else:
            yield line, f"id_number {id_number} already belongs to a member"


def _members_insert(source: str, now: dt.datetime) -> tuple[str, dict]:
    """An INSERT into the members table of the rows of `source` (a FROM item named s, with a
    line and the _MEMBER_STAGED columns) in line order, and its parameters: the other columns
    as bulk_create would have written them."""
    columns, values, params = [], [], {}
    for member_field in Member._meta.concrete_fields:
        if member_field.primary_key:
            continue
        columns.append(connection.ops.quote_name(member_field.column))
        if member_field.attname in _MEMBER_STAGED:
            values.append(f"s.{connection.ops.quote_name(member_field.attname)}")
        else:  # created_at, and defaults for the rest
            value = now if member_field.attname == "created_at" else member_field.get_default()
            name = f"default_{len(params)}"
            values.append(f"%({name})s")
            params[name] = member_field.get_db_prep_save(value, connection)
    sql = (
        f"INSERT INTO {connection.ops.quote_name(Member._meta.db_table)} ({', '.join(columns)}) "  # noqa: S608
        f"SELECT {', '.join(values)} FROM {source} ORDER BY s.line"
    )
    return sql, params


def _members_insert_run(sql: str, params: dict) -> int:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # The sort of a big file in memory, not in temporary files, and no JIT compiling for
            # a plain insert (this transaction only).
            cursor.execute("SELECT set_config('work_mem', '64MB', true), set_config('jit', 'off', true)")
        cursor.execute(sql, params)
        return cursor.rowcount


def members_apply(job_id: int, now: dt.datetime) -> int:
    """Move the job's staged members to the members table in one statement; how many."""
    staged = connection.ops.quote_name(ImportStagedMember._meta.db_table)
    sql, params = _members_insert(f"{staged} s WHERE s.job_id = %(job)s", now)
    return _members_insert_run(sql, {**params, "job": job_id})


def members_apply_checked(job_id: int, lookups: Lookups, today: dt.date, now: dt.datetime) -> int:
    """members_apply straight from the rows COPY staged (PostgreSQL): those of the usual shape
    (members_checked, on `today`) go to the members table in one statement, checked and
    converted on the way, without the staged members table between; how many. The others are
    left out: fewer than the file's rows means that members_check must look at them."""
    checked, params = members_checked(job_id, lookups, today)
    sql, insert_params = _members_insert(f"({checked}) s WHERE s.ok", now)
    return _members_insert_run(sql, {**params, **insert_params})


def _members_conflicts_sql(job_id: int) -> Iterator[tuple[int, str]]:
    """members_conflicts on PostgreSQL: one statement over every staged row of the job."""
    qn = connection.ops.quote_name
    members, staged = qn(Member._meta.db_table), qn(ImportStagedMember._meta.db_table)
    sql = f"""
        SELECT line, card_number, id_number, card_taken FROM (
            SELECT s.line, s.card_number, s.id_number,
                row_number() OVER (PARTITION BY s.card_number ORDER BY s.line) > 1
                    OR EXISTS (SELECT FROM {members} m WHERE m.card_number = s.card_number) AS card_taken,
                row_number() OVER (PARTITION BY s.id_number ORDER BY s.line) > 1
                    OR EXISTS (SELECT FROM {members} m WHERE m.id_number = s.id_number) AS number_taken
            FROM {staged} s
            WHERE s.job_id = %(job)s
        ) t
        WHERE card_taken OR number_taken
        ORDER BY line
    """  # noqa: S608 (table names only)
    with connection.chunked_cursor() as cursor:  # a server-side cursor: a million taken rows stream
        cursor.execute(sql, {"job": job_id})
        while rows := cursor.fetchmany(CHUNK_ROWS):
            for line, card_number, id_number, card_taken in rows:
                if card_taken:
                    yield line, f"card number {card_number} already belongs to a member"
                else:
                    yield line, f"id_number {id_number} already belongs to a member"


# --- Members on PostgreSQL: a plain file near COPY's speed ---------------------------------
#
# A plain file (points_file_is_plain: no quotes, NULs, lone carriage returns, undecodable bytes
# or over-long lines) goes to ImportStagedMemberText as it is, a line a row with its number, by
# COPY (members_read_plain). If it is all ASCII without whitespace that strip() removes, one
# statement (members_apply_checked) checks its rows as member_row_plain would and inserts them
# into the members table, in the final step: the usual case, one pass over the rows. If that
# statement leaves a row out or meets a unique index, it is undone and the file goes the longer
# way, as does any other plain file: one statement (members_checked, in members_check) writes
# the rows of the usual shape to ImportStagedMember; the others are read back in line order and
# parsed by parse_member_row as before, which stages them too or words their refusal. The cards
# and document numbers that a member or an earlier row of the file has are named by one
# statement (members_conflicts: when the insert of members_apply hits a unique index, or the
# file has other bad rows). Any other file is read by FastCsvSource, row by row, as before. (A
# card or number repeated in a chain, row 3 repeating row 2's card and row 4 row 3's number,
# names row 4 here, not on the row-by-row path, where row 3 took nothing.)

# The lead bytes of every whitespace character str.strip() removes but the space (a test pins
# it), in UTF-8, and a few letters besides (e2 also starts curly quotes): a line holding one
# is left to Python, as is a line with a space at either end of a cell. SQL then needs no trim.
_ODD_BYTES = re.compile(rb"[\t\x0b\x0c\x1c-\x1f\xc2\xe1\xe2\xe3]")


def _has_odd_spaces(text: bytes) -> bool:
    """Whether these lines may hold a cell that str.strip() would change."""
    if _ODD_BYTES.search(text) is not None or b" ," in text or b", " in text:
        return True
    return b" \n" in text or b"\n " in text or text[:1] == b" " or text[-1:] == b" "


def _sql_day(year: str, month: str, day: str) -> str:
    """The date of these integer expressions, NULL when there is no such day (never an error)."""
    leap = f"CASE WHEN mod({year}, 4) = 0 AND (mod({year}, 100) <> 0 OR mod({year}, 400) = 0) THEN 1 ELSE 0 END"
    last = f"CASE WHEN {month} = 2 THEN 28 + {leap} WHEN {month} IN (4, 6, 9, 11) THEN 30 ELSE 31 END"
    return (
        f"CASE WHEN {year} >= 1 AND {month} BETWEEN 1 AND 12 AND {day} BETWEEN 1 AND {last} "
        f"THEN make_date({year}, {month}, {day}) END"
    )


# A real day of 1900-2099 but 29 February: cast to a date, it cannot fail.
_SQL_DATE = (
    r"^(19|20)[0-9]{2}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)"
    r"|02-(0[1-9]|1[0-9]|2[0-8]))$"
)


def sql_plain_date(text: str) -> str:
    """The date of a YYYY-MM-DD text from 1900 as _plain_date reads it, NULL for any other. 29
    February of a leap year too: a file of 100,000 members has a few born on one, and a row the
    statement leaves sends the whole file to members_check."""
    year = f"substr({text}, 1, 4)::int"
    leap = f"mod({year}, 4) = 0 AND (mod({year}, 100) <> 0 OR mod({year}, 400) = 0)"
    # Most cells are empty (no date of birth beside an SA ID): the length spares them both matches.
    return (
        f"CASE WHEN char_length({text}) <> 10 THEN NULL WHEN {text} ~ '{_SQL_DATE}' THEN {text}::date "
        f"WHEN {text} ~ '^(19|20)[0-9]{{2}}-02-29$' AND {leap} THEN {text}::date END"
    )


def sql_with_sa_id_born(rows: str, number: str, this_year: str) -> str:
    """`rows` (a SELECT) with a column `born` added: sa_id_born of its text column `number`
    when that is 13 ASCII digits (else NULL). The citizenship digit 0 or 1, the Luhn check digit
    (odd positions as they are, even ones doubled with their digits summed: 2d, less 9 above 4)
    and a real YYMMDD in the hundred years up to `this_year`.

    A level a step, each fenced by OFFSET 0, so that every digit is taken once and every later
    expression reads columns: written as one expression, the year and month were computed again
    at each use (52 digit reads a row, 0.53 s for 100,000 numbers against 0.12 s). The columns
    of the steps (sa_...) come along."""
    digits = ", ".join(f"mod(sa_n / {10 ** (13 - p)}, 10)::int AS sa_d{p}" for p in range(1, 14))
    odd = " + ".join(f"sa_d{p}" for p in range(1, 14, 2))
    even = " + ".join(f"(2 * sa_d{p} - 9 * (sa_d{p} / 5))" for p in range(2, 13, 2))
    century = f"(sa_d1 * 10 + sa_d2 + 100 * ({this_year} / 100))"
    born = _sql_day("sa_year", "sa_month", "sa_day")
    return f"""
        SELECT *, CASE WHEN sa_valid THEN {born} END AS born FROM (
            SELECT *, sa_digits AND sa_d11 <= 1 AND mod({odd} + {even}, 10) = 0 AS sa_valid,
                {century} - CASE WHEN {century} > {this_year} THEN 100 ELSE 0 END AS sa_year,
                sa_d3 * 10 + sa_d4 AS sa_month, sa_d5 * 10 + sa_d6 AS sa_day
            FROM (
                SELECT *, {digits} FROM (
                    SELECT *, CASE WHEN sa_digits THEN {number}::bigint ELSE 0 END AS sa_n FROM (
                        SELECT *, char_length({number}) = 13 AND {number} ~ '^[0-9]+$' AS sa_digits
                        FROM ({rows}) sa_rows OFFSET 0
                    ) sa_1 OFFSET 0
                ) sa_2 OFFSET 0
            ) sa_3 OFFSET 0
        ) sa_4
    """  # noqa: S608 (generated expressions; the values are the caller's parameters)


def _spellings(key: str) -> set[str]:
    """A lower-case key as files usually spell it, ASCII only: each lower()s back to the key."""
    return {
        text for text in (key, key.upper(), key.title(), key.capitalize()) if text.isascii() and text.lower() == key
    }


def _sql_ascii(text: str) -> str:
    return f"octet_length({text}) = char_length({text})"


# _PLAIN_EMAIL without its bounded repeats, which PostgreSQL's regular expressions run five
# times slower; the length of the part after "@" is bounded instead (63: no label longer).
_PLAIN_EMAIL_SQL = (
    r"^[A-Za-z0-9_+-]+(\.[A-Za-z0-9_+-]+)*@"
    r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z][A-Za-z]+$"
)


def members_checked(job_id: int, lookups: Lookups, today: dt.date) -> tuple[str, dict]:
    """A statement, with its parameters, giving the job's rows of ImportStagedMemberText as
    (line, ok, the _MEMBER_STAGED values): `ok` is true for a row that member_row_plain reads on
    `today`, with the values it gives (tests pin the two against each other), and false for any
    other row, bad or not: parse_member_row says.

    Each level computes its values once (OFFSET 0 keeps PostgreSQL from copying an expression
    into every place that uses it). Rows with whitespace that strip() would remove are not
    `plain` (members_read_plain), and names, tiers, properties and ID types that are not ASCII
    are left to Python too: PostgreSQL's lower() need not lower them as Python does."""
    qn = connection.ops.quote_name
    params = {"job": job_id, "year": today.year, "today": today, "earliest": EARLIEST_DATE}
    # The keys in their usual spellings (lower() of a row's text costs more than all of these).
    lookup_keys = {
        "tier": [(spelling, tier.id) for key, tier in lookups.tiers.items() for spelling in _spellings(key)],
        "property": [(spelling, p.id) for key, p in lookups.properties.items() for spelling in _spellings(key)],
        "id_type": [
            *((spelling, str(v)) for key, v in _ID_TYPE_ALIASES.items() for spelling in _spellings(key)),
            *((label, str(value)) for value, label in IdType.choices if label not in _spellings(label.lower())),
        ],
    }
    joins = []
    for kind, pairs in lookup_keys.items():
        params[f"{kind}_keys"], params[f"{kind}_values"] = [key for key, _ in pairs], [value for _, value in pairs]
        cast = "text" if kind == "id_type" else "bigint"
        joins.append(
            f"LEFT JOIN unnest(%({kind}_keys)s::text[], %({kind}_values)s::{cast}[]) AS k_{kind}(key, value) "
            f"ON k_{kind}.key = s.{kind}"
        )
    staged = f"""
        SELECT r.line, r.plain, r.card_number, r.first_name, r.last_name, r.id_type, r.id_number,
            r.date_of_birth, r.tier, r.property, replace(r.phone, ' ', '') AS phone, r.email, r.app_registered_on
        FROM {qn(ImportStagedMemberText._meta.db_table)} r
        WHERE r.job_id = %(job)s
    """  # noqa: S608 (a table name only)
    sql = f"""
        SELECT line, COALESCE(
                plain AND char_length(card_number) BETWEEN 6 AND 20 AND card_number ~ '^[0-9]+$'
                AND first_name <> '' AND last_name <> ''
                AND {_sql_ascii("first_name")} AND {_sql_ascii("last_name")}
                AND char_length(first_name) <= 60 AND char_length(last_name) <= 60
                AND id_type_value IS NOT NULL AND id_number ~ '^[A-Za-z0-9]+$'
                AND CASE WHEN born IS NOT NULL THEN date_of_birth = '' OR typed_birth = born
                    ELSE id_type_value <> 'sa_id' AND char_length(id_number) BETWEEN 5 AND 20
                         AND typed_birth IS NOT NULL END
                AND tier_id IS NOT NULL AND property_id IS NOT NULL
                AND CASE char_length(phone) WHEN 0 THEN true WHEN 10 THEN phone ~ '^0[1-9][0-9]+$'
                    WHEN 12 THEN phone ~ '^\\+27[1-9][0-9]+$' ELSE false END
                AND (email = '' OR char_length(email) <= 320 AND char_length(email) - strpos(email, '@') <= 63
                     AND email ~ '{_PLAIN_EMAIL_SQL}')
                AND (app_registered_on = '' OR registered IS NOT NULL),
            false) AS ok,
            card_number, first_name, last_name, lower(first_name || ' ' || last_name) AS search_name,
            CASE WHEN born IS NOT NULL THEN 'sa_id' ELSE id_type_value END AS id_type,
            upper(id_number) AS id_number, COALESCE(born, typed_birth) AS date_of_birth,
            CASE WHEN phone = '' THEN '' ELSE '+27' || right(phone, 9) END AS phone,
            email, tier_id, property_id AS home_property_id, registered AS app_registered_on
        FROM (
            SELECT *,
                CASE WHEN typed BETWEEN %(earliest)s AND %(today)s THEN typed END AS typed_birth,
                CASE WHEN registered_on BETWEEN %(earliest)s AND %(today)s THEN registered_on END AS registered
            FROM (
                SELECT s.*, {sql_plain_date("s.date_of_birth")} AS typed,
                    {sql_plain_date("s.app_registered_on")} AS registered_on,
                    k_id_type.value AS id_type_value, k_tier.value AS tier_id, k_property.value AS property_id
                FROM ({sql_with_sa_id_born(staged, "id_number", "%(year)s")}) s
                {" ".join(joins)}
                OFFSET 0
            ) d
        ) c
    """  # noqa: S608 (table names and generated expressions; the values are parameters)
    return sql, params


def members_read_plain(
    binary: io.BufferedReader,
    job_id: int,
    errors: ErrorSpool,
    counts: ImportCounts,
    stage: Callable[[Iterator[bytes]], None],
) -> bool:
    """A plain file (points_file_is_plain): its rows of 11 cells staged as they are, by COPY
    (members_copy), a chunk at a time (copy_chunks), with the bytes read so far in `counts`; a
    row of any other width is refused by its line, as CsvSource does. True if every row may be
    of the usual shape (ASCII, no whitespace that strip() removes): then members_apply_checked
    may take the whole file at once."""
    header = binary.readline(4 * MAX_LINE_CHARS + 2)
    next(iter(CsvSource(io.BytesIO(header), ImportKind.MEMBERS)), None)  # FileRejected if wrong
    usual = True

    def staging_lines() -> Iterator[bytes]:
        nonlocal usual
        commas, line = len(MEMBER_COLUMNS) - 1, 1
        counts.bytes_read = len(header)
        for block in _blocks(binary):
            text = block.replace(b"\r\n", b"\n")
            odd_block = _has_odd_spaces(text)  # rarely: then each line is looked at
            usual = usual and not odd_block and text.isascii()
            lines = text.split(b"\n")
            if block.endswith(b"\n"):
                lines.pop()  # the nothing after the last line ending
            for body in lines:
                line += 1
                counts.bytes_read += len(body) + 1
                if body.count(b",") == commas:
                    counts.rows += 1
                    plain = b"f" if odd_block and _has_odd_spaces(body) else b"t"
                    yield b"%d,%d,%b,%b\n" % (job_id, line, plain, body)
                    continue
                text = body.decode()
                cells = text.split(",")
                if any(cell.strip() for cell in cells):  # blank lines, often at the end of a file, are not rows
                    counts.rows += 1
                    errors.add(line, f"expected {commas + 1} columns, found {len(cells)}", text)

    for chunk in copy_chunks(staging_lines()):
        stage(chunk)
    return usual


def members_copy(data: bytes | Iterator[bytes]) -> None:
    """Staging lines (CSV: job, line, plain, the file's 11 cells) into ImportStagedMemberText,
    whole or in pieces (copy_chunks)."""
    if not data:
        return
    pieces = [data] if isinstance(data, bytes) else data
    columns = ", ".join(MEMBER_COLUMNS)
    table = connection.ops.quote_name(ImportStagedMemberText._meta.db_table)
    copy_sql = f"COPY {table} (job_id, line, plain, {columns}) FROM STDIN (FORMAT csv, FORCE_NOT_NULL ({columns}))"
    with connection.cursor() as cursor, cursor.cursor.copy(copy_sql) as copy:
        for piece in pieces:
            copy.write(piece)


def job_today(job_id: int) -> dt.date:
    """The day an import's rows are checked on (dates "until today"): the day it started."""
    started = ImportJob.objects.filter(pk=job_id).values_list("started_at", flat=True).first()
    return timezone.localdate(started or timezone.now())


def members_check(
    job_id: int, lookups: Lookups, errors: ErrorSpool, counts: ImportCounts, stage: Callable[[list[tuple]], None]
) -> None:
    """Check the job's ImportStagedMemberText rows into ImportStagedMember: those of the usual
    shape by one statement (members_checked), then the others in line order by parse_member_row,
    which stages the good ones (`stage`, a batch at a time) and words the refusal of the rest. A
    row of blank cells is no row (CsvSource's rule), whatever blanks they are."""
    checked, params = members_checked(job_id, lookups, job_today(job_id))
    qn = connection.ops.quote_name
    text, staged = qn(ImportStagedMemberText._meta.db_table), qn(ImportStagedMember._meta.db_table)
    columns = ", ".join(qn(column) for column in _MEMBER_STAGED)
    with transaction.atomic(), connection.cursor() as cursor:
        # Compiling this statement's many expressions costs more than it saves.
        cursor.execute("SELECT set_config('jit', 'off', true)")
        cursor.execute(
            f"INSERT INTO {staged} (job_id, line, {columns}) "  # noqa: S608 (names only)
            f"SELECT %(job)s, line, {columns} FROM ({checked}) c WHERE ok",
            params,
        )
        if cursor.rowcount == counts.rows - errors.count:
            return  # every row staged by COPY was of the usual shape (the others so far: too wide)
    odd = f"""
        SELECT r.line, {", ".join(f"r.{qn(column)}" for column in MEMBER_COLUMNS)}
        FROM {text} r
        WHERE r.job_id = %(job)s AND NOT EXISTS (SELECT FROM {staged} s WHERE s.job_id = %(job)s AND s.line = r.line)
        ORDER BY r.line
    """  # noqa: S608 (table names only)
    name = f"members_odd_{job_id}"
    with transaction.atomic(), connection.cursor() as cursor:
        # A cursor, so that a million odd rows stream; planned for all its rows, not for the
        # first ones (a loop over the staging table for each row: minutes), and held, so the
        # batches below commit one by one.
        cursor.execute(
            "SELECT set_config('cursor_tuple_fraction', '1', true), set_config('enable_nestloop', 'off', true)"
        )
        cursor.execute(f"DECLARE {name} NO SCROLL CURSOR WITH HOLD FOR {odd}", {"job": job_id})
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"FETCH {CHUNK_ROWS} FROM {name}")
            rows = cursor.fetchall()
        while rows:
            good = []
            for line, *cells in rows:
                if not any(cell.strip() for cell in cells):
                    counts.rows -= 1
                    continue
                try:
                    member = parse_member_row(dict(zip(MEMBER_COLUMNS, cells, strict=True)), lookups)
                except RowInvalid as invalid:
                    errors.add(line, str(invalid), ",".join(cells))  # a plain row's text is its cells
                    continue
                good.append((job_id, line, *(getattr(member, column) for column in _MEMBER_STAGED)))
            stage(good)
            with connection.cursor() as cursor:
                cursor.execute(f"FETCH {CHUNK_ROWS} FROM {name}")
                rows = cursor.fetchall()
    finally:
        if not connection.needs_rollback:  # else the error that stopped us is the one to see
            with connection.cursor() as cursor:
                cursor.execute(f"CLOSE {name}")


# --- Points -----------------------------------------------------------------------------------


def points_chunk_check(
    chunk: list[Record],
    *,
    job_id: int,
    lookups: Lookups,
    errors: ErrorSpool,
    counts: ImportCounts,
    now: dt.datetime,
) -> list[tuple]:
    """The staging rows of one chunk's good points; bad rows go to `errors`. A reference
    already in the ledger is skipped (re-importing a file adds nothing twice); one staged
    earlier from this same file is a duplicate row."""
    parsed: list[PointsRow] = _parsed(
        chunk, errors, counts, lambda record: parse_points_row(record.line, record.row, lookups, now)
    )
    member_ids = dict(
        Member.objects.filter(card_number__in={p.card_number for p in parsed}).values_list("card_number", "id")
    )
    keys = {
        "property_id__in": {p.property_id for p in parsed},  # leads the unique index
        "reference__in": {p.reference for p in parsed},
    }
    in_ledger = set(PointsEntry.objects.filter(**keys).values_list("property_id", "reference"))
    in_file = set(ImportStagedPoints.objects.filter(job_id=job_id, **keys).values_list("property_id", "reference"))
    texts = {record.line: record.text for record in chunk}
    fresh = []
    for p in parsed:
        key = (p.property_id, p.reference)
        if p.card_number not in member_ids:
            errors.add(p.line, f"unknown card number {p.card_number}", texts[p.line])
        elif key in in_file:
            twice = f"reference {p.reference} appears twice in this file for {p.property_code}"
            errors.add(p.line, twice, texts[p.line])
        elif key in in_ledger:
            counts.skipped += 1
        else:
            in_file.add(key)
            fresh.append(
                (
                    job_id,
                    p.line,
                    p.card_number,
                    member_ids[p.card_number],
                    p.property_id,
                    p.earned_at,
                    p.points,
                    p.reference,
                )
            )
    counts.imported += len(fresh)
    return fresh


def points_stage(rows: list[tuple] | bytes | Iterator[bytes]) -> None:
    """One chunk of staged points: points_chunk_check's tuples, or on PostgreSQL PointsReader's
    CSV lines for COPY (points_copy)."""
    if not isinstance(rows, list):
        points_copy(rows)
        return
    columns = ["job_id", "line", "card_number", "member_id", "property_id", "earned_at", "points", "reference"]
    bulk_insert(ImportStagedPoints._meta.db_table, columns, rows)


def points_apply(job_id: int, *, insert: bool = True) -> tuple[int, int, int]:
    """Move the job's staged points to the ledger in one statement: (rows staged, rows whose
    card number is no member's, rows inserted). A reference already in the ledger is skipped,
    as a re-import would (another import may have written it since the check). On PostgreSQL
    the file's months must be partitions already (points_months) or the rows go to the default
    partition;
    the card numbers are resolved here, and nothing is inserted unless `insert` and every card
    number is a member's; points_bad_rows then names the rows."""
    if connection.vendor == "postgresql":
        return _points_apply_copied(job_id, insert=insert)
    qn = connection.ops.quote_name
    sql = (
        f"INSERT INTO {qn(PointsEntry._meta.db_table)} "  # noqa: S608
        "(member_id, property_id, earned_at, points, reference, import_job_id) "
        "SELECT s.member_id, s.property_id, s.earned_at, s.points, s.reference, s.job_id "
        f"FROM {qn(ImportStagedPoints._meta.db_table)} s WHERE s.job_id = %s "
        # A reference already in the ledger is skipped (points_chunk_check refused one twice in
        # the file): the README's promise for a re-import. SQLite has one writer at a time.
        f"AND NOT EXISTS (SELECT 1 FROM {qn(PointsEntry._meta.db_table)} l "
        "WHERE l.property_id = s.property_id AND l.reference = s.reference) "
        "ORDER BY s.property_id, s.reference"
    )
    staged = ImportStagedPoints.objects.filter(job_id=job_id).count()
    with connection.cursor() as cursor:
        cursor.execute(sql, [job_id])
        return staged, 0, cursor.rowcount


def _points_skip_imported() -> str:
    """A reference already in the ledger is skipped, not an error: the README's promise for a
    re-import, and what keeps the second of two copies uploaded at once from failing (their
    final steps take turns: the points imports' advisory lock). On PostgreSQL the unique index
    holds earned_at too (the partition key), so this anti-join is what keeps a reference met
    with another earned_at out; `taken` is the ledger's rows with the file's references."""
    return "AND NOT EXISTS (SELECT FROM taken t WHERE t.property_id = s.property_id AND t.reference = s.reference)"


def points_months(months: Iterable[dt.datetime]) -> None:
    """Make each of these months (PointsReader.months) a partition of the ledger if it is not
    one yet (members_points_month, migration 0018). In a transaction of its own before the final
    step: making a month locks the default partition until COMMIT."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT members_points_month(m) FROM unnest(%s::timestamptz[]) m", [sorted(months)])


def staging_clear(job_id: int) -> None:
    ImportStagedMember.objects.filter(job_id=job_id).delete()
    ImportStagedMemberText.objects.filter(job_id=job_id).delete()
    ImportStagedPoints.objects.filter(job_id=job_id).delete()


# --- Points on PostgreSQL: the file near COPY's speed --------------------------------------
#
# A file as the casino management system writes it (no quotes, one row a line, UTF-8) is read
# in blocks: a row in the plain form (below) goes to the staging table as it is, with its line
# number, through COPY; any other row is parsed by parse_points_row, exactly as before, and
# written normalised or reported. The card numbers, the duplicates and the ledger are then
# checked by whole statements (points_apply). A file with quotes, NULs, lone carriage
# returns, undecodable bytes or over-long lines is read by CsvSource, row by row, as before.

_BLOCK_BYTES = 2**20
# The plain form of a points row: card digits, property, local time "YYYY-MM-DD HH:MM:SS" in
# 20xx, points 1 to 999,999,999, a reference of printable ASCII without a comma or a space at
# either end. Every row of this form is one parse_points_row accepts and reads the same way.
_PLAIN_POINTS = re.compile(
    rb"(\d{6,20}),([ -+\--~]+),"
    rb"(20\d\d-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]) (?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d),"
    rb"(?!0+,)(\d{1,9}),([!-+\--~](?:[ -+\--~]{0,62}[!-+\--~])?)"
)


def _blocks(binary: io.BufferedReader) -> Iterator[bytes | None]:
    """The file in blocks of whole lines; None for a block with a line longer than any row."""
    while block := binary.read(_BLOCK_BYTES):
        if not block.endswith(b"\n"):
            block += binary.readline(MAX_LINE_CHARS + 1)
            if not block.endswith(b"\n") and len(block.rsplit(b"\n", 1)[-1]) > MAX_LINE_CHARS:
                yield None
                return
        yield block


# A chunk's staging lines go to COPY a piece at a time: the server takes in one piece while
# Python reads the next (two processes, two cores), where a chunk sent whole waited for both.
_PIECE_ROWS = 500


def copy_chunks(lines: Iterator[bytes]) -> Iterator[Iterator[bytes]]:
    """Staging lines in chunks of CHUNK_ROWS lines or CHUNK_CHARS (a transaction each), each
    chunk as pieces of _PIECE_ROWS lines, read as the chunk's COPY asks for them. Each chunk
    must be read to its end before the next is asked for."""
    for first in lines:
        yield _chunk_pieces(first, lines)


def _chunk_pieces(first: bytes, lines: Iterator[bytes]) -> Iterator[bytes]:
    piece, rows, size = [first], 1, len(first)
    while rows < CHUNK_ROWS and size < CHUNK_CHARS and (line := next(lines, None)) is not None:
        piece.append(line)
        rows, size = rows + 1, size + len(line)
        if len(piece) >= _PIECE_ROWS:
            yield b"".join(piece)
            piece = []
    if piece:
        yield b"".join(piece)


def points_file_is_plain(binary: io.BufferedReader) -> bool:
    """True if every line of the file is one row: no quotes, NULs, lone carriage returns,
    undecodable bytes or lines longer than any row (CsvSource's cases). Reads the whole file."""
    binary.seek(0)
    try:
        for block in _blocks(binary):
            if block is None or b'"' in block or b"\x00" in block or block.count(b"\r") != block.count(b"\r\n"):
                return False
            block.decode("utf-8")
            if max(map(len, block.split(b"\n"))) > MAX_LINE_CHARS:
                return False
    except UnicodeDecodeError:
        return False
    finally:
        binary.seek(0)
    return True


@dataclass
class PointsReader:
    """Reads a points file into ImportStagedPoints for one job: the rows that may be imported,
    normalised; the bad ones to `errors`. `stage(rows)` writes a batch in a transaction of its
    own (the caller's heartbeat and progress): CHUNK_ROWS rows or CHUNK_CHARS at most."""

    job_id: int
    lookups: Lookups
    errors: ErrorSpool
    counts: ImportCounts
    now: dt.datetime
    # The local hours ("YYYY-MM-DD HH") of the plain rows staged, and the UTC months of the
    # others: the ledger's months to make (months), without reading the staged rows again.
    # Both stay small whatever the file's size (an hour or a month, not a row, each).
    _hours: set[bytes] = field(default_factory=set, init=False, repr=False)
    _months: set[dt.datetime] = field(default_factory=set, init=False, repr=False)

    def months(self) -> set[dt.datetime]:
        """The first instant (UTC) of each month the staged rows' earned_at fall in."""
        months = set(self._months)
        for hour in self._hours:
            start = dt.datetime.strptime(hour.decode(), "%Y-%m-%d %H").replace(tzinfo=_LOCAL)
            months |= {_utc_month(start), _utc_month(start + dt.timedelta(minutes=59, seconds=59))}
        return months

    def _keys(self) -> dict[bytes, int]:
        """Property names and codes (lower case, ASCII) where this importer may import points."""
        return {
            key.encode(): prop.pk
            for key, prop in self.lookups.properties.items()
            if key.isascii() and prop.pk not in self.lookups.elsewhere
        }

    def _bounds(self) -> tuple[bytes, bytes]:
        """The plain form's earliest and latest earned_at, as local "YYYY-MM-DD HH:MM:SS"."""
        earliest = EARLIEST_POINTS.astimezone(_LOCAL)
        # A local time up to `now` (to the second, rounded down) is not in the future.
        latest = self.now.astimezone(_LOCAL)
        return f"{earliest:%Y-%m-%d %H:%M:%S}".encode(), f"{latest:%Y-%m-%d %H:%M:%S}".encode()

    def _parsed(self, line: int, cells: list[str], text: str) -> bytes | None:
        """A row not in the plain form: parse_points_row's verdict, as a staging line or None."""
        if not any(cell.strip() for cell in cells):
            return None  # blank lines, often at the end of a file
        self.counts.rows += 1
        if len(cells) != len(POINTS_COLUMNS):
            self.errors.add(line, f"expected {len(POINTS_COLUMNS)} columns, found {len(cells)}", text)
            return None
        try:
            p = parse_points_row(line, dict(zip(POINTS_COLUMNS, cells, strict=True)), self.lookups, self.now)
        except RowInvalid as invalid:
            self.errors.add(line, str(invalid), text)
            return None
        self._months.add(_utc_month(p.earned_at))
        return self._csv_line(p)

    def _csv_line(self, p: PointsRow) -> bytes:
        cells = [str(self.job_id), str(p.line), p.card_number, str(p.property_id), p.earned_at.isoformat(sep=" ")]
        cells += [str(p.points), p.reference]
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(cells)
        return out.getvalue().encode()

    def read_plain(self, binary: io.BufferedReader, stage: Callable[[Iterator[bytes]], None]) -> None:
        """A plain file (points_file_is_plain): its rows staged by COPY, a chunk at a time
        (copy_chunks)."""
        header = binary.readline(4 * MAX_LINE_CHARS + 2)
        next(iter(CsvSource(io.BytesIO(header), ImportKind.POINTS)), None)  # FileRejected if wrong
        for chunk in copy_chunks(self._plain_lines(binary)):
            stage(chunk)

    def _plain_lines(self, binary: io.BufferedReader) -> Iterator[bytes]:
        """The staging lines of a plain file's rows after its header; the bad rows to `errors`."""
        keys, (earliest, latest) = self._keys(), self._bounds()
        job, match, line, hours = self.job_id, _PLAIN_POINTS.fullmatch, 1, self._hours
        for block in _blocks(binary):
            lines = block.replace(b"\r\n", b"\n").split(b"\n")
            if block.endswith(b"\n"):
                lines.pop()  # the nothing after the last line ending
            for body in lines:
                line += 1
                m = match(body)
                if (
                    m is not None
                    and (prop := keys.get(m[2].lower())) is not None
                    and earliest <= m[3] <= latest
                    and (m[3][8:10] <= b"28" or _real_day(m[3]))
                ):
                    self.counts.rows += 1
                    hours.add(m[3][:13])
                    yield b"%d,%d,%b,%d,%b,%b,%b\n" % (job, line, m[1], prop, m[3], m[4], m[5])
                    continue
                text = body.decode()
                if (parsed := self._parsed(line, text.split(","), text)) is not None:
                    yield parsed

    def read_records(self, binary: io.BufferedReader, stage: Callable[[bytes], None]) -> None:
        """Any other file, through CsvSource: every row parsed by parse_points_row."""
        for chunk in chunks(iter(CsvSource(binary, ImportKind.POINTS))):
            out = []
            for record in chunk:
                if record.is_blank:
                    continue
                if record.problem:
                    self.counts.rows += 1
                    self.errors.add(record.line, record.problem, record.text)
                    continue
                parsed = self._parsed(record.line, list(record.row.values()), record.text)
                if parsed is not None:
                    out.append(parsed)
            stage(b"".join(out))


def _utc_month(moment: dt.datetime) -> dt.datetime:
    """The first instant of the UTC month of an aware moment: the ledger's partitions are months in UTC."""
    utc = moment.astimezone(dt.UTC)
    return dt.datetime(utc.year, utc.month, 1, tzinfo=dt.UTC)


def _real_day(moment: bytes) -> bool:
    """Whether the 29th, 30th or 31st of a plain earned_at is in its month."""
    try:
        dt.date.fromisoformat(moment[:10].decode())
    except ValueError:
        return False
    return True


def points_copy(data: bytes | Iterator[bytes]) -> None:
    """Staging lines (CSV: job, line, card, property id, earned_at, points, reference) into
    ImportStagedPoints, whole or in pieces (copy_chunks). A plain earned_at has no offset: it is
    casino local time."""
    if not data:
        return
    pieces = [data] if isinstance(data, bytes) else data
    table = connection.ops.quote_name(ImportStagedPoints._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('TimeZone', %s, true)", [str(_LOCAL)])
        copy_sql = (
            f"COPY {table} (job_id, line, card_number, property_id, earned_at, points, reference) "
            "FROM STDIN (FORMAT csv)"
        )
        with cursor.cursor.copy(copy_sql) as copy:
            for piece in pieces:
                copy.write(piece)
        cursor.execute("SELECT set_config('TimeZone', 'UTC', true)")  # Django's, for the rest


def _points_apply_copied(job_id: int, *, insert: bool) -> tuple[int, int, int]:
    """points_apply on PostgreSQL: the members joined, the rows inserted and counted in one
    statement. A reference already in the ledger is skipped (_points_skip_imported); a
    reference twice among the other rows (for one property) inserts nothing, like an unknown
    card number: points_bad_rows names the rows when the counts differ.

    The ledger's references are looked up between the file's least and greatest reference at
    each property: a file of new references (the CMS numbers them in order) finds none there in
    one index descent a month, where a look-up a row would descend into every month's index."""
    qn = connection.ops.quote_name
    ledger = qn(PointsEntry._meta.db_table)
    sql = f"""
        WITH s AS MATERIALIZED (
            SELECT m.id AS member_id, s.property_id, s.earned_at, s.points, s.reference
            FROM {qn(ImportStagedPoints._meta.db_table)} s
            LEFT JOIN {qn(Member._meta.db_table)} m ON m.card_number = s.card_number
            WHERE s.job_id = %(job)s
        ), span AS (
            SELECT property_id, min(reference) AS lo, max(reference) AS hi FROM s GROUP BY property_id
        ), taken AS MATERIALIZED (
            -- Through each month's unique index, a descent per property, never a scan of the ledger:
            -- OFFSET 0 keeps the planner from flattening the LATERAL subquery into a hash join.
            SELECT t.property_id, t.reference
            FROM span CROSS JOIN LATERAL (
                SELECT l.property_id, l.reference FROM {ledger} l
                WHERE l.property_id = span.property_id AND l.reference BETWEEN span.lo AND span.hi
                OFFSET 0
            ) t
        ), twice AS (
            -- A reference twice in the file (one already in the ledger is skipped however often).
            SELECT FROM (SELECT property_id, reference FROM s GROUP BY 1, 2 HAVING count(*) > 1) d
            WHERE NOT EXISTS (SELECT FROM taken t WHERE t.property_id = d.property_id AND t.reference = d.reference)
            LIMIT 1
        ), ins AS (
            INSERT INTO {ledger} (member_id, property_id, earned_at, points, reference, import_job_id)
            SELECT member_id, property_id, earned_at, points, reference, %(job)s FROM s
            WHERE %(insert)s AND member_id IS NOT NULL AND NOT EXISTS (SELECT FROM s WHERE member_id IS NULL)
              AND NOT EXISTS (SELECT FROM twice) {_points_skip_imported()}
            -- In points_member_idx's order: its leaf pages are visited once each, in order, not
            -- once a row at random. Points imports apply one at a time (the advisory lock), so no
            -- order is needed against deadlocks between them.
            ORDER BY member_id, earned_at
            RETURNING 1
        )
        SELECT (SELECT count(*) FROM s), (SELECT count(*) FROM s WHERE member_id IS NULL), (SELECT count(*) FROM ins)
    """  # noqa: S608 (table names only)
    with connection.cursor() as cursor:
        # Fresh staging rows have no statistics: without them the join may be planned blind.
        cursor.execute(f"ANALYZE {qn(ImportStagedPoints._meta.db_table)}")
        # The sort and the join of a big file in memory, not in temporary files (this transaction).
        cursor.execute("SELECT set_config('work_mem', '64MB', true)")
        # Its estimated cost is far above jit_above_cost, and compiling took over a second for a
        # statement bound by writing rows, not by evaluating expressions (as draws.allocation).
        cursor.execute("SELECT set_config('jit', 'off', true)")
        cursor.execute(sql, {"job": job_id, "insert": insert})
        return cursor.fetchone()


def points_bad_rows(job_id: int) -> Iterator[tuple[int, str]]:
    """The job's staged rows that may not be imported, in line order, as (line, message): an
    unknown card number, or a reference a row above it already has (for the same property),
    unless that reference was in the ledger before this job (a re-import: skipped)."""
    qn = connection.ops.quote_name
    ledger = qn(PointsEntry._meta.db_table)
    sql = f"""
        SELECT d.line, d.unknown, d.card_number, d.reference, p.code
        FROM (
            SELECT s.line, s.card_number, s.reference, s.property_id, m.id IS NULL AS unknown,
                   row_number() OVER (
                       PARTITION BY s.property_id, s.reference, m.id IS NULL ORDER BY s.line
                   ) AS nth
            FROM {qn(ImportStagedPoints._meta.db_table)} s
            LEFT JOIN {qn(Member._meta.db_table)} m ON m.card_number = s.card_number
            WHERE s.job_id = %(job)s
        ) d
        JOIN {qn(Property._meta.db_table)} p ON p.id = d.property_id
        WHERE d.unknown OR (d.nth > 1 AND NOT EXISTS (
            SELECT FROM {ledger} l WHERE l.property_id = d.property_id AND l.reference = d.reference
              AND l.import_job_id IS DISTINCT FROM %(job)s
        ))
        ORDER BY d.line
    """  # noqa: S608 (table names only)
    with connection.chunked_cursor() as cursor:  # a server-side cursor: a million bad rows stream
        cursor.execute(sql, {"job": job_id})
        while rows := cursor.fetchmany(5000):
            for line, unknown, card_number, reference, code in rows:
                if unknown:
                    yield line, f"unknown card number {card_number}"
                else:
                    yield line, f"reference {reference} appears twice in this file for {code}"
