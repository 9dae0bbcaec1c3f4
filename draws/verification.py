"""Check a draw's exported record from its two files alone (DRAWS.md §6, format 2, and its
registers, docs/draw-records-registers.md).

Pure Python: the standard library and draws/selection.py, no Django and no database, so an
auditor can copy the two modules and run

    python -m draws.verification draw-7.json draw-7-entries.csv [draw-8.json draw-8-entries.csv ...]

which prints every check, pick by pick, and exits 0 when every check of every record holds,
else 1 (also when it cannot read a file). Several records (the draws of a promotion) are
checked together: a redraw that rests on a win in another draw (its "ref") is checked against
that draw's record, and no member wins twice within a win-once scope across them.

What is checked, in order: the selection code against DRAWS.md §2's test vectors (before it is
trusted); the record's format (2; a format-1 record is only said to be one); the software that
ran the draw; the entry list's SHA-256 and form (ranges 1..N without gaps, or a RAPS list in its
canonical order meeting the session's minimum spend and excluded devices); the revealed seed
against its committed SHA-256; the registers (a record exported before they were added holds
none: it fails for that only when an outcome rests on them); each pick: its k (1, 2, 3, ... per
draw, per pool in RAPS), its serial (electronic: the one §2 gives for k; RAPS: the row §5 gives;
manual: an activated serial not drawn before), its owner, its outcome (an automatic redraw is
justified by the earlier pick its "ref" names; a winner is not a second win of one member;
declined and proxy_present rest on a decline or a nomination live at the pick's time, and no
decliner is a no-show); that the winners are exactly the picks with a winning outcome (pool
included); and that a complete record has its completion time, its seed and its winners per pool
(or the reason it ended short), with no pick after its last winning pick.

The entry list is read line by line (bytes, a file or any iterable of byte chunks): only the
owners of the picked serials are kept, so memory does not grow with the number of activations.

A record whose seed is not revealed yet (a draw not complete) does not verify: its electronic
and RAPS serials cannot be recomputed. Those checks are reported as "not verified yet" (they are
not failures of the record, but the record does not hold as a whole until they can be made).
"""

import bisect
import datetime as dt
import hashlib
import itertools
import json
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from draws.selection import electronic_serial, raps_row

RECORD_FORMAT = 2
# DRAWS.md §3, as the record spells them (draws.models.PickOutcome; a test keeps them equal).
WINNING_OUTCOMES = frozenset({"present", "proxy_present", "declined"})
ALREADY_WINNER = "redraw_already_winner"
ALREADY_DRAWN = "redraw_already_drawn"  # a series that allows one selection per draw (Fast Lane rule 117)
WON_IN_SCOPE = "redraw_won_in_scope"
# Automatic redraws that rest on an earlier pick, which the record names ("ref").
REF_REDRAWS = frozenset({ALREADY_WINNER, ALREADY_DRAWN, WON_IN_SCOPE})
# Automatic redraws decided on facts the record does not carry (exclusions, proxies).
UNCHECKABLE_REDRAWS = frozenset({"redraw_ineligible", "redraw_is_proxy"})
STAGE_REDRAWS = frozenset({"no_show", "disqualified"})
OUTCOMES = WINNING_OUTCOMES | UNCHECKABLE_REDRAWS | STAGE_REDRAWS | REF_REDRAWS
POOLS = ("slot", "table")
METHODS = ("electronic", "manual", "raps")
SCOPES_ACROSS_DRAWS = ("day", "period")  # win-once scopes that reach other draws of the promotion

_NUMBER = "(0|[1-9][0-9]*)"
_RANGE_LINE = re.compile(rf"{_NUMBER},{_NUMBER},{_NUMBER}")
_RAPS_LINE = re.compile(rf"([^,]+),(slot|table),([^,]+),{_NUMBER}")
_HEX64 = re.compile("[0-9a-f]{64}")
_SHOWN_PROBLEMS = 5  # an entry list with many bad lines names the first few

# DRAWS.md §2's test vectors: seed bytes(range(32)), entries_sha256 / list_sha256 "ab" * 32.
_VECTOR_SEED = bytes(range(32))
_VECTOR_HASH = "ab" * 32
ELECTRONIC_VECTORS = (
    (1_000, (267, 900, 156, 980, 43)),
    (100_000_000, (89702267, 5209900, 52741156)),
    (2**63 + 1, (909781816200681921,)),
)
RAPS_VECTORS = (("slot", 7, (6, 7, 2)),)


@dataclass(frozen=True)
class Line:
    check: str
    holds: bool
    detail: str
    pending: bool = False  # not checkable until the seed is revealed: not a failure, not verified either

    @property
    def verdict(self) -> str:
        if self.holds:
            return "holds"
        return "not verified yet" if self.pending else "DOES NOT HOLD"

    def __str__(self) -> str:
        return f"{self.check}: {self.detail} — {self.verdict}"


@dataclass
class Report:
    lines: list[Line] = field(default_factory=list)
    seed_revealed: bool = False

    @property
    def holds(self) -> bool:
        """Every check made and holding: a record with an unrevealed seed never holds."""
        return bool(self.lines) and all(line.holds for line in self.lines)

    @property
    def failures(self) -> list[Line]:
        return [line for line in self.lines if not line.holds and not line.pending]

    @property
    def pending(self) -> list[Line]:
        return [line for line in self.lines if line.pending]

    def add(self, check: str, holds: bool, detail: str, *, pending: bool = False) -> None:
        self.lines.append(Line(check, holds, detail, pending and not holds))

    def summary(self) -> str:
        if self.holds:
            return "Every check holds: the record is consistent."
        if self.failures:
            count = len(self.failures)
            verb = "check DOES" if count == 1 else "checks DO"
            return f"{count} {verb} NOT HOLD: the record is not consistent."
        return (
            "Not fully verified: the seed is not revealed yet (it is revealed when the draw is complete), "
            f"so {len(self.pending)} check{'s' if len(self.pending) != 1 else ''} could not be made. "
            "Nothing that could be checked failed."
        )

    def text(self) -> str:
        return "\n".join([*(str(line) for line in self.lines), self.summary()]) + "\n"


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The record's structure: required keys and their types (None allowed where the spec says null).
_SHAPE = {
    "software": {"name": str, "version": (str, None)},
    "draw": {
        "id": int,
        "name": str,
        "property": str,
        "scheduled_at": str,
        "method": str,
        "winners_wanted": int,
        "win_once": str,
        "status": str,
        "started_at": (str, None),
        "completed_at": (str, None),
        "ended_short_reason": str,
    },
    "entries": {"count": int, "tickets_total": int, "sha256": (str, None), "frozen_at": (str, None)},
    "seed": {"sha256": (str, None), "hex": (str, None)},
}
_RAPS_SHAPE = {
    "min_spend_cents": int,
    "excluded_devices": list,
    "quotas": dict,
    "rows_uploaded": int,
    "rows_left_out": dict,
}
_PICK_SHAPE = {
    "k": int,
    "pool": (str, None),
    "serial": int,
    "member_id": int,
    "card_number": str,
    "outcome": (str, None),
    "reason": str,
    "at": str,
    "by": str,
    "ref": (dict, None),
}
_WINNER_SHAPE = {"member_id": int, "card_number": str, "k": int, "pool": (str, None)}
# docs/draw-records-registers.md: the registers, a top-level key added to format 2.
_DECLINE_SHAPE = {
    "member_id": int,
    "card_number": str,
    "registered_at": str,
    "registered_by": str,
    "revoked_at": (str, None),
    "revoked_by": (str, None),
}
_NOMINATION_SHAPE = {**_DECLINE_SHAPE, "nominee_name": str, "nominee_id_last4": str}
_REGISTERS = (("proxy", _NOMINATION_SHAPE), ("decline", _DECLINE_SHAPE))  # the proxy and decline registers
_REGISTER_WORDS = {"proxy": "proxy nominations", "decline": "decline registrations"}
_REF_SHAPE = {"draw": int, "k": int, "pool": (str, None)}


def _type_ok(value, expected) -> bool:
    options = expected if isinstance(expected, tuple) else (expected,)
    return any(
        value is None if option is None else (_is_int(value) if option is int else isinstance(value, option))
        for option in options
    )


def _type_name(kind) -> str:
    options = kind if isinstance(kind, tuple) else (kind,)
    names = {int: "whole number", str: "text", None: "null", dict: "object", list: "list"}
    return " or ".join(names[option] for option in options)


def _keys_problems(part: dict, keys: dict, where, of: str = "") -> list[str]:
    """What is missing or mistyped among `keys` of `part`: '"where(key)"{of} is missing …'."""
    return [
        f'"{where(key)}"{of} is missing or not a {_type_name(kind)}'
        for key, kind in keys.items()
        if key not in part or not _type_ok(part[key], kind)
    ]


def _shape_problems(record: dict) -> list[str]:
    problems = []
    for section, keys in _SHAPE.items():
        part = record.get(section)
        if not isinstance(part, dict):
            problems.append(f'"{section}" is missing')
            continue
        problems += _keys_problems(part, keys, lambda key, section=section: f"{section}.{key}")
    if "raps" not in record:
        problems.append('"raps" is missing (null unless the draw is a RAPS session)')
    elif record["raps"] is not None:
        if not isinstance(record["raps"], dict):
            problems.append('"raps" is not an object or null')
        else:
            problems += _keys_problems(record["raps"], _RAPS_SHAPE, lambda key: f"raps.{key}")
    for section, keys in (("picks", _PICK_SHAPE), ("winners", _WINNER_SHAPE)):
        problems += _list_problems(record.get(section), section, keys)
    for number, pick in enumerate(record.get("picks") or [], 1):
        if isinstance(pick, dict) and isinstance(pick.get("ref"), dict):
            problems += _keys_problems(pick["ref"], _REF_SHAPE, lambda key: f"ref.{key}", f" of picks item {number}")
    return problems + _registers_shape_problems(record)


def _list_problems(items, section: str, keys: dict) -> list[str]:
    """What is wrong with a list of objects that should each hold `keys`."""
    if not isinstance(items, list):
        return [f'"{section}" is missing or not a list']
    problems = []
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict):
            problems.append(f"{section} item {number} is not an object")
            continue
        problems += _keys_problems(item, keys, str, f" of {section} item {number}")
    return problems


def _registers_shape_problems(record: dict) -> list[str]:
    """The registers are optional (a format-2 record exported before they were added has none),
    but when present they are whole."""
    if "registers" not in record:
        return []
    registers = record["registers"]
    if not isinstance(registers, dict):
        return ['"registers" is not an object']
    problems = []
    for section, keys in _REGISTERS:
        problems += _list_problems(registers.get(section), f"registers.{section}", keys)
    return problems


# --- The selection code, before it is trusted ----------------------------------------------------


def check_selection(report: "Report") -> bool:
    """DRAWS.md §2's test vectors against the selection code the engine shares with this
    verifier: a selection that reads a wrong byte count, a wrong order or a biased modulo
    fails here, and then nothing it recomputes is trusted."""
    problems = []
    for total, serials in ELECTRONIC_VECTORS:
        for k, expected in enumerate(serials, 1):
            try:
                got = electronic_serial(seed=_VECTOR_SEED, entries_sha256=_VECTOR_HASH, k=k, tickets_total=total)
            except Exception as error:  # a broken selection is a finding, not a crash
                got = f"an error ({error})"
            if got != expected:
                problems.append(f"N={total} k={k} gives {got}, the test vector says {expected}")
    for pool, size, rows in RAPS_VECTORS:
        for k, expected in enumerate(rows, 1):
            try:
                got = raps_row(seed=_VECTOR_SEED, list_sha256=_VECTOR_HASH, pool=pool, k=k, pool_size=size)
            except Exception as error:  # likewise
                got = f"an error ({error})"
            if got != expected:
                problems.append(f"RAPS {pool} N={size} k={k} gives row {got}, the test vector says {expected}")
    count = sum(len(v[1]) for v in ELECTRONIC_VECTORS) + sum(len(v[2]) for v in RAPS_VECTORS)
    if problems:
        report.add("Selection code", False, "DRAWS.md §2's test vectors fail: " + "; ".join(problems))
        return False
    report.add("Selection code", True, f"gives the {count} serials and rows of DRAWS.md §2's test vectors")
    return True


# --- The entry list, line by line -----------------------------------------------------------------

EntriesSource = bytes | Iterable[bytes] | Callable[[], Iterable[bytes]]


def _chunks(entries: EntriesSource) -> Iterable[bytes]:
    if isinstance(entries, bytes | bytearray | memoryview):
        return (bytes(entries),)
    if callable(entries) and not hasattr(entries, "read"):
        return entries()
    if hasattr(entries, "read"):
        return iter(lambda: entries.read(64 * 1024), b"")
    return entries


def _lines(chunks: Iterable[bytes], digest, state: dict) -> Iterable[bytes]:
    """The lines of the entry list (without their newline), hashing every byte on the way."""
    rest = b""
    for chunk in chunks:
        digest.update(chunk)
        parts = (rest + chunk).split(b"\n")
        rest = parts.pop()
        yield from parts
    if rest:
        state["no_final_newline"] = True
        yield rest


@dataclass
class _Owner:
    first: int
    last: int
    member_id: int


@dataclass
class _RapsRow:
    card_number: str
    device_id: str


@dataclass
class _Entries:
    """What one pass over the entry list established: only what the picks need is kept."""

    sha256: str = ""
    lines: int = 0
    total: int = 0
    pool_sizes: dict = field(default_factory=lambda: dict.fromkeys(POOLS, 0))
    owners: dict = field(default_factory=dict)  # serial -> _Owner, for the picked serials only
    rows: dict = field(default_factory=dict)  # (pool, row) -> _RapsRow, for the picked rows only
    problems: list = field(default_factory=list)
    problem_count: int = 0
    described: str = ""

    def problem(self, text: str) -> None:
        self.problem_count += 1
        if len(self.problems) < _SHOWN_PROBLEMS:
            self.problems.append(text)


def _scan_entries(record: dict, entries: EntriesSource) -> _Entries:
    raps = record["draw"]["method"] == "raps"
    found = _Entries()
    digest = hashlib.sha256()
    state: dict = {}
    wanted = sorted({p["serial"] for p in record["picks"]}) if not raps else []
    wanted_rows = {(p["pool"], p["serial"]) for p in record["picks"]} if raps else set()
    settings = record.get("raps") if raps else None
    min_spend = settings["min_spend_cents"] if settings else None
    excluded = set(settings["excluded_devices"]) if settings else set()
    expected_first, previous = 1, None
    for number, raw in enumerate(_lines(_chunks(entries), digest, state), 1):
        found.lines = number
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            found.problem(f"line {number} is not UTF-8 (byte {error.start})")
            continue
        if raps:
            match = _RAPS_LINE.fullmatch(line)
            if not match:
                found.problem(f'line {number} is not "card_number,device_type,device_id,spend_cents": {line[:60]!r}')
                continue
            card, pool, device, spend = match[1], match[2], match[3], int(match[4])
            key = (pool.encode(), device.encode(), card.encode())
            if previous is not None and key < previous:
                found.problem(
                    f"line {number} is out of order (sorted by device_type, device_id, card_number, byte order)"
                )
            previous = key
            if min_spend is not None and spend < min_spend:
                found.problem(f"line {number} spent {spend} cents, below the session's minimum of {min_spend}")
            if f"{pool}:{device}" in excluded:
                found.problem(f"line {number} is on {pool}:{device}, a device the session excludes")
            found.pool_sizes[pool] += 1
            if (pool, found.pool_sizes[pool]) in wanted_rows:
                found.rows[(pool, found.pool_sizes[pool])] = _RapsRow(card, device)
            found.total += 1
        else:
            match = _RANGE_LINE.fullmatch(line)
            if not match:
                found.problem(f'line {number} is not "first_serial,last_serial,member_id": {line[:60]!r}')
                continue
            first, last, member_id = (int(part) for part in match.groups())
            if first != expected_first:
                found.problem(f"line {number} starts at serial {first}, expected {expected_first} (no gap, no overlap)")
            if last < first:
                found.problem(f"line {number} ends at {last}, before its first serial {first}")
            for at in range(bisect.bisect_left(wanted, first), bisect.bisect_right(wanted, last)):
                found.owners.setdefault(wanted[at], _Owner(first, last, member_id))
            expected_first = max(last, first) + 1
            found.total = max(found.total, last)
    if state.get("no_final_newline"):
        found.problem("the last line has no newline")
    found.sha256 = digest.hexdigest()
    facts = record["entries"]
    if found.lines != facts["count"]:
        found.problem(f"it has {found.lines} lines, the record counts {facts['count']} entries")
    if found.total != facts["tickets_total"]:
        what = "rows" if raps else "tickets"
        found.problem(f"it holds {found.total} {what}, the record says {facts['tickets_total']}")
    if raps:
        slot, table = found.pool_sizes["slot"], found.pool_sizes["table"]
        found.described = f"{found.lines} rows ({slot} slot, {table} table) in canonical order"
        if settings:
            left_out = settings["rows_left_out"]
            counted = sum(v for v in left_out.values() if _is_int(v))
            if settings["rows_uploaded"] != found.lines + counted:
                found.problem(
                    f"{settings['rows_uploaded']} rows were uploaded, but the list holds {found.lines} and "
                    f"{counted} were left out"
                )
    else:
        found.described = (
            f"{found.lines} ranges, serials 1..{found.total} without gaps, ordered by first serial"
            if found.lines
            else "empty"
        )
    return found


def _check_entries(report: "Report", record: dict, entries: EntriesSource) -> _Entries:
    """The hash and the form of the entry list, in one pass."""
    facts = record["entries"]
    found = _scan_entries(record, entries)
    if facts["sha256"] is None:
        report.add(
            "Entry list hash", False, "the record has no entry-list hash: the entries are not frozen yet", pending=True
        )
    elif found.sha256 == facts["sha256"]:
        report.add("Entry list hash", True, f"SHA-256 of the entry list file is {found.sha256}, as recorded")
    else:
        report.add(
            "Entry list hash",
            False,
            f"SHA-256 of the entry list file is {found.sha256}, the record says {facts['sha256']}",
        )
    if found.problem_count:
        shown = "; ".join(found.problems)
        more = found.problem_count - len(found.problems)
        report.add("Entry list", False, shown + (f" (and {more} more)" if more else ""))
    else:
        report.add("Entry list", True, found.described)
    return found


def _check_seed(report: Report, record: dict) -> tuple[bytes | None, str]:
    """The revealed seed against its commitment. Returns the seed's 32 bytes when it is revealed
    and matches, else None and why the serials cannot be recomputed."""
    committed, revealed = record["seed"]["sha256"], record["seed"]["hex"]
    if committed is None:
        report.add("Seed", False, "no seed is committed yet (it is when the entries are frozen)", pending=True)
        return None, "no seed is committed yet"
    if not _HEX64.fullmatch(committed):
        report.add("Seed", False, f"the committed SHA-256 {committed!r} is not 64 lowercase hex characters")
        return None, "the seed commitment is unreadable"
    if revealed is None:
        report.add(
            "Seed",
            False,
            f"not revealed yet (committed SHA-256 {committed}); it is revealed when the draw is complete, "
            "and only then can the serials be recomputed",
            pending=True,
        )
        return None, "the seed is not revealed"
    if not _HEX64.fullmatch(revealed):
        report.add("Seed", False, "the revealed seed is not 64 lowercase hex characters (32 bytes)")
        return None, "the revealed seed is unreadable"
    seed = bytes.fromhex(revealed)
    actual = hashlib.sha256(seed).hexdigest()
    if actual != committed:
        report.add("Seed", False, f"SHA-256 of the revealed seed is {actual}, not the committed {committed}")
        return None, "the revealed seed is not the committed one"
    report.add("Seed", True, f"SHA-256 of the revealed seed is the committed {committed}")
    report.seed_revealed = True
    return seed, ""


# --- The registers (docs/draw-records-registers.md) ---------------------------------------------

# Outcomes that rest on the registers: a winner who stands without presenting, or through a proxy.
REGISTER_OUTCOMES = frozenset({"declined", "proxy_present"})
_LAST4 = 4  # a nominee's ID number is kept to its last four: a record never holds a whole one


def _aware(iso) -> dt.datetime | None:
    """An ISO-8601 time with its offset, or None (unreadable, or without an offset: then it
    cannot be ordered against the picks' times)."""
    moment = _moment_of(iso)
    return moment if moment is not None and moment.utcoffset() is not None else None


def _clock(moment: dt.datetime) -> str:
    return moment.strftime("%H:%M:%S")


@dataclass
class _Span:
    """One registration, live from its registration until its revocation (if it was revoked)."""

    item: dict
    start: dt.datetime
    end: dt.datetime | None

    def live_at(self, moment: dt.datetime) -> bool:
        return self.start <= moment and (self.end is None or moment < self.end)

    def why_not_live(self, moment: dt.datetime) -> str:
        if moment < self.start:
            return f"registered only at {_clock(self.start)}"
        return f"revoked at {_clock(self.end)}"


class _Registers:
    """What the record's registers say, by member: each one's proxy nominations and declines as spans."""

    def __init__(self, record: dict) -> None:
        self.present = "registers" in record
        self.problems: list[str] = []
        self.spans: dict[str, dict[int, list[_Span]]] = {"proxy": {}, "decline": {}}
        self.counts: dict[str, tuple[int, int]] = {}
        if not self.present:
            return
        for section, _keys in _REGISTERS:
            items = record["registers"][section]
            self.counts[section] = (len(items), sum(item["revoked_at"] is not None for item in items))
            for number, item in enumerate(items, 1):
                self._read(section, number, item)
        for section, by_member in self.spans.items():
            for member_id, spans in by_member.items():
                spans.sort(key=lambda span: span.start)
                for before, after in itertools.pairwise(spans):
                    if before.end is None or after.start < before.end:
                        self.problems.append(f"member {member_id} has two {_REGISTER_WORDS[section]} live at once")

    def _read(self, section: str, number: int, item: dict) -> None:
        where = f"registers.{section} item {number}"
        start, end = _aware(item["registered_at"]), _aware(item["revoked_at"])
        if start is None:
            self.problems.append(f"{where}: registered_at {item['registered_at']!r} is not a time with its offset")
            return
        if item["revoked_at"] is not None and end is None:
            self.problems.append(f"{where}: revoked_at {item['revoked_at']!r} is not a time with its offset")
            return
        if end is not None and end < start:
            self.problems.append(f"{where}: revoked at {_moment(item['revoked_at'])}, before it was registered")
        if section == "proxy" and len(item["nominee_id_last4"]) > _LAST4:
            self.problems.append(f"{where}: the nominee's ID number is kept whole, not only its last four")
        self.spans[section].setdefault(item["member_id"], []).append(_Span(item, start, end))

    def live(self, section: str, member_id: int, moment: dt.datetime) -> _Span | None:
        return next((s for s in self.spans[section].get(member_id, []) if s.live_at(moment)), None)

    def why_none(self, section: str, member_id: int, moment: dt.datetime) -> str:
        spans = self.spans[section].get(member_id, [])
        if not spans:
            return "none is registered for this member"
        return "; ".join(span.why_not_live(moment) for span in spans)

    def described(self) -> str:
        def count(section: str, one: str, many: str) -> str:
            total, revoked = self.counts[section]
            return f"{total} {one if total == 1 else many} ({revoked} revoked)"

        return (
            f"{count('proxy', 'proxy nomination', 'proxy nominations')} and "
            f"{count('decline', 'decline registration', 'decline registrations')} of the draw's entrants"
        )


def _check_registers(report: Report, record: dict) -> _Registers:
    """The registers as a whole. A format-2 record exported before they were added has none: it
    is not failed for that, unless a pick's outcome rests on them (declined, proxy_present):
    that outcome cannot be checked, so the record is not shown to hold (export it again)."""
    registers = _Registers(record)
    if not registers.present:
        resting = [p for p in record["picks"] if p["outcome"] in REGISTER_OUTCOMES]
        if resting:
            report.add(
                "Registers",
                False,
                f"the record holds no registers (exported before they were added), so its {len(resting)} "
                "declined or proxy-present outcome(s) cannot be checked against them: export the record again",
            )
        else:
            no_shows = any(p["outcome"] == "no_show" for p in record["picks"])
            report.add(
                "Registers",
                True,
                "the record holds no registers (exported before they were added); no outcome here rests on them"
                + ("; its no-shows are not checked against the decline register" if no_shows else ""),
            )
        return registers
    if registers.problems:
        report.add("Registers", False, "; ".join(registers.problems[:_SHOWN_PROBLEMS]))
    else:
        report.add("Registers", True, registers.described())
    return registers


def _moment(iso: str) -> str:
    """ "Sun 29 Nov 2026 19:30 (+02:00)" for people; the ISO text itself if it is not one."""
    try:
        moment = dt.datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return str(iso)
    offset = moment.strftime("%z")
    return moment.strftime("%a %d %b %Y %H:%M") + (f" ({offset[:3]}:{offset[3:]})" if offset else "")


def _moment_of(iso) -> dt.datetime | None:
    try:
        return dt.datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return None


def _ref_text(ref: dict) -> str:
    pool = f" ({ref['pool']})" if ref.get("pool") else ""
    return f"draw {ref['draw']} pick k={ref['k']}{pool}"


class _PickChecker:
    """Walks the picks in order, keeping what earlier picks established (k per pool, winners,
    serials drawn, each member's card)."""

    def __init__(
        self,
        record: dict,
        entries: _Entries,
        seed: bytes | None,
        no_seed_because: str,
        others: dict[int, dict],
        registers: _Registers,
    ) -> None:
        self.record = record
        self.registers = registers
        self.draw_id = record["draw"]["id"]
        self.method = record["draw"]["method"]
        self.win_once = record["draw"]["win_once"]
        self.wanted = record["draw"]["winners_wanted"]
        raps = record.get("raps") or {}
        quotas = raps.get("quotas") if isinstance(raps.get("quotas"), dict) else {}
        self.quotas = {pool: quotas[pool] for pool in POOLS if _is_int(quotas.get(pool))}
        self.entries_sha256 = record["entries"]["sha256"] or ""
        self.tickets_total = record["entries"]["tickets_total"]
        self.entries = entries
        self.seed = seed
        self.no_seed_because = no_seed_because
        self.others = others
        self.next_k: dict[str | None, int] = {}
        self.won_at: dict[int, int] = {}  # member_id -> number of the pick that won
        self.winning: list[dict] = []
        self.winners_in: dict[str | None, int] = {}
        self.earlier: dict[tuple, tuple[int, dict]] = {}  # (pool, k) -> (number, pick)
        self.drawn: set[int] = set()
        self.card_of: dict[int, str] = {}
        self.member_of: dict[str, int] = {}

    def check(self, number: int, pick: dict, last: bool) -> Line:
        problems: list[str] = []
        said: list[str] = []
        pool = pick["pool"]
        label = f"Pick {number}" + (f" ({pool} k={pick['k']})" if self.method == "raps" else "")
        self._check_k(pick, problems)
        if self.method == "raps":
            pending = self._check_raps_row(pick, problems, said)
        else:
            pending = self._check_serial(pick, problems, said)
        self._check_card(pick, problems)
        self._check_outcome(number, pick, last, problems, said)
        self._check_registers(pick, problems, said)
        self.earlier.setdefault((pick["pool"], pick["k"]), (number, pick))
        if problems:
            return Line(label, False, "; ".join(problems))
        return Line(label, not pending, "; ".join(said), pending)

    def _check_k(self, pick: dict, problems: list[str]) -> None:
        pool = pick["pool"] if self.method == "raps" else None
        if self.method == "raps" and pool not in POOLS:
            problems.append(f"pool {pool!r} is neither slot nor table")
        elif self.method != "raps" and pick["pool"] is not None:
            problems.append(f"a pool ({pick['pool']!r}) on a pick of a {self.method} draw")
        expected = self.next_k.get(pool, 1)
        if pick["k"] != expected:
            per = f" in the {pool} pool" if pool else ""
            problems.append(f"k is {pick['k']}, expected {expected}{per} (k counts 1, 2, 3, ... without gaps)")
        self.next_k[pool] = pick["k"] + 1

    def _check_serial(self, pick: dict, problems: list[str], said: list[str]) -> bool:
        """Electronic or manual: the serial and its owner. True when the serial awaits the seed."""
        serial, k, total = pick["serial"], pick["k"], self.tickets_total
        pending = False
        if not 1 <= serial <= total:
            problems.append(f"serial {serial} is outside 1..{total}")
            return False
        if self.method == "electronic":
            if self.seed is None:
                said.append(f"serial {serial} not recomputed: {self.no_seed_because}")
                pending = True
            else:
                expected = electronic_serial(
                    seed=self.seed, entries_sha256=self.entries_sha256, k=k, tickets_total=total
                )
                if expected == serial:
                    said.append(f"serial {serial} is the one k={k} gives")
                else:
                    problems.append(f"serial {serial} is not the one k={k} gives ({expected})")
        else:  # manual: keyed from the bin, so only its range and uniqueness are checkable
            if serial in self.drawn:
                problems.append(f"serial {serial} was already drawn earlier in this draw")
            else:
                said.append(f"serial {serial} is an activated serial not drawn before")
            self.drawn.add(serial)
        owner = self.entries.owners.get(serial)
        if owner is None:
            problems.append(f"serial {serial} is in no range of the entry list")
        elif owner.member_id != pick["member_id"]:
            problems.append(
                f"serial {serial} belongs to member {owner.member_id} (serials {owner.first}-{owner.last}), "
                f"not member {pick['member_id']}"
            )
        else:
            said.append(f"its owner is member no. {owner.member_id} (serials {owner.first}-{owner.last})")
        return pending

    def _check_raps_row(self, pick: dict, problems: list[str], said: list[str]) -> bool:
        pool, row, k = pick["pool"], pick["serial"], pick["k"]
        size = self.entries.pool_sizes.get(pool, 0) if pool in POOLS else 0
        if not size or not 1 <= row <= size:
            problems.append(f"row {row} is not in the {pool} pool of {size} rows")
            return False
        pending = False
        if self.seed is None:
            said.append(f"row {row} not recomputed: {self.no_seed_because}")
            pending = True
        else:
            expected = raps_row(seed=self.seed, list_sha256=self.entries_sha256, pool=pool, k=k, pool_size=size)
            if expected == row:
                said.append(f"row {row} of the {pool} pool is the one k={k} gives")
            else:
                problems.append(f"row {row} of the {pool} pool is not the one k={k} gives ({expected})")
        entry = self.entries.rows.get((pool, row))
        if entry is None:
            problems.append(f"row {row} of the {pool} pool is unreadable in the entry list")
        elif entry.card_number != pick["card_number"]:
            problems.append(f"row {row} of the {pool} pool is card {entry.card_number}, not {pick['card_number']}")
        else:
            said.append(f"card {entry.card_number} at {pool} {entry.device_id}")
        return pending

    def _check_card(self, pick: dict, problems: list[str]) -> None:
        """One member, one card, throughout the record."""
        member_id, card = pick["member_id"], pick["card_number"]
        if self.card_of.setdefault(member_id, card) != card:
            problems.append(f"member {member_id} has card {self.card_of[member_id]} in an earlier pick, {card} here")
        if self.member_of.setdefault(card, member_id) != member_id:
            problems.append(f"card {card} is member {self.member_of[card]} in an earlier pick, {member_id} here")

    def _had_its_winners(self, pool: str | None) -> str | None:
        if self.method == "raps" and pool in self.quotas:
            if self.winners_in.get(pool, 0) >= self.quotas[pool]:
                return f"made after the {pool} pool had its {self.quotas[pool]} winners"
            return None
        if len(self.winning) >= self.wanted:
            return f"made after the draw had its {self.wanted} winner{'s' if self.wanted != 1 else ''}"
        return None

    def _check_outcome(self, number: int, pick: dict, last: bool, problems: list[str], said: list[str]) -> None:
        outcome, member_id, reason = pick["outcome"], pick["member_id"], pick["reason"].strip()
        after = self._had_its_winners(pick["pool"])
        if after:
            problems.append(after)
        if pick["ref"] is not None and outcome not in REF_REDRAWS:
            problems.append(
                f"a ref ({_ref_text(pick['ref'])}) on a pick that is not a redraw resting on an earlier pick"
            )
        if outcome is None:
            if last:
                said.append("awaiting its outcome")
            else:
                problems.append("has no outcome, yet a later pick was made")
        elif outcome not in OUTCOMES:
            problems.append(f"outcome {outcome!r} is not one of DRAWS.md §3")
        elif outcome in REF_REDRAWS:
            self._check_ref(number, pick, problems, said)
        elif outcome in UNCHECKABLE_REDRAWS:
            if reason:
                said.append(f"{outcome}: not checkable from the record; reason: {reason}")
            else:
                problems.append(f"{outcome} without a reason")
        elif outcome in WINNING_OUTCOMES:
            if member_id in self.won_at:
                problems.append(
                    f"{outcome}, but member {member_id} already won at pick {self.won_at[member_id]}: "
                    "this pick should have been a redraw_already_winner"
                )
            else:
                elsewhere = self._win_elsewhere(pick)
                if elsewhere:
                    problems.append(
                        f"{outcome}, but member {member_id} already won {_ref_text(elsewhere)} within the "
                        f"win-once scope ({self.win_once}): this pick should have been a redraw_won_in_scope"
                    )
                else:
                    said.append(f"{outcome}: a winner")
            self.won_at.setdefault(member_id, number)
            self.winners_in[pick["pool"]] = self.winners_in.get(pick["pool"], 0) + 1
            self.winning.append(
                {"member_id": member_id, "card_number": pick["card_number"], "k": pick["k"], "pool": pick["pool"]}
            )
        elif outcome == "disqualified" and not reason:
            problems.append("disqualified without a reason")
        elif member_id in self.won_at:
            problems.append(
                f"{outcome}, but member {member_id} already won at pick {self.won_at[member_id]}: "
                "this pick should have been a redraw_already_winner"
            )
        else:
            said.append(outcome.replace("_", "-") + ": redrawn" + (f" ({reason})" if reason else ""))

    def _check_registers(self, pick: dict, problems: list[str], said: list[str]) -> None:
        """declined needs a decline, proxy_present a nomination, live at the pick's time; no_show
        is never a decliner's (a decliner is a winner). The registers close when the draw starts,
        so live at the pick is live when the outcome was recorded."""
        outcome, member_id = pick["outcome"], pick["member_id"]
        if outcome not in (*REGISTER_OUTCOMES, "no_show"):
            return
        if not self.registers.present:
            if outcome in REGISTER_OUTCOMES:
                said.append("not checked against the registers: the record holds none")
            return
        moment = _aware(pick["at"])
        if moment is None:
            problems.append(f"its time {pick['at']!r} is unreadable, so the registers cannot be held to it")
            return
        at = f"at {_clock(moment)} (the pick's time)"
        if outcome == "declined":
            span = self.registers.live("decline", member_id, moment)
            if span is None:
                why = self.registers.why_none("decline", member_id, moment)
                problems.append(f"declined, but member {member_id} had no live decline {at}: {why}")
            else:
                said.append(f"on the decline register since {_moment(span.item['registered_at'])}")
        elif outcome == "proxy_present":
            span = self.registers.live("proxy", member_id, moment)
            if span is None:
                why = self.registers.why_none("proxy", member_id, moment)
                problems.append(f"proxy_present, but member {member_id} had no live proxy nomination {at}: {why}")
            else:
                item = span.item
                said.append(
                    f"nominee {item['nominee_name']} (ID ending {item['nominee_id_last4']}), nominated "
                    f"{_moment(item['registered_at'])}"
                )
        else:
            span = self.registers.live("decline", member_id, moment)
            if span is not None:
                problems.append(
                    f"no_show, but member {member_id} was on the decline register {at} (since "
                    f"{_moment(span.item['registered_at'])}): a decliner is a winner (declined), never redrawn"
                )

    def _check_ref(self, number: int, pick: dict, problems: list[str], said: list[str]) -> None:
        """An automatic redraw resting on an earlier pick: the pick its ref names."""
        outcome, member_id, ref = pick["outcome"], pick["member_id"], pick["ref"]
        if outcome == ALREADY_WINNER and member_id not in self.won_at:
            problems.append(f"redraw_already_winner, but member {member_id} has no earlier winning pick")
            return
        if ref is None:
            problems.append(f"{outcome} without a ref naming the earlier pick it rests on")
            return
        if outcome == WON_IN_SCOPE:
            self._check_ref_elsewhere(pick, problems, said)
            return
        if ref["draw"] != self.draw_id:
            problems.append(f"{outcome} rests on {_ref_text(ref)}, but it is about picks of this draw")
            return
        found = self.earlier.get((ref["pool"], ref["k"]))
        if found is None:
            problems.append(f"its ref, {_ref_text(ref)}, is not an earlier pick of this draw")
            return
        at, earlier = found
        if earlier["member_id"] != member_id:
            problems.append(f"its ref, pick {at}, is member {earlier['member_id']}, not member {member_id}")
        elif outcome == ALREADY_WINNER and earlier["outcome"] not in WINNING_OUTCOMES:
            problems.append(f"its ref, pick {at}, is not a win ({earlier['outcome']})")
        elif outcome == ALREADY_WINNER:
            said.append(f"redraw: member {member_id} already won at pick {at}")
        else:
            said.append(f"redraw: member {member_id} was already drawn at pick {at} (one selection per draw)")

    def _check_ref_elsewhere(self, pick: dict, problems: list[str], said: list[str]) -> None:
        ref, member_id = pick["ref"], pick["member_id"]
        if self.win_once not in SCOPES_ACROSS_DRAWS:
            problems.append(
                f"redraw_won_in_scope, but the win-once scope is {self.win_once!r}: it reaches no other draw"
            )
            return
        if ref["draw"] == self.draw_id:
            problems.append("redraw_won_in_scope rests on a pick of this draw: that is a redraw_already_winner")
            return
        other = self.others.get(ref["draw"])
        if other is None:
            said.append(
                f"redraw_won_in_scope: rests on {_ref_text(ref)}, not checkable here (give that draw's record "
                "too to check it)"
            )
            return
        earlier = next(
            (p for p in other["picks"] if p.get("pool") == ref["pool"] and p.get("k") == ref["k"]),
            None,
        )
        if earlier is None:
            problems.append(f"its ref, {_ref_text(ref)}, is not a pick of that draw's record")
        elif earlier.get("member_id") != member_id:
            problems.append(f"its ref, {_ref_text(ref)}, is member {earlier.get('member_id')}, not member {member_id}")
        elif earlier.get("outcome") not in WINNING_OUTCOMES:
            problems.append(f"its ref, {_ref_text(ref)}, is not a win ({earlier.get('outcome')})")
        elif not _in_scope(self.record, other, self.win_once):
            problems.append(f"its ref, {_ref_text(ref)}, is not within the win-once scope ({self.win_once})")
        elif not _before(earlier.get("at"), pick["at"]):
            problems.append(f"its ref, {_ref_text(ref)}, was picked after this pick")
        else:
            said.append(f"redraw: member {member_id} already won {_ref_text(ref)} within the scope ({self.win_once})")

    def _win_elsewhere(self, pick: dict) -> dict | None:
        """A win of this member in another given record within the scope, before this pick."""
        if self.win_once not in SCOPES_ACROSS_DRAWS:
            return None
        for draw_id, other in self.others.items():
            if draw_id == self.draw_id or not _in_scope(self.record, other, self.win_once):
                continue
            for earlier in other["picks"]:
                if (
                    earlier.get("member_id") == pick["member_id"]
                    and earlier.get("outcome") in WINNING_OUTCOMES
                    and _before(earlier.get("at"), pick["at"])
                ):
                    return {"draw": draw_id, "k": earlier.get("k"), "pool": earlier.get("pool")}
        return None


def _before(earlier, later) -> bool:
    first, second = _moment_of(earlier), _moment_of(later)
    return first is not None and second is not None and first <= second


def _in_scope(record: dict, other: dict, scope: str) -> bool:
    """Another draw within this draw's win-once scope: "period", every draw given (the records
    of one promotion); "day", a draw on the same promotional day (the date of its draw time). A
    RAPS bonus session's wins are in no other draw's scope (Royal Flush A13, draws.engine)."""
    if other["draw"].get("method") == "raps":
        return False
    if scope == "period":
        return True
    mine, theirs = _moment_of(record["draw"]["scheduled_at"]), _moment_of(other["draw"]["scheduled_at"])
    return mine is not None and theirs is not None and mine.date() == theirs.date()


def _check_winners(report: Report, record: dict, winning: list[dict]) -> None:
    listed = [{key: w[key] for key in _WINNER_SHAPE} for w in record["winners"]]
    wanted = record["draw"]["winners_wanted"]
    if listed == winning:
        report.add(
            "Winners",
            True,
            f"the {len(listed)} listed (of {wanted} wanted) are exactly the picks with a winning outcome, in order",
        )
        return
    missing = [w for w in winning if w not in listed]
    extra = [w for w in listed if w not in winning]
    problems = [f"pick k={w['k']} (card {w['card_number']}) won but is not listed" for w in missing]
    problems += [f"card {w['card_number']} (k={w['k']}) is listed but has no winning pick" for w in extra]
    if not problems:
        problems.append("the winners are listed out of the order of their picks")
    report.add("Winners", False, "; ".join(problems))


def _check_complete(report: Report, record: dict, checker: _PickChecker) -> None:
    """A complete record (status drawn): its completion time, its seed, its winners per pool
    (or why it ended short), and no pick after its last winning pick."""
    draw, picks = record["draw"], record["picks"]
    status = draw["status"]
    if status != "drawn":
        problems = []
        if draw["completed_at"] is not None:
            problems.append(f"it is {status}, yet has a completion time")
        if record["seed"]["hex"] is not None:
            problems.append(f"it is {status}, yet its seed is revealed")
        if problems:
            report.add("Complete", False, "; ".join(problems))
        else:
            report.add("Complete", False, f"not complete: the draw is {status}", pending=True)
        return
    problems = []
    if draw["completed_at"] is None:
        problems.append("drawn without a completion time")
    if record["seed"]["hex"] is None:
        problems.append("drawn, but the seed is not revealed")
    short = draw["ended_short_reason"].strip()
    if record["draw"]["method"] == "raps" and checker.quotas:
        counts = {pool: checker.winners_in.get(pool, 0) for pool in POOLS}
        has_all = all(counts[pool] == checker.quotas.get(pool, 0) for pool in POOLS)
        described = ", ".join(f"{counts[p]} of {checker.quotas.get(p, 0)} {p}" for p in POOLS)
    else:
        has_all = len(checker.winning) == draw["winners_wanted"]
        described = f"{len(checker.winning)} of {draw['winners_wanted']} winners"
    if not has_all and not short:
        problems.append(f"{described}, and no reason why it ended short")
    if picks and picks[-1]["outcome"] is None:
        problems.append("drawn with a pick awaiting its outcome")
    if has_all and not short:
        last_win = {}
        for number, pick in enumerate(picks, 1):
            if pick["outcome"] in WINNING_OUTCOMES:
                last_win[pick["pool"]] = number
        late = [
            number
            for number, pick in enumerate(picks, 1)
            if number > last_win.get(pick["pool"] if record["draw"]["method"] == "raps" else None, 0)
        ]
        if late:
            problems.append(f"pick {late[0]} follows the last winning pick")
    if problems:
        report.add("Complete", False, "; ".join(problems))
        return
    ended = f"; ended short: {short}" if short else ""
    report.add("Complete", True, f"drawn at {_moment(draw['completed_at'])} with {described}{ended}")


def _read_record(record_json: bytes) -> tuple[dict | None, str]:
    try:
        record = json.loads(record_json.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"the record file is not UTF-8 JSON ({error})"
    if not isinstance(record, dict):
        return None, "the record is not a JSON object"
    return record, ""


def verify_record(record_json: bytes, entries: EntriesSource, *, others: dict[int, dict] | None = None) -> Report:
    """Every check of one record, in order (see the module's docstring). `entries` is the entry
    list as bytes, a binary file, an iterable of byte chunks or a function giving one. `others`:
    the parsed records of other draws given with it (draw id -> record)."""
    report = Report()
    trusted = check_selection(report)
    record, unreadable = _read_record(record_json)
    if record is None:
        report.add("Record", False, unreadable)
        return report
    if "format" not in record:
        report.add("Record", False, 'format 1 (the record has no "format"), not checked: export it again')
        return report
    if record["format"] != RECORD_FORMAT:
        report.add("Record", False, f"format {record['format']!r} is not one this verifier reads (format 2)")
        return report
    problems = _shape_problems(record)
    if not problems and record["draw"]["method"] not in METHODS:
        problems.append(f"method {record['draw']['method']!r} is not electronic, manual or raps")
    if not problems and (record["draw"]["method"] == "raps") != (record["raps"] is not None):
        problems.append('"raps" is null for electronic and manual draws and set for a RAPS session')
    if problems:
        report.add("Record", False, "; ".join(problems[:_SHOWN_PROBLEMS]))
        return report
    draw = record["draw"]
    report.add(
        "Record",
        True,
        f"format 2, draw {draw['id']} ({draw['name']}, {draw['property']}, {draw['method']}, "
        f"{_moment(draw['scheduled_at'])})",
    )
    software = record["software"]
    if software["name"] != "promodesk":
        report.add("Software", False, f"the record names the software {software['name']!r}, not promodesk")
    elif software["version"]:
        report.add("Software", True, f"promodesk {software['version']} ran the draw")
    elif draw["started_at"] is None:
        report.add("Software", True, "not started yet: the software is stored at the start")
    else:
        report.add("Software", True, "promodesk, version not recorded (a draw started before versions were kept)")
    entries_found = _check_entries(report, record, entries)
    seed, no_seed_because = _check_seed(report, record)
    if seed is not None and not trusted:
        seed, no_seed_because = None, "the selection code fails DRAWS.md §2's test vectors"
    registers = _check_registers(report, record)
    checker = _PickChecker(record, entries_found, seed, no_seed_because, others or {}, registers)
    picks = record["picks"]
    for number, pick in enumerate(picks, 1):
        report.lines.append(checker.check(number, pick, last=number == len(picks)))
    _check_winners(report, record, checker.winning)
    _check_complete(report, record, checker)
    return report


def verify_records(pairs: list[tuple[bytes, EntriesSource]]) -> list[Report]:
    """Several records checked together (e.g. the draws of a promotion): each as verify_record,
    with the others given, so refs to other draws and win-once across draws are checked. The
    entry lists are read one after the other."""
    others = {}
    for record_json, _ in pairs:
        record, _unreadable = _read_record(record_json)
        if record is not None and record.get("format") == RECORD_FORMAT and not _shape_problems(record):
            others[record["draw"]["id"]] = record
    return [verify_record(record_json, entries, others=others) for record_json, entries in pairs]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or len(args) % 2:
        print(
            "usage: python -m draws.verification draw-<id>.json draw-<id>-entries.csv [more JSON CSV pairs]",
            file=sys.stderr,
        )
        return 2
    try:
        pairs = []
        for json_path, entries_path in zip(args[::2], args[1::2], strict=True):
            with open(json_path, "rb") as record_file:
                pairs.append((record_file.read(), _file_chunks(entries_path)))
        reports = verify_records(pairs)
    except OSError as error:
        print(f"Cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return 1  # DRAWS.md §6: 1 whenever the record is not shown to hold
    for number, report in enumerate(reports):
        if len(reports) > 1:
            sys.stdout.write(("\n" if number else "") + f"== {args[2 * number]}\n")
        sys.stdout.write(report.text())
    return 0 if all(report.holds for report in reports) else 1


def _file_chunks(path: str) -> Callable[[], Iterable[bytes]]:
    def read() -> Iterable[bytes]:
        with open(path, "rb") as entries_file:
            yield from iter(lambda: entries_file.read(64 * 1024), b"")

    return read


if __name__ == "__main__":
    sys.exit(main())
