"""RAPS sessions: the active-player list a manager uploads before the session is drawn
(DRAWS.md §5, issue 8 item 3).

The list is a CSV `card_number,device_type,device_id,spend` exported from the gaming system.
Any bad row refuses the whole file (every bad row is reported by its line). The rows that
qualify (minimum spend met, machine not excluded, member eligible) make the canonical list,
whose SHA-256 is published with the commitment of a fresh seed before the first pick; the draw
engine picks row numbers within each pool (slot, table) from it.
"""

import csv
import datetime as dt
import hashlib
import io
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.bulk import bulk_insert
from core.errors import DomainError
from core.formats import local_datetime
from draws.allocation import eligibility_span, person_refusals_for_draw
from draws.models import Draw, RapsEntry, RapsList, RapsPool
from draws.seeding import seed_commit
from members.eligibility import eligible_sql
from members.models import Member
from members.staff import check_staff_property
from promotions.models import DrawMethod, DrawSeries

HEADER = ("card_number", "device_type", "device_id", "spend")
MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 100_000
DEVICE_ID_MAX = RapsEntry._meta.get_field("device_id").max_length
CARD_MAX = Member._meta.get_field("card_number").max_length
POOLS = (RapsPool.SLOT, RapsPool.TABLE)  # the canonical order of the pools ("slot" < "table")
SPEND_MAX_CENTS = 10**15  # R 10 trillion: more is a column mix-up, not a night's play
LOOKUP_CHUNK = 10_000  # cards per query: stays far below the database's parameter limits

# Spend in rand: digits, then optionally a point and one or two digits ("1500", "1500.5", "1500.50").
_SPEND = re.compile(r"[0-9]+(?:\.[0-9]{1,2})?")
# Characters that would break the canonical line or the page: separators, quotes, controls.
_UNSAFE = re.compile(r'[,"\x00-\x1f\x7f\ufffd\ud800-\udfff]')
_EXCLUDED_SPLIT = re.compile(r"[,;\n]")
# A first character a spreadsheet runs as a formula when the list or an export is opened
# (= + - @; a tab or carriage return is a control character, refused by _UNSAFE already).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

LEFT_OUT_REASONS = {
    "below_min_spend": "Spend below the minimum",
    "excluded_device": "Played on an excluded machine",
    "tier": "Tier not eligible for this session",
    "not_eligible": "Excluded or under 18",
}


# --- Money ---------------------------------------------------------------------------------


def spend_to_cents(text: str) -> int:
    """Rand with up to two decimals as whole cents, exactly ("1500.5" -> 150050). ValueError
    with the reason, in words, otherwise."""
    value = text.strip()
    if not value:
        raise ValueError("spend is blank")
    if value.startswith("-"):
        raise ValueError(f"spend “{value}” is negative")
    if "," in value or " " in value:
        raise ValueError(f"spend “{value}” has a thousands separator: write 1500.00")
    if value[0] in "Rr":
        raise ValueError(f"spend “{value}” starts with R: write the amount only, like 1500.00")
    if not _SPEND.fullmatch(value):
        raise ValueError(f"spend “{value}” is not an amount in rand like 1500.00 (at most two decimals)")
    whole, _, decimals = value.partition(".")
    cents = int(whole) * 100 + int(decimals.ljust(2, "0"))
    if cents >= SPEND_MAX_CENTS:
        raise ValueError(f"spend “{value}” is far too large to be one session's play")
    return cents


def rand(cents: int) -> str:
    """R 1,500.00 (SCREENS.md rule 4)."""
    return f"R {cents // 100:,}.{cents % 100:02d}"


# --- Excluded machines ---------------------------------------------------------------------


def excluded_devices_parse(text: str) -> list[str]:
    """The excluded machines as typed by a manager: `type:machine` entries separated by commas,
    semicolons or new lines ("slot:A17, table:BJ3"), the type slot or table. Returns them as
    "slot:A17" (type in lower case, machine in upper case, as device ids are kept on upload),
    each once; ValueError naming the first entry that is not in that form."""
    devices: list[str] = []
    for entry in _EXCLUDED_SPLIT.split(text):
        entry = entry.strip()
        if not entry:
            continue
        kind, colon, device_id = entry.partition(":")
        kind, device_id = kind.strip().lower(), device_id.strip()
        if not colon or kind not in POOLS or not device_id:
            raise ValueError(f"“{entry}” is not a machine like slot:A17 or table:BJ3.")
        if len(device_id) > DEVICE_ID_MAX or _UNSAFE.search(device_id):
            raise ValueError(f"“{entry}”: a machine number has at most {DEVICE_ID_MAX} characters and no quotes.")
        if device_id.startswith(_FORMULA_START):
            raise ValueError(f"“{entry}”: a machine number cannot start with = + - or @.")
        device = f"{kind}:{normalise_device_id(device_id)}"
        if device not in devices:
            devices.append(device)
    return devices


def normalise_device_id(device_id: str) -> str:
    """One machine, one id: "a17" and "A17" are the same machine on the floor. Applied on upload
    (before the canonical list is written) and to the excluded machines."""
    return device_id.strip().upper()


def _device_key(pool: str, device_id: str) -> str:
    # Machine numbers are matched whatever their case (a list uploaded before ids were kept in
    # upper case may hold "a17"): "slot:a17" excludes A17 on the floor.
    return f"{pool}:{device_id.casefold()}"


# --- Parsing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RapsRow:
    line: int
    card_number: str
    pool: str
    device_id: str
    spend_cents: int
    member: Member

    @property
    def device(self) -> str:
        return f"{self.pool}:{self.device_id}"

    def sort_key(self) -> tuple[bytes, bytes, bytes]:
        """DRAWS.md §5: (device_type, device_id, card_number) compared as UTF-8 bytes."""
        return (self.pool.encode(), self.device_id.encode(), self.card_number.encode())

    def canonical_line(self) -> str:
        return f"{self.card_number},{self.pool},{self.device_id},{self.spend_cents}\n"


@dataclass(frozen=True)
class LineError:
    line: int
    text: str  # the row as read, shortened, so the manager finds it in the file
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class ParsedList:
    rows: list[RapsRow]

    @property
    def rows_read(self) -> int:
        return len(self.rows)


class RapsListRefused(DomainError):
    """The uploaded list is refused whole; `line_errors` holds every bad row by line."""

    def __init__(self, message: str, *, line_errors: Sequence[LineError] = (), code: str):
        super().__init__(message, code=code)
        self.line_errors = list(line_errors)


@dataclass
class _Pending:
    line: int
    text: str
    card_number: str = ""
    pool: str = ""
    device_id: str = ""
    spend_cents: int = 0
    reasons: list[str] = field(default_factory=list)


def _records(text: str) -> Iterable[tuple[int, list[str]]]:
    """(first line number, cells) of each CSV record; blank lines are skipped. A file that cannot
    be read as CSV is refused at the line where reading failed."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    line = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error:
            raise RapsListRefused(
                f"Line {line} cannot be read as CSV (a quotation mark is not closed, or a value is far too "
                "long): nothing was uploaded. Save the list again as CSV and upload it.",
                code="raps_not_csv",
            ) from None
        start, line = line, reader.line_num + 1
        if cells and any(cell.strip() for cell in cells):
            yield start, cells


def _check_header(records: Iterable[tuple[int, list[str]]]) -> None:
    first = next(iter(records), None)
    expected = ",".join(HEADER)
    if first is None:
        raise RapsListRefused(
            f"The file is empty: expected the header {expected} and one line per player.", code="raps_empty_list"
        )
    line, cells = first
    if tuple(cell.strip().lower() for cell in cells) == HEADER:
        return
    found = ",".join(cells)[:120]
    raise RapsListRefused(
        f"Line {line} must be the header {expected}; found “{found}”. Add or correct the header and upload again.",
        code="raps_bad_header",
    )


def _read_row(line: int, cells: list[str], seen: dict[tuple[str, str, str], int]) -> _Pending:
    row = _Pending(line=line, text=",".join(cells)[:120])
    if len(cells) != len(HEADER):
        row.reasons.append(f"has {len(cells)} columns instead of 4 ({','.join(HEADER)})")
        return row
    card, kind, device_id, spend = (cell.strip() for cell in cells)
    row.card_number, row.device_id = card, device_id
    if not card:
        row.reasons.append("card number is blank")
    elif _UNSAFE.search(card):
        row.reasons.append("card number holds a quote or an invisible control character")
    if kind.lower() in POOLS:
        row.pool = kind.lower()
    else:
        row.reasons.append(f"device type “{kind}” is neither slot nor table")
    if not device_id:
        row.reasons.append("device id is blank")
    elif len(device_id) > DEVICE_ID_MAX:
        row.reasons.append(f"device id is longer than {DEVICE_ID_MAX} characters")
    elif _UNSAFE.search(device_id):
        row.reasons.append("device id holds a comma, a quote or an invisible control character")
    elif device_id.startswith(_FORMULA_START):
        row.reasons.append(
            f"device id “{device_id}” starts with {device_id[0]}: a spreadsheet would run it as a formula"
        )
    else:
        device_id = row.device_id = normalise_device_id(device_id)
    try:
        row.spend_cents = spend_to_cents(spend)
    except ValueError as error:
        row.reasons.append(str(error))
    if card and row.pool and device_id:
        key = (card, row.pool, device_id)
        if key in seen:
            row.reasons.append(f"the same card on {row.pool} {device_id} as line {seen[key]}")
        else:
            seen[key] = line
    return row


def _members_by_card(cards: set[str]) -> dict[str, Member]:
    """The members holding these card numbers, in as few queries as the list allows (one for
    any list up to LOOKUP_CHUNK distinct cards)."""
    wanted = sorted(card for card in cards if len(card) <= CARD_MAX)
    members: dict[str, Member] = {}
    for start in range(0, len(wanted), LOOKUP_CHUNK):
        chunk = wanted[start : start + LOOKUP_CHUNK]
        found = Member.objects.filter(card_number__in=chunk).only(
            "id", "card_number", "tier_id", "id_number", "date_of_birth", "first_name", "last_name"
        )
        members.update((member.card_number, member) for member in found)
    return members


def raps_list_parse(text: str) -> ParsedList:
    """Read an uploaded active-player list. Every row must hold four columns, a member's card
    number, slot or table, a device id and a spend in rand; the same card may not appear twice on
    the same device. RapsListRefused (with every bad row by line) when any row is wrong."""
    if text.startswith("\ufeff"):
        text = text[1:]  # Excel's "CSV UTF-8" starts with a byte order mark
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise RapsListRefused(
            f"The file is larger than {MAX_BYTES // (1024 * 1024)} MB: this is not one session's active-player list.",
            code="raps_too_large",
        )
    records = iter(_records(text))
    _check_header(records)
    seen: dict[tuple[str, str, str], int] = {}
    pending: list[_Pending] = []
    for line, cells in records:
        if len(pending) >= MAX_ROWS:
            raise RapsListRefused(
                f"The list has more than {MAX_ROWS:,} players: this is not one session's active-player list.",
                code="raps_too_large",
            )
        pending.append(_read_row(line, cells, seen))
    if not pending:
        raise RapsListRefused(
            "The file has the header but no players: upload the session's full list.", code="raps_empty_list"
        )
    safe_cards = {row.card_number for row in pending if row.card_number and not _UNSAFE.search(row.card_number)}
    members = _members_by_card(safe_cards)
    for row in pending:
        if row.card_number in safe_cards and row.card_number not in members:
            row.reasons.append(f"card number {row.card_number} is not a member's card")
    errors = [LineError(row.line, row.text, tuple(row.reasons)) for row in pending if row.reasons]
    if errors:
        raise RapsListRefused(
            f"{len(errors):,} of the {len(pending):,} rows {'is' if len(errors) == 1 else 'are'} wrong "
            "(each is listed by line): nothing was uploaded. "
            "Correct them and upload the whole list again.",
            line_errors=errors,
            code="raps_bad_rows",
        )
    return ParsedList(
        [RapsRow(r.line, r.card_number, r.pool, r.device_id, r.spend_cents, members[r.card_number]) for r in pending]
    )


# --- Qualification and the canonical list -------------------------------------------------


@dataclass(frozen=True)
class LeftOut:
    row: RapsRow
    reason: str  # a key of LEFT_OUT_REASONS
    detail: str = ""

    @property
    def label(self) -> str:
        return LEFT_OUT_REASONS[self.reason]


@dataclass(frozen=True)
class Qualification:
    qualifying: list[RapsRow]  # in canonical order
    left_out: list[LeftOut]  # in the order of the file

    def counts(self) -> dict[str, int]:
        counted = Counter(item.reason for item in self.left_out)
        return {reason: counted.get(reason, 0) for reason in LEFT_OUT_REASONS}

    def pool_sizes(self) -> dict[str, int]:
        counted = Counter(row.pool for row in self.qualifying)
        return {pool: counted.get(pool, 0) for pool in POOLS}

    def canonical(self) -> bytes:
        """DRAWS.md §5: `card_number,device_type,device_id,spend_cents` + "\\n" per qualifying row."""
        return "".join(row.canonical_line() for row in self.qualifying).encode("utf-8")


def _person_refusals(draw: Draw, members: Iterable[Member], now: dt.datetime) -> dict[int, list[str]]:
    """The members of the list who may not take part in the draw (excluded, under 18), with the
    reasons, by member id. Who is refused is asked in bulk of members.eligibility's SQL twin
    (one query per LOOKUP_CHUNK members, whatever the list's size), over the allocation's span;
    the words come from its Python rule, for the refused members only."""
    members = {member.pk: member for member in members}
    eligible, params = eligible_sql("m", **eligibility_span(draw, now))
    ids = sorted(members)
    refused: list[int] = []
    with connection.cursor() as cursor:
        for start in range(0, len(ids), LOOKUP_CHUNK):
            chunk = {f"member{n}": pk for n, pk in enumerate(ids[start : start + LOOKUP_CHUNK])}
            listed = ", ".join(f"%({name})s" for name in chunk)
            cursor.execute(
                f"SELECT m.id FROM members_member m WHERE m.id IN ({listed}) AND NOT {eligible}",  # noqa: S608
                params | chunk,
            )
            refused.extend(pk for (pk,) in cursor.fetchall())
    return {pk: reasons for pk in refused if (reasons := person_refusals_for_draw(draw, members[pk], at=now))}


def raps_qualify(
    *, draw: Draw, parsed: ParsedList, min_spend_cents: int, excluded_devices: Sequence[str], now: dt.datetime
) -> Qualification:
    """Which rows of the list qualify (DRAWS.md §5), each left-out row with its first reason, in
    this order: spend below the minimum, an excluded machine, a tier the series does not admit,
    a member excluded or under 18 at the moment of upload."""
    excluded = {_device_key(*device.split(":", 1)) for device in excluded_devices}
    tiers = {tier.pk for tier in draw.series.eligible_tiers.all()}
    left_out: list[LeftOut] = []
    candidates: list[RapsRow] = []
    for row in parsed.rows:
        if row.spend_cents < min_spend_cents:
            left_out.append(LeftOut(row, "below_min_spend", rand(row.spend_cents)))
        elif _device_key(row.pool, row.device_id) in excluded:
            left_out.append(LeftOut(row, "excluded_device"))
        elif row.member.tier_id not in tiers:
            left_out.append(LeftOut(row, "tier"))
        else:
            candidates.append(row)
    refused = _person_refusals(draw, (row.member for row in candidates), now)
    qualifying = []
    for row in candidates:
        if row.member.pk in refused:
            left_out.append(LeftOut(row, "not_eligible", " ".join(refused[row.member.pk])))
        else:
            qualifying.append(row)
    left_out.sort(key=lambda item: item.row.line)
    return Qualification(sorted(qualifying, key=RapsRow.sort_key), left_out)


def unmatched_exclusions(parsed: ParsedList, excluded_devices: Sequence[str]) -> list[str]:
    """Excluded machines that no row of the list was played on: most likely a typing slip."""
    played = {_device_key(row.pool, row.device_id) for row in parsed.rows}
    return [device for device in excluded_devices if _device_key(*device.split(":", 1)) not in played]


# --- Quotas --------------------------------------------------------------------------------

_QUOTA_TEXT = {
    pool: re.compile(rf"\(?([0-9]+)\)?\s+from\s+{pool}s?\b", re.IGNORECASE) for pool in (RapsPool.SLOT, RapsPool.TABLE)
}


def default_quotas(series: DrawSeries) -> tuple[int, int]:
    """(slot, table) quotas to offer: as the series says ("6 from slots, 4 from tables" in its
    name, schedule or assumptions) when those add up to its winners, else 6 in 10 from slots."""
    winners = series.winners_per_draw
    rule = getattr(series, "rule", None)
    text = " ".join([series.name, series.schedule_text, rule.assumptions if rule else ""])
    found = {pool: pattern.search(text) for pool, pattern in _QUOTA_TEXT.items()}
    if all(found.values()):
        slot, table = int(found[RapsPool.SLOT].group(1)), int(found[RapsPool.TABLE].group(1))
        if slot + table == winners:
            return slot, table
    return winners - winners * 4 // 10, winners * 4 // 10


def _check_whole(value, what: str, code: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise DomainError(f"The {what} must be a whole number, 0 or more.", code=code)


def _check_quotas(draw: Draw, sizes: dict[str, int], slot_quota: int, table_quota: int) -> None:
    winners = draw.series.winners_per_draw
    if slot_quota + table_quota != winners:
        raise DomainError(
            f"The slot and table quotas ({slot_quota} + {table_quota}) must add up to the session's {winners} winners.",
            code="raps_bad_quota",
        )
    for pool, quota in ((RapsPool.SLOT, slot_quota), (RapsPool.TABLE, table_quota)):
        if quota > 0 and sizes[pool] == 0:
            raise DomainError(
                f"No {pool} player qualifies, but the {pool} quota is {quota}: check the list, the minimum "
                f"spend and the excluded machines, or set the {pool} quota to 0.",
                code="raps_empty_pool",
            )


# --- The upload ----------------------------------------------------------------------------


def raps_upload_refusal(draw: Draw, *, now: dt.datetime) -> str | None:
    """Why an active-player list cannot be uploaded for this draw now, or None. The page and the
    service ask this same question: a list is taken once the session's decline register has
    closed (the draw is then closed), and replaced until the first winner is picked."""
    if draw.method != DrawMethod.RAPS:
        return "This draw is not a RAPS session: its winners are drawn from tickets, not from an active-player list."
    state = draw.state(now)
    if state.is_cancelled:
        return f"{draw.name} is cancelled."
    if not state.entries_frozen:
        closes = local_datetime(draw.tickets_close_at)
        if draw.tickets_close_at > now:
            return f"The active-player list can be uploaded once the session's decline register closes, at {closes}."
        return f"The session's decline register closed at {closes}; the session is being closed: try again in a minute."
    if state.has_started or draw.picks.exists():
        return "The session's draw has started: its active-player list can no longer be replaced."
    return None


@dataclass
class UploadReport:
    """What the manager sees right after an upload, beyond what RapsList keeps."""

    left_out: list[LeftOut]
    unmatched_exclusions: list[str]
    unchanged: bool = False  # the same list and settings as the current one: nothing was replaced


def raps_list_upload(
    *,
    actor: Actor,
    draw_id: int,
    file_name: str,
    text: str,
    min_spend_cents: int,
    excluded_devices: Sequence[str],
    slot_quota: int,
    table_quota: int,
    reason: str = "",
    now: dt.datetime | None = None,
) -> RapsList:
    """Take a RAPS session's active-player list (DRAWS.md §5): the qualifying rows become the
    canonical list, its SHA-256 the draw's entry hash, and a fresh seed is committed (its SHA-256
    published) before the first pick. A new upload replaces the list until the first pick, with
    the reason for it (each new list is a new seed: without a reason, uploads could be repeated
    until the seed favoured someone); the same list with the same settings again (a double
    submission) changes nothing, seed included, and needs no reason.
    The returned RapsList carries `.report` (an UploadReport) for the page."""
    now = now or timezone.now()
    reason = (reason or "").strip()
    _check_whole(min_spend_cents, "minimum spend (in cents)", code="raps_bad_min_spend")
    _check_whole(slot_quota, "slot quota", code="raps_bad_quota")
    _check_whole(table_quota, "table quota", code="raps_bad_quota")
    try:
        excluded = excluded_devices_parse("\n".join(excluded_devices))
    except ValueError as error:
        raise DomainError(f"Excluded machines: {error}", code="raps_bad_exclusion") from None
    draw = Draw.objects.select_related("series", "property").filter(pk=draw_id).first()
    if draw is None:
        raise DomainError(f"There is no draw {draw_id}.", code="unknown_draw")
    check_staff_property(actor, draw.property)  # the draw's property only ever stays the same
    refusal = raps_upload_refusal(draw, now=now)  # before reading a file it would refuse anyway
    if refusal:
        raise DomainError(refusal, code="raps_not_open")
    parsed = raps_list_parse(text)
    # Parsed, qualified and hashed before the draw's lock (issue 13, item 12): none of it reads
    # what the lock guards (the draw's status, its list, its picks), and 100,000 rows take
    # seconds the tick and the draw page would otherwise wait for. Under the lock only what can
    # change meanwhile is checked again: the status (via the refusal) and the previous list.
    qualification = raps_qualify(
        draw=draw, parsed=parsed, min_spend_cents=min_spend_cents, excluded_devices=excluded, now=now
    )
    _check_quotas(draw, qualification.pool_sizes(), slot_quota, table_quota)
    canonical = qualification.canonical()
    list_sha256 = hashlib.sha256(canonical).hexdigest()
    report = UploadReport(qualification.left_out, unmatched_exclusions(parsed, excluded))
    entry_rows = _entry_rows(qualification.qualifying)
    with transaction.atomic():
        draw = Draw.objects.select_for_update(of=("self",)).select_related("series").get(pk=draw_id)
        refusal = raps_upload_refusal(draw, now=now)
        if refusal:
            raise DomainError(refusal, code="raps_not_open")
        previous = RapsList.objects.filter(draw=draw).first()
        if previous and _same_upload(previous, list_sha256, min_spend_cents, excluded, slot_quota, table_quota):
            report.unchanged = True
            previous.report = report
            return previous
        if previous and not reason:
            raise DomainError(
                "A list is already uploaded for this session: say why it is being replaced. "
                "The reason is kept in the audit log.",
                code="raps_replace_reason",
            )
        replaced = _delete_previous(previous, draw)
        raps_list = RapsList.objects.create(
            draw=draw,
            file_name=(file_name.strip() or "list.csv")[-200:],
            uploaded_at=now,
            uploaded_by=actor.label,
            rows_read=parsed.rows_read,
            min_spend_cents=min_spend_cents,
            excluded_devices=excluded,
            slot_quota=slot_quota,
            table_quota=table_quota,
            left_out=qualification.counts(),
            canonical=canonical.decode("utf-8"),
            list_sha256=list_sha256,
        )
        _store_entries(raps_list, entry_rows)
        draw.entries_sha256 = list_sha256
        draw.entries_count = draw.tickets_total = len(qualification.qualifying)
        draw.entries_frozen_at = now
        seed_commit(draw)
        draw.save(
            update_fields=[
                "entries_sha256",
                "entries_count",
                "tickets_total",
                "entries_frozen_at",
                "seed_hex",
                "seed_sha256",
            ]
        )
        audit_log(
            actor=actor,
            action="draw.raps_list_uploaded",
            obj=draw,
            data={
                "file_name": raps_list.file_name,
                "rows_read": parsed.rows_read,
                "qualifying": qualification.pool_sizes(),
                "left_out": raps_list.left_out,
                "list_sha256": list_sha256,
                "seed_sha256": draw.seed_sha256,
                "quotas": {RapsPool.SLOT: slot_quota, RapsPool.TABLE: table_quota},
                "min_spend_cents": min_spend_cents,
                "excluded_devices": excluded,
                "replaces": replaced,
                **({"reason": reason} if replaced else {}),
            },
        )
    raps_list.report = report
    return raps_list


def _same_upload(previous: RapsList, list_sha256: str, *settings) -> bool:
    kept = (previous.min_spend_cents, previous.excluded_devices, previous.slot_quota, previous.table_quota)
    return previous.list_sha256 == list_sha256 and kept == settings


def _delete_previous(previous: RapsList | None, draw: Draw) -> dict | None:
    """Remove the list being replaced; what it was, for the audit event."""
    if previous is None:
        return None
    replaced = {
        "list_sha256": previous.list_sha256,
        "seed_sha256": draw.seed_sha256,
        "file_name": previous.file_name,
        "uploaded_at": previous.uploaded_at.isoformat(),
        "uploaded_by": previous.uploaded_by,
    }
    previous.entries.all().delete()
    previous.delete()
    return replaced


def _entry_rows(qualifying: list[RapsRow]) -> list[tuple]:
    """The RapsEntry columns after `raps_list_id` for each qualifying row, numbered 1.. within
    its pool in canonical order; made before the draw's lock, written under it by COPY."""
    numbers: Counter[str] = Counter()
    rows = []
    for row in qualifying:
        numbers[row.pool] += 1
        rows.append((row.pool, numbers[row.pool], row.card_number, row.member.pk, row.device_id, row.spend_cents))
    return rows


_ENTRY_COLUMNS = ("raps_list_id", "pool", "row", "card_number", "member_id", "device_id", "spend_cents")


def _store_entries(raps_list: RapsList, entry_rows: list[tuple]) -> None:
    # COPY, not bulk_create: 100,000 model instances cost seconds under the draw's lock.
    bulk_insert(RapsEntry._meta.db_table, _ENTRY_COLUMNS, ((raps_list.pk, *row) for row in entry_rows))
