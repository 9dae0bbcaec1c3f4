"""Check a draw's exported record from its two files alone (DRAWS.md §6).

Pure Python: the standard library and draws/selection.py, no Django and no database, so an
auditor can copy the two modules and run

    python -m draws.verification draw-7.json draw-7-entries.csv

which prints every check, pick by pick, and exits 0 when every check holds, else 1 (2 when it
cannot read the files).

What is checked: the entry list's SHA-256 against the record; the entry list's form (ranges
1..N without gaps, or a RAPS list in its canonical order); the revealed seed against its
committed SHA-256; for each pick, its k (1, 2, 3, ... per draw, per pool in RAPS), its serial
(electronic: the one §2 gives for k; RAPS: the row §5 gives; manual: an activated serial not
drawn before), its owner (by a range lookup, or the RAPS row's card), its outcome (a redraw
for an existing winner is justified by an earlier win, a winner is not a second win of one
member, the redraws only the night knew about carry their reason); and that the winners are
exactly the picks with a winning outcome.

A record whose seed is not revealed yet (a draw not complete) does not verify: its electronic
and RAPS serials cannot be recomputed. Those checks are reported as "not verified yet" (they are
not failures of the record, but the record does not hold as a whole until they can be made).
"""

import bisect
import datetime as dt
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field

from draws.selection import electronic_serial, raps_row

# DRAWS.md §3, as the record spells them (draws.models.PickOutcome; a test keeps them equal).
WINNING_OUTCOMES = frozenset({"present", "proxy_present", "declined"})
ALREADY_WINNER = "redraw_already_winner"
# Automatic redraws decided on facts the record does not carry (other draws, exclusions, proxies).
# redraw_already_drawn (issue 13, Fast Lane rule 117) is listed here until the record carries the
# series' one-selection flag and the verifier checks it (the record's part of issue 13).
UNCHECKABLE_REDRAWS = frozenset({"redraw_won_in_scope", "redraw_ineligible", "redraw_is_proxy", "redraw_already_drawn"})
STAGE_REDRAWS = frozenset({"no_show", "disqualified"})
OUTCOMES = WINNING_OUTCOMES | UNCHECKABLE_REDRAWS | STAGE_REDRAWS | {ALREADY_WINNER}
POOLS = ("slot", "table")
METHODS = ("electronic", "manual", "raps")

_NUMBER = "(0|[1-9][0-9]*)"
_RANGE_LINE = re.compile(rf"{_NUMBER},{_NUMBER},{_NUMBER}")
_RAPS_LINE = re.compile(rf"([^,]+),(slot|table),([^,]+),{_NUMBER}")
_HEX64 = re.compile("[0-9a-f]{64}")
_SHOWN_PROBLEMS = 5  # an entry list with many bad lines names the first few


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


@dataclass(frozen=True)
class _Range:
    first: int
    last: int
    member_id: int


@dataclass(frozen=True)
class _RapsRow:
    card_number: str
    device_type: str
    device_id: str
    spend_cents: int


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The record's structure: required keys and their types (None allowed where the spec says null).
_SHAPE = {
    "draw": {"id": int, "name": str, "property": str, "scheduled_at": str, "method": str, "winners_wanted": int},
    "entries": {"count": int, "tickets_total": int, "sha256": (str, None), "frozen_at": (str, None)},
    "seed": {"sha256": (str, None), "hex": (str, None)},
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
}
_WINNER_SHAPE = {"member_id": int, "card_number": str, "k": int}


def _type_ok(value, expected) -> bool:
    options = expected if isinstance(expected, tuple) else (expected,)
    return any(
        value is None if option is None else (_is_int(value) if option is int else isinstance(value, option))
        for option in options
    )


def _shape_problems(record) -> list[str]:
    if not isinstance(record, dict):
        return ["the record is not a JSON object"]
    problems = []
    for section, keys in _SHAPE.items():
        part = record.get(section)
        if not isinstance(part, dict):
            problems.append(f'"{section}" is missing')
            continue
        problems += [
            f'"{section}.{key}" is missing or not a {_type_name(kind)}'
            for key, kind in keys.items()
            if key not in part or not _type_ok(part[key], kind)
        ]
    for section, keys in (("picks", _PICK_SHAPE), ("winners", _WINNER_SHAPE)):
        items = record.get(section)
        if not isinstance(items, list):
            problems.append(f'"{section}" is missing or not a list')
            continue
        for number, item in enumerate(items, 1):
            if not isinstance(item, dict):
                problems.append(f"{section} item {number} is not an object")
                continue
            problems += [
                f'"{key}" of {section} item {number} is missing or not a {_type_name(kind)}'
                for key, kind in keys.items()
                if key not in item or not _type_ok(item[key], kind)
            ]
    return problems


def _type_name(kind) -> str:
    options = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({int: "whole number", str: "text", None: "null"}[option] for option in options)


def _split_lines(entries: bytes) -> tuple[list[str], list[str]]:
    """The entry list's lines, and what is wrong with its text as a whole."""
    try:
        text = entries.decode("utf-8")
    except UnicodeDecodeError as error:
        return [], [f"it is not UTF-8 (byte {error.start})"]
    if not text:
        return [], []
    if not text.endswith("\n"):
        return text.split("\n"), ["the last line has no newline"]
    return text[:-1].split("\n"), []


def _parse_ranges(lines: list[str], problems: list[str]) -> list[_Range]:
    ranges = []
    expected_first = 1
    for number, line in enumerate(lines, 1):
        match = _RANGE_LINE.fullmatch(line)
        if not match:
            problems.append(f'line {number} is not "first_serial,last_serial,member_id": {line[:60]!r}')
            continue
        first, last, member_id = (int(part) for part in match.groups())
        if first != expected_first:
            problems.append(f"line {number} starts at serial {first}, expected {expected_first} (no gap, no overlap)")
        if last < first:
            problems.append(f"line {number} ends at {last}, before its first serial {first}")
        ranges.append(_Range(first, last, member_id))
        expected_first = max(last, first) + 1
    return ranges


def _parse_raps(lines: list[str], problems: list[str]) -> list[_RapsRow]:
    rows = []
    previous = None
    for number, line in enumerate(lines, 1):
        match = _RAPS_LINE.fullmatch(line)
        if not match:
            problems.append(f'line {number} is not "card_number,device_type,device_id,spend_cents": {line[:60]!r}')
            continue
        row = _RapsRow(match[1], match[2], match[3], int(match[4]))
        key = tuple(part.encode("utf-8") for part in (row.device_type, row.device_id, row.card_number))
        if previous is not None and key < previous:
            problems.append(
                f"line {number} is out of order (sorted by device_type, device_id, card_number, byte order)"
            )
        previous = key
        rows.append(row)
    return rows


def _check_entries(report: Report, record: dict, entries: bytes):
    """The hash and the form of the entry list; returns the parsed ranges or RAPS pools."""
    facts = record["entries"]
    actual = hashlib.sha256(entries).hexdigest()
    if facts["sha256"] is None:
        report.add(
            "Entry list hash", False, "the record has no entry-list hash: the entries are not frozen yet", pending=True
        )
    elif actual == facts["sha256"]:
        report.add("Entry list hash", True, f"SHA-256 of the entry list file is {actual}, as recorded")
    else:
        report.add(
            "Entry list hash", False, f"SHA-256 of the entry list file is {actual}, the record says {facts['sha256']}"
        )

    lines, problems = _split_lines(entries)
    raps = record["draw"]["method"] == "raps"
    parsed = _parse_raps(lines, problems) if raps else _parse_ranges(lines, problems)
    if len(lines) != facts["count"]:
        problems.append(f"it has {len(lines)} lines, the record counts {facts['count']} entries")
    if raps:
        total = len(lines)
        pools = {pool: [row for row in parsed if row.device_type == pool] for pool in POOLS}
        described = f"{len(lines)} rows ({len(pools['slot'])} slot, {len(pools['table'])} table) in canonical order"
    else:
        total = parsed[-1].last if parsed else 0
        pools = None
        described = (
            f"{len(lines)} ranges, serials 1..{total} without gaps, ordered by first serial" if lines else "empty"
        )
    if total != facts["tickets_total"]:
        problems.append(f"it holds {total} {'rows' if raps else 'tickets'}, the record says {facts['tickets_total']}")
    if problems:
        shown = "; ".join(problems[:_SHOWN_PROBLEMS])
        more = f" (and {len(problems) - _SHOWN_PROBLEMS} more)" if len(problems) > _SHOWN_PROBLEMS else ""
        report.add("Entry list", False, shown + more)
    else:
        report.add("Entry list", True, described)
    return pools if raps else parsed


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


class _PickChecker:
    """Walks the picks in order, keeping what earlier picks established (k per pool, winners,
    serials drawn, each member's card)."""

    def __init__(self, record: dict, entries, seed: bytes | None, no_seed_because: str) -> None:
        self.method = record["draw"]["method"]
        self.wanted = record["draw"]["winners_wanted"]
        self.entries_sha256 = record["entries"]["sha256"] or ""
        self.tickets_total = record["entries"]["tickets_total"]
        self.entries = entries
        self.firsts = [r.first for r in entries] if self.method != "raps" else []
        self.seed = seed
        self.no_seed_because = no_seed_because
        self.next_k: dict[str | None, int] = {}
        self.won_at: dict[int, int] = {}  # member_id -> number of the pick that won
        self.winning: list[dict] = []
        self.drawn: set[int] = set()
        self.card_of: dict[int, str] = {}
        self.member_of: dict[str, int] = {}

    def check(self, number: int, pick: dict, last: bool) -> Line:
        problems: list[str] = []
        said: list[str] = []
        pending = False
        pool = pick["pool"]
        label = f"Pick {number}" + (f" ({pool} k={pick['k']})" if self.method == "raps" else "")
        self._check_k(pick, problems)
        if self.method == "raps":
            pending = self._check_raps_row(pick, problems, said)
        else:
            pending = self._check_serial(pick, problems, said)
        self._check_card(pick, problems)
        self._check_outcome(number, pick, last, problems, said)
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
        at = bisect.bisect_right(self.firsts, serial) - 1
        owner = self.entries[at] if at >= 0 and self.entries[at].last >= serial else None
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
        rows = self.entries.get(pool) if pool in POOLS else None
        if not rows or not 1 <= row <= len(rows):
            problems.append(f"row {row} is not in the {pool} pool of {len(rows or [])} rows")
            return False
        pending = False
        if self.seed is None:
            said.append(f"row {row} not recomputed: {self.no_seed_because}")
            pending = True
        else:
            expected = raps_row(seed=self.seed, list_sha256=self.entries_sha256, pool=pool, k=k, pool_size=len(rows))
            if expected == row:
                said.append(f"row {row} of the {pool} pool is the one k={k} gives")
            else:
                problems.append(f"row {row} of the {pool} pool is not the one k={k} gives ({expected})")
        entry = rows[row - 1]
        if entry.card_number != pick["card_number"]:
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

    def _check_outcome(self, number: int, pick: dict, last: bool, problems: list[str], said: list[str]) -> None:
        outcome, member_id, reason = pick["outcome"], pick["member_id"], pick["reason"].strip()
        if len(self.winning) >= self.wanted:
            problems.append(f"made after the draw had its {self.wanted} winner{'s' if self.wanted != 1 else ''}")
        if outcome is None:
            if last:
                said.append("awaiting its outcome")
            else:
                problems.append("has no outcome, yet a later pick was made")
        elif outcome not in OUTCOMES:
            problems.append(f"outcome {outcome!r} is not one of DRAWS.md §3")
        elif outcome == ALREADY_WINNER:
            if member_id in self.won_at:
                said.append(f"redraw: member {member_id} already won at pick {self.won_at[member_id]}")
            else:
                problems.append(f"redraw_already_winner, but member {member_id} has no earlier winning pick")
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
                said.append(f"{outcome}: a winner")
            self.won_at.setdefault(member_id, number)
            self.winning.append({"member_id": member_id, "card_number": pick["card_number"], "k": pick["k"]})
        elif outcome == "disqualified" and not reason:
            problems.append("disqualified without a reason")
        elif member_id in self.won_at:
            problems.append(
                f"{outcome}, but member {member_id} already won at pick {self.won_at[member_id]}: "
                "this pick should have been a redraw_already_winner"
            )
        else:
            said.append(outcome.replace("_", "-") + ": redrawn" + (f" ({reason})" if reason else ""))


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


def _moment(iso: str) -> str:
    """ "Sun 29 Nov 2026 19:30 (+02:00)" for people; the ISO text itself if it is not one."""
    try:
        moment = dt.datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return str(iso)
    offset = moment.strftime("%z")
    return moment.strftime("%a %d %b %Y %H:%M") + (f" ({offset[:3]}:{offset[3:]})" if offset else "")


def verify_record(record_json: bytes, entries: bytes) -> Report:
    """Every check of the record, in order (see the module's docstring)."""
    report = Report()
    try:
        record = json.loads(record_json.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        report.add("Record", False, f"the record file is not UTF-8 JSON ({error})")
        return report
    problems = _shape_problems(record)
    if not problems and record["draw"]["method"] not in METHODS:
        problems.append(f"method {record['draw']['method']!r} is not electronic, manual or raps")
    if problems:
        report.add("Record", False, "; ".join(problems[:_SHOWN_PROBLEMS]))
        return report
    draw = record["draw"]
    report.add(
        "Record",
        True,
        f"draw {draw['id']} ({draw['name']}, {draw['property']}, {draw['method']}, {_moment(draw['scheduled_at'])})",
    )
    parsed = _check_entries(report, record, entries)
    seed, no_seed_because = _check_seed(report, record)
    checker = _PickChecker(record, parsed, seed, no_seed_because)
    picks = record["picks"]
    for number, pick in enumerate(picks, 1):
        report.lines.append(checker.check(number, pick, last=number == len(picks)))
    _check_winners(report, record, checker.winning)
    return report


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m draws.verification draw-<id>.json draw-<id>-entries.csv", file=sys.stderr)
        return 2
    try:
        with open(args[0], "rb") as record_file, open(args[1], "rb") as entries_file:
            report = verify_record(record_file.read(), entries_file.read())
    except OSError as error:
        print(f"Cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return 1  # DRAWS.md §6: 1 whenever the record is not shown to hold
    sys.stdout.write(report.text())
    return 0 if report.holds else 1


if __name__ == "__main__":
    sys.exit(main())
