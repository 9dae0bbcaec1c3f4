"""Draw records for the record tests, made without the draw engine: real activations, a real
close (draw_close_window), then picks inserted as DRAWS.md §2-§3 say (serials from
electronic_serial / raps_row, owners by the range lookup, an already-winner redrawn)."""

import datetime as dt
import hashlib
import json

from core.audit import Actor
from draws.models import WINNING_OUTCOMES, Activation, Channel, Draw, DrawPick, DrawStatus, PickOutcome, RapsList
from draws.selection import electronic_serial, raps_row
from draws.services import activation_create, draw_close_window
from draws.tests.factories import make_draw
from members.models import Member
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.models import DrawMethod
from promotions.tests.factories import make_series

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)  # a Wednesday 13h00 draw, tickets 08:00-12:55
CONDUCTOR = "manager.mokoena"
WITNESS = "Adv. Lindiwe Khumalo"
SOFTWARE = "0123456789abcdef0123456789abcdef01234567"  # the commit stored at the start
PRESENT = PickOutcome.PRESENT


def at(hh: int, mm: int, ss: int = 0) -> dt.datetime:
    return dt.datetime(2025, 10, 15, hh, mm, ss, tzinfo=SAST)


def closed_draw(reference_data, points=(550, 300, 1200, 800, 400, 250), *, method=DrawMethod.ELECTRONIC, winners=3):
    """A draw whose members activated 100 points per ticket at the eHost, frozen at 12:55.
    Member i has card 40000000i+1, first name Naledi and surname Mokoena-i+1."""
    series = make_series(period_kind="days_before", period_days=7, points_per_ticket=100)
    series.method = method
    series.winners_per_draw = winners
    series.save()
    draw = make_draw(series, DRAW_AT)
    for number, amount in enumerate(points, 1):
        member = MemberFactory(
            tier=reference_data["tiers"]["QUEEN"],
            card_number=f"40000000{number:02d}",
            first_name="Naledi",
            last_name=f"Mokoena-{number}",
        )
        PointsEntryFactory(member=member, points=amount, earned_at=DRAW_AT - dt.timedelta(days=2))
        activation_create(
            actor=Actor.system("test"),
            draw_id=draw.pk,
            card_number=member.card_number,
            channel=Channel.EHOST,
            now=at(9, number),
        )
    assert draw_close_window(draw_id=draw.pk, now=at(12, 55))
    draw.refresh_from_db()
    return draw


def start(draw: Draw, *, witness: str = WITNESS) -> Draw:
    """What the engine copies onto the draw when it starts."""
    Draw.objects.filter(pk=draw.pk).update(
        status=DrawStatus.RUNNING,
        started_at=at(13, 0),
        started_by=CONDUCTOR,
        witness_name=witness,
        winners_wanted=draw.series.winners_per_draw,
        win_once=draw.series.win_once_scope,
        software_version=SOFTWARE,
    )
    draw.refresh_from_db()
    return draw


def complete(draw: Draw, *, ended_short: str = "") -> Draw:
    Draw.objects.filter(pk=draw.pk).update(
        status=DrawStatus.DRAWN, completed_at=at(13, 30), ended_short_reason=ended_short
    )
    draw.refresh_from_db()
    return draw


def owner_of(draw: Draw, serial: int) -> Member:
    activation = (
        Activation.objects.select_related("member")
        .filter(draw=draw, first_serial__lte=serial)
        .order_by("-first_serial")
        .first()
    )
    assert activation.last_serial >= serial
    return activation.member


def _insert(draw: Draw, *, seq: int, k: int, serial: int, member: Member, outcome: str, reason: str, pool: str = ""):
    picked_at = at(13, 0) + dt.timedelta(minutes=seq)
    return DrawPick.objects.create(
        draw=draw,
        seq=seq,
        pool=pool,
        k=k,
        serial=serial,
        member=member,
        card_number=member.card_number,
        picked_at=picked_at,
        picked_by=CONDUCTOR,
        outcome=outcome or "",
        reason=reason,
        outcome_at=picked_at + dt.timedelta(seconds=90) if outcome else None,
        outcome_by=CONDUCTOR if outcome else "",
    )


def _stage(item) -> tuple[str, str]:
    return item if isinstance(item, tuple) else (item, "")


def electronic_picks(draw: Draw, stage: list, *, limit: int = 100) -> list[DrawPick]:
    """Picks k = 1, 2, ... by §2 until every stage outcome is used: a member who already won is
    redrawn at once (redraw_already_winner, no stage outcome used); the others get the next
    stage outcome, a string or (outcome, reason); None leaves the last pick awaiting its outcome.
    Stops after `limit` picks (a draw whose only entrant has won redraws for ever)."""
    seed = bytes.fromhex(draw.seed_hex)
    won: set[int] = set()
    picks: list[DrawPick] = []
    remaining = [_stage(item) for item in stage]
    while remaining and len(picks) < limit:
        k = len(picks) + 1
        serial = electronic_serial(seed=seed, entries_sha256=draw.entries_sha256, k=k, tickets_total=draw.tickets_total)
        member = owner_of(draw, serial)
        if member.pk in won:
            outcome, reason = PickOutcome.REDRAW_ALREADY_WINNER, ""
        else:
            outcome, reason = remaining.pop(0)
        if outcome in WINNING_OUTCOMES:
            won.add(member.pk)
        picks.append(_insert(draw, seq=k, k=k, serial=serial, member=member, outcome=outcome, reason=reason))
    return picks


def manual_picks(draw: Draw, keyed: list[tuple[int, str]]) -> list[DrawPick]:
    """Serials keyed from the bin, each with its outcome."""
    return [
        _insert(draw, seq=k, k=k, serial=serial, member=owner_of(draw, serial), outcome=outcome, reason="")
        for k, (serial, outcome) in enumerate(keyed, 1)
    ]


def raps_picks(draw: Draw, raps_list: RapsList, plan: list[tuple[str, str]]) -> list[DrawPick]:
    """RAPS picks by §5 (k counts per pool), `plan` a list of (pool, stage outcome): a player who
    already won this session is redrawn at once, as in electronic_picks."""
    seed = bytes.fromhex(draw.seed_hex)
    entries = {pool: list(raps_list.entries.filter(pool=pool).select_related("member")) for pool in ("slot", "table")}
    next_k = {"slot": 1, "table": 1}
    won: set[int] = set()
    picks: list[DrawPick] = []
    for pool, stage_outcome in plan:
        outcome = None
        while outcome != stage_outcome:
            k = next_k[pool]
            next_k[pool] += 1
            row = raps_row(seed=seed, list_sha256=raps_list.list_sha256, pool=pool, k=k, pool_size=len(entries[pool]))
            member = entries[pool][row - 1].member
            outcome = PickOutcome.REDRAW_ALREADY_WINNER if member.pk in won else stage_outcome
            if outcome in WINNING_OUTCOMES:
                won.add(member.pk)
            seq = len(picks) + 1
            picks.append(_insert(draw, seq=seq, k=k, serial=row, member=member, outcome=outcome, reason="", pool=pool))
    return picks


def edit(record_json: bytes, change) -> bytes:
    """The record with `change(record)` applied, written back as the export writes it."""
    record = json.loads(record_json)
    change(record)
    return (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
