"""The exported record of a draw: the two files of DRAWS.md §6 (format 2), byte for byte, with
the draw's registers (docs/draw-records-registers.md, the addition to §6).

`manage.py export_draw_record`, the record page's downloads and `verify_draw` all take their
bytes from here (record_json and entries_chunks), so what an auditor downloads is exactly what
we verify. The entry list is written in chunks from a database cursor, never as one bytes
object: a draw of a million activations exports in bounded memory.
"""

import datetime as dt
import json
from collections.abc import Iterator
from typing import NamedTuple

from django.utils import timezone

from draws import registers
from draws.models import WINNING_OUTCOMES, Draw, DrawPick, RapsEntry, RapsList
from promotions.models import DrawMethod, WinOnceScope

RECORD_FORMAT = 2
SOFTWARE_NAME = "promodesk"
SPEC_PATH = "docs/draw-records.md"  # DRAWS.md, shipped with the project for auditors outside
REGISTERS_SPEC_PATH = "docs/draw-records-registers.md"  # our addition to §6: the registers
CHUNK_BYTES = 64 * 1024
ROWS_PER_FETCH = 5000
# DRAWS.md §3 outcomes whose redraw rests on an earlier pick (the record names it: "ref").
ALREADY_WINNER = "redraw_already_winner"
ALREADY_DRAWN = "redraw_already_drawn"
WON_IN_SCOPE = "redraw_won_in_scope"


class DrawRecordFiles(NamedTuple):
    entries_name: str
    entries: bytes
    json_name: str
    json: bytes


def _iso(moment: dt.datetime | None) -> str | None:
    """ISO-8601 in Johannesburg time, with its offset (+02:00)."""
    return timezone.localtime(moment).isoformat() if moment else None


def _raps_list(draw: Draw) -> RapsList | None:
    try:
        return draw.raps_list
    except RapsList.DoesNotExist:
        return None


class EntriesSummary(NamedTuple):
    count: int
    tickets_total: int
    sha256: str
    frozen_at: dt.datetime | None


def entries_summary(draw: Draw) -> EntriesSummary:
    """What the draw is run on. A RAPS session's entries are its canonical active-player list
    (DRAWS.md §5): one row is one chance, so count and tickets_total are both its number of
    rows, its hash is list_sha256, and it was frozen when it was uploaded."""
    if draw.method != DrawMethod.RAPS:
        return EntriesSummary(draw.entries_count, draw.tickets_total, draw.entries_sha256, draw.entries_frozen_at)
    raps_list = _raps_list(draw)
    if raps_list is None:
        return EntriesSummary(0, 0, "", None)
    rows = raps_list.canonical.count("\n")
    return EntriesSummary(rows, rows, raps_list.list_sha256, raps_list.uploaded_at)


def entries_chunks(draw: Draw) -> Iterator[bytes]:
    """Exactly the bytes hashed into the entry-list hash (nothing before the entries are frozen),
    in chunks of about CHUNK_BYTES: the activations are read with a server-side cursor, so the
    memory used does not grow with the number of activations (DRAWS.md §1's lines)."""
    if draw.method == DrawMethod.RAPS:
        raps_list = _raps_list(draw)
        data = raps_list.canonical.encode("utf-8") if raps_list else b""
        for start in range(0, len(data), CHUNK_BYTES):
            yield data[start : start + CHUNK_BYTES]
        return
    if not draw.entries_frozen_at:
        return
    rows = draw.activations.order_by("first_serial").values_list("first_serial", "last_serial", "member_id")
    lines: list[str] = []
    size = 0
    for first, last, member in rows.iterator(chunk_size=ROWS_PER_FETCH):
        line = f"{first},{last},{member}\n"
        lines.append(line)
        size += len(line)
        if size >= CHUNK_BYTES:
            yield "".join(lines).encode("ascii")
            lines, size = [], 0
    if lines:
        yield "".join(lines).encode("ascii")


def entries_file(draw: Draw) -> bytes:
    """The entry list as one bytes object: for tests and small draws (export and verify stream)."""
    return b"".join(entries_chunks(draw))


def winners_wanted(draw: Draw) -> int:
    """Copied from the series when the draw starts; before that, what the series says now."""
    return draw.winners_wanted if draw.winners_wanted is not None else draw.series.winners_per_draw


def win_once(draw: Draw) -> str:
    return draw.win_once or draw.series.win_once_scope


def _ref(pick: DrawPick | None) -> dict | None:
    return {"draw": pick.draw_id, "k": pick.k, "pool": pick.pool or None} if pick else None


def _win_in_scope_before(draw: Draw, pick: DrawPick) -> DrawPick | None:
    """The earlier win the engine rested a redraw_won_in_scope on: a winning pick of the same
    member in another draw of the promotion within the draw's win-once scope, decided by the
    time of this pick (draws.engine._win_in_scope, as of the pick), the earliest first."""
    wins = DrawPick.objects.filter(member_id=pick.member_id, outcome__in=WINNING_OUTCOMES).exclude(draw=draw)
    wins = wins.filter(draw__series__promotion_id=draw.series.promotion_id, picked_at__lte=pick.picked_at)
    if win_once(draw) == WinOnceScope.DAY:
        day = timezone.localdate(draw.scheduled_at)
        start = timezone.make_aware(dt.datetime.combine(day, dt.time.min))
        wins = wins.filter(draw__scheduled_at__gte=start, draw__scheduled_at__lt=start + dt.timedelta(days=1))
    elif win_once(draw) != WinOnceScope.PERIOD:
        return None
    return wins.order_by("picked_at", "draw_id", "seq").first()


def pick_refs(draw: Draw, picks: list[DrawPick]) -> dict[int, dict | None]:
    """Each pick's "ref" (DRAWS.md §6), by seq: the earlier pick an automatic redraw rests on."""
    refs: dict[int, dict | None] = {}
    for number, pick in enumerate(picks):
        earlier = [p for p in picks[:number] if p.member_id == pick.member_id]
        if pick.outcome == ALREADY_WINNER:
            refs[pick.seq] = _ref(next((p for p in earlier if p.outcome in WINNING_OUTCOMES), None))
        elif pick.outcome == ALREADY_DRAWN:
            refs[pick.seq] = _ref(earlier[0] if earlier else None)
        elif pick.outcome == WON_IN_SCOPE:
            refs[pick.seq] = _ref(_win_in_scope_before(draw, pick))
        else:
            refs[pick.seq] = None
    return refs


def raps_settings(draw: Draw) -> dict | None:
    """The session's settings as uploaded (DRAWS.md §6 "raps"): null for other draws and
    before the list is uploaded."""
    raps_list = _raps_list(draw) if draw.method == DrawMethod.RAPS else None
    if raps_list is None:
        return None
    left_out = raps_list.left_out or {}
    return {
        "min_spend_cents": raps_list.min_spend_cents,
        "excluded_devices": list(raps_list.excluded_devices),
        "quotas": {"slot": raps_list.slot_quota, "table": raps_list.table_quota},
        "rows_uploaded": raps_list.rows_read,
        "rows_left_out": {
            "below_min_spend": left_out.get("below_min_spend", 0),
            "excluded_device": left_out.get("excluded_device", 0),
            # §6 counts one "ineligible": the session's tier rule and exclusions / under 18.
            "ineligible": left_out.get("tier", 0) + left_out.get("not_eligible", 0),
        },
    }


def _pick(pick: DrawPick, ref: dict | None = None) -> dict:
    return {
        "k": pick.k,
        "pool": pick.pool or None,
        "serial": pick.serial,
        "member_id": pick.member_id,
        "card_number": pick.card_number,
        "outcome": pick.outcome or None,
        "reason": pick.reason,
        "at": _iso(pick.picked_at),
        "by": pick.picked_by,
        "ref": ref,
    }


def _entrants(draw: Draw, member_ids: set[int]) -> set[int]:
    """Which of these members are entrants: they hold tickets in the draw or (RAPS) a row of its
    active-player list. One read for the few registered members, never the whole entry list."""
    if not member_ids:
        return set()
    if draw.method == DrawMethod.RAPS:
        raps_list = _raps_list(draw)
        if raps_list is None:
            return set()
        rows = RapsEntry.objects.filter(raps_list=raps_list, member_id__in=member_ids)
    else:
        rows = draw.activations.filter(member_id__in=member_ids)
    return set(rows.values_list("member_id", flat=True))


def _registration(registration: registers.Registration, *, nomination: bool) -> dict:
    item = {"member_id": registration.member_id, "card_number": registration.card_number}
    if nomination:
        item |= {"nominee_name": registration.nominee_name, "nominee_id_last4": registration.nominee_id_last4}
    return item | {
        "registered_at": _iso(registration.registered_at),
        "registered_by": registration.registered_by,
        "revoked_at": _iso(registration.revoked_at),
        "revoked_by": registration.revoked_by or None,
    }


def registers_section(draw: Draw) -> dict:
    """The draw's nominations and declines, live and revoked, of its entrants only
    (docs/draw-records-registers.md): what a verifier holds declined, proxy_present and
    no_show outcomes to. Registrations of members who never entered say nothing about a pick."""
    found = registers.registrations(draw)
    entrants = _entrants(draw, {r.member_id for r in [*found.proxy, *found.decline]})
    return {
        "proxy": [_registration(r, nomination=True) for r in found.proxy if r.member_id in entrants],
        "decline": [_registration(r, nomination=False) for r in found.decline if r.member_id in entrants],
    }


def draw_record(draw: Draw, picks: list[DrawPick]) -> dict:
    """The record as a dict in §6's key order (the JSON keeps it), then the registers."""
    entries = entries_summary(draw)
    refs = pick_refs(draw, picks)
    return {
        "format": RECORD_FORMAT,
        "software": {"name": SOFTWARE_NAME, "version": draw.software_version or None},
        "draw": {
            "id": draw.pk,
            "name": draw.name,
            "property": draw.property.code,
            "scheduled_at": _iso(draw.scheduled_at),
            "method": draw.method,
            "winners_wanted": winners_wanted(draw),
            "win_once": win_once(draw),
            "status": draw.status,
            "started_at": _iso(draw.started_at),
            "completed_at": _iso(draw.completed_at),
            "ended_short_reason": draw.ended_short_reason,
        },
        "raps": raps_settings(draw),
        "entries": {
            "count": entries.count,
            "tickets_total": entries.tickets_total,
            "sha256": entries.sha256 or None,
            "frozen_at": _iso(entries.frozen_at),
        },
        "seed": {"sha256": draw.seed_sha256 or None, "hex": draw.revealed_seed() or None},
        "picks": [_pick(pick, refs[pick.seq]) for pick in picks],
        "winners": [
            {"member_id": p.member_id, "card_number": p.card_number, "k": p.k, "pool": p.pool or None}
            for p in picks
            if p.outcome in WINNING_OUTCOMES
        ],
        "registers": registers_section(draw),
    }


class RecordFileNames(NamedTuple):
    entries_name: str
    json_name: str


def record_file_names(draw: Draw) -> RecordFileNames:
    return RecordFileNames(entries_name=f"draw-{draw.pk}-entries.csv", json_name=f"draw-{draw.pk}.json")


def _fresh(draw: Draw) -> Draw:
    return Draw.objects.select_related("series", "property").get(pk=draw.pk)


def record_json(draw: Draw) -> bytes:
    """`draw-<id>.json` (DRAWS.md §6 format 2: UTF-8, indent 2, §6's key order, a trailing newline)."""
    draw = _fresh(draw)
    picks = list(draw.picks.order_by("seq"))
    return (json.dumps(draw_record(draw, picks), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def draw_record_files(draw: Draw) -> DrawRecordFiles:
    """Both files as bytes: `draw-<id>-entries.csv` (exactly the bytes hashed into the entry-list
    hash) and `draw-<id>.json`. For tests and small draws; export and verify use record_json
    and entries_chunks, which stream."""
    draw = _fresh(draw)
    names = record_file_names(draw)
    return DrawRecordFiles(
        entries_name=names.entries_name,
        entries=entries_file(draw),
        json_name=names.json_name,
        json=record_json(draw),
    )
