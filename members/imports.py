"""CSV imports of members and points from the casino management system.

All or nothing per file: rows are written inside one transaction as they are read, and the
transaction is rolled back if any row was bad, so a rejected file leaves no trace but its
error report. Memory stays bounded: the file is streamed in chunks, rows already written are
found again through the database (not a set in memory), and errors are spooled to a
temporary file until the rollback is over.
"""

import csv
import datetime as dt
import io
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils import timezone

from core.bulk import bulk_insert
from members.identity import IdType, is_sa_id_number, normalise_id_number, validate_identity
from members.models import ImportKind, Member, PointsEntry, Property, Tier

CHUNK_ROWS = 5000

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

_CARD = re.compile(r"^\d{6,20}$")
_POINTS = re.compile(r"^\d{1,9}$")
_LOCAL = timezone.get_default_timezone()
_PHONE = re.compile(r"^\+?[0-9 ]{7,20}$")
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


class ErrorSpool:
    """Bad rows, kept on disk: a file of a million bad rows must not fill memory."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")  # noqa: SIM115 (closed by close())
        self._writer = csv.writer(self._file)
        self.count = 0

    def add(self, line: int, message: str) -> None:
        self._writer.writerow([line, message[:500]])
        self.count += 1

    def __iter__(self) -> Iterator[tuple[int, str]]:
        self._file.seek(0)
        for line, message in csv.reader(self._file):
            yield int(line), message

    def close(self) -> None:
        self._file.close()


@dataclass
class Lookups:
    """The small reference tables, loaded once per file."""

    tiers: dict[str, Tier] = field(default_factory=dict)
    properties: dict[str, Property] = field(default_factory=dict)

    @classmethod
    def load(cls) -> "Lookups":
        lookups = cls()
        for tier in Tier.objects.all():
            lookups.tiers[tier.name.lower()] = lookups.tiers[tier.code.lower()] = tier
        for prop in Property.objects.all():
            lookups.properties[prop.name.lower()] = lookups.properties[prop.code.lower()] = prop
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
    value = value.strip()
    if not value:
        if required:
            reasons.append(f"{column} is required")
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        reasons.append(f"{column} {value!r} is not a date (YYYY-MM-DD)")
        return None


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
    phone = row["phone"].strip()
    if phone and not _PHONE.match(phone):
        reasons.append(f"phone {phone!r} is not a phone number")
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
    earned_at = _timestamp(row["earned_at"], "earned_at", reasons)
    if earned_at and earned_at > now:
        reasons.append(f"earned_at {row['earned_at'].strip()} is in the future")
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


def read_rows(binary: io.BufferedReader, kind: str) -> Iterator[tuple[int, dict[str, str] | None, str]]:
    """Yield (line, row, problem) for every data row; the header is checked first."""
    text = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")
    reader = csv.reader(text)
    try:
        header = next(reader, None)
        if header is None or not any(cell.strip() for cell in header):
            raise FileRejected("The file is empty: expected a header line and at least one row.")
        expected = COLUMNS[kind]
        found = [cell.strip().lower() for cell in header]
        if found != expected:
            raise FileRejected(f"Line 1: wrong header. Expected: {','.join(expected)}. Found: {','.join(header)}.")
        width = len(expected)
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue  # blank lines, often at the end of a file
            if len(cells) != width:
                yield reader.line_num, None, f"expected {width} columns, found {len(cells)}"
                continue
            yield reader.line_num, dict(zip(expected, cells, strict=True)), ""
    except UnicodeDecodeError:
        raise FileRejected(
            f"The file is not UTF-8 text (after line {reader.line_num}): save it as CSV UTF-8 and try again."
        ) from None
    except csv.Error as error:
        raise FileRejected(f"Line {reader.line_num}: the CSV is malformed ({error}).") from None
    finally:
        text.detach()  # the caller owns the binary file: don't let the wrapper close it


def _chunks(rows: Iterator, size: int) -> Iterator[list]:
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def import_members_rows(rows: Iterator, errors: ErrorSpool, counts: ImportCounts, progress: Callable) -> None:
    lookups = Lookups.load()
    for chunk in _chunks(rows, CHUNK_ROWS):
        parsed: list[tuple[int, Member]] = []
        for line, row, problem in chunk:
            counts.rows += 1
            try:
                if problem:
                    raise RowInvalid([problem])
                parsed.append((line, parse_member_row(row, lookups)))
            except RowInvalid as invalid:
                errors.add(line, str(invalid))
        # Rows written from earlier chunks are in the database already (same transaction).
        cards = {m.card_number for _, m in parsed}
        taken_cards = set(Member.objects.filter(card_number__in=cards).values_list("card_number", flat=True))
        # One member per document number whatever its type (the member_unique_id_number constraint).
        numbers = {m.id_number for _, m in parsed}
        taken_ids = set(Member.objects.filter(id_number__in=numbers).values_list("id_number", flat=True))
        fresh: list[Member] = []
        for line, member in parsed:
            identity = member.id_number
            if member.card_number in taken_cards:
                errors.add(line, f"card number {member.card_number} already belongs to a member")
            elif identity in taken_ids:
                errors.add(line, f"id_number {member.id_number} already belongs to a member")
            else:
                taken_cards.add(member.card_number)
                taken_ids.add(identity)
                fresh.append(member)
        # Written even after a bad row: later chunks find duplicates through the database,
        # and the rollback removes everything if the file is rejected.
        Member.objects.bulk_create(fresh)
        counts.imported += len(fresh)
        progress(counts)


def import_points_rows(
    rows: Iterator, errors: ErrorSpool, counts: ImportCounts, progress: Callable, job_id: int
) -> None:
    lookups = Lookups.load()
    now = timezone.now()
    for chunk in _chunks(rows, CHUNK_ROWS):
        parsed: list[PointsRow] = []
        for line, row, problem in chunk:
            counts.rows += 1
            try:
                if problem:
                    raise RowInvalid([problem])
                parsed.append(parse_points_row(line, row, lookups, now))
            except RowInvalid as invalid:
                errors.add(line, str(invalid))
        member_ids = dict(
            Member.objects.filter(card_number__in={p.card_number for p in parsed}).values_list("card_number", "id")
        )
        # An existing reference from an earlier file is skipped (re-import adds nothing twice);
        # one written earlier from this same file is a duplicate row.
        seen = {
            (prop_id, reference): from_job
            for prop_id, reference, from_job in PointsEntry.objects.filter(
                property_id__in={p.property_id for p in parsed},  # leads the unique index
                reference__in={p.reference for p in parsed},
            ).values_list("property_id", "reference", "import_job_id")
        }
        fresh = []
        for p in parsed:
            key = (p.property_id, p.reference)
            if p.card_number not in member_ids:
                errors.add(p.line, f"unknown card number {p.card_number}")
            elif key in seen and seen[key] == job_id:
                errors.add(p.line, f"reference {p.reference} appears twice in this file for {p.property_code}")
            elif key in seen:
                counts.skipped += 1
            else:
                seen[key] = job_id
                fresh.append((member_ids[p.card_number], p.property_id, p.earned_at, p.points, p.reference, job_id))
        # Written even after a bad row: later chunks find duplicates through the database,
        # and the rollback removes everything if the file is rejected.
        bulk_insert(
            PointsEntry._meta.db_table,
            ["member_id", "property_id", "earned_at", "points", "reference", "import_job_id"],
            fresh,
        )
        counts.imported += len(fresh)
        progress(counts)
