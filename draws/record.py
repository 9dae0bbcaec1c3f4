"""The exported record of a draw: the two files of DRAWS.md §6, byte for byte.

`manage.py export_draw_record`, the record page's downloads and `verify_draw` all take their
bytes from draw_record_files(), so what an auditor downloads is exactly what we verify.
"""

import datetime as dt
import json
from typing import NamedTuple

from django.utils import timezone

from draws.models import WINNING_OUTCOMES, Draw, DrawPick, RapsList
from draws.services import canonical_entries
from promotions.models import DrawMethod


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


def entries_file(draw: Draw) -> bytes:
    """Exactly the bytes hashed into the entry-list hash (empty before the entries are frozen)."""
    if draw.method == DrawMethod.RAPS:
        raps_list = _raps_list(draw)
        return raps_list.canonical.encode("utf-8") if raps_list else b""
    return canonical_entries(draw) if draw.entries_frozen_at else b""


def winners_wanted(draw: Draw) -> int:
    """Copied from the series when the draw starts; before that, what the series says now."""
    return draw.winners_wanted if draw.winners_wanted is not None else draw.series.winners_per_draw


def win_once(draw: Draw) -> str:
    return draw.win_once or draw.series.win_once_scope


def _pick(pick: DrawPick) -> dict:
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
    }


def draw_record(draw: Draw, picks: list[DrawPick]) -> dict:
    """The record as a dict in §6's key order (the JSON keeps it)."""
    entries = entries_summary(draw)
    return {
        "draw": {
            "id": draw.pk,
            "name": draw.name,
            "property": draw.property.code,
            "scheduled_at": _iso(draw.scheduled_at),
            "method": draw.method,
            "winners_wanted": winners_wanted(draw),
            "win_once": win_once(draw),
        },
        "entries": {
            "count": entries.count,
            "tickets_total": entries.tickets_total,
            "sha256": entries.sha256 or None,
            "frozen_at": _iso(entries.frozen_at),
        },
        "seed": {"sha256": draw.seed_sha256 or None, "hex": draw.revealed_seed() or None},
        "picks": [_pick(pick) for pick in picks],
        "winners": [
            {"member_id": p.member_id, "card_number": p.card_number, "k": p.k}
            for p in picks
            if p.outcome in WINNING_OUTCOMES
        ],
    }


class RecordFileNames(NamedTuple):
    entries_name: str
    json_name: str


def record_file_names(draw: Draw) -> RecordFileNames:
    return RecordFileNames(entries_name=f"draw-{draw.pk}-entries.csv", json_name=f"draw-{draw.pk}.json")


def draw_record_files(draw: Draw) -> DrawRecordFiles:
    """`draw-<id>-entries.csv` (exactly the bytes hashed into the entry-list hash) and
    `draw-<id>.json` (DRAWS.md §6: UTF-8, indent 2, §6's key order, a trailing newline)."""
    draw = Draw.objects.select_related("series", "property").get(pk=draw.pk)
    picks = list(draw.picks.order_by("seq"))
    text = json.dumps(draw_record(draw, picks), indent=2, ensure_ascii=False) + "\n"
    names = record_file_names(draw)
    return DrawRecordFiles(
        entries_name=names.entries_name,
        entries=entries_file(draw),
        json_name=names.json_name,
        json=text.encode("utf-8"),
    )
