"""Finalists and carry-overs (issue 14, item 6; PRIZES.md §1 "Carry-over", A7, A13, A20).

A PLACE or ENTRIES line names a later draw: the next draw of its slot's target series after
the line's own draw (Royal Flush r34.1, A13: "that week's" Saturday cash draw is the one on or
after the bonus session). When that draw's entries freeze, `carried_into` (registered with
draws.entry_sources) gives draws its entrants:
- a finalist draw (its series is the target of a PLACE slot: Fast Lane's and Turn Up the Heat's
  car draws, Royal Flush's Grand Finale) picks only among its places, one entry per finalist;
  so does a draw that earns no tickets of its own and is the target of an ENTRIES slot (Royal
  Flush's month-end finalist draw, r56: the bin winners' receipts, one per bin won);
- ENTRIES lines add their count of tickets to the member's own activations in the target draw
  (Royal Flush r34.1): the member's tickets are their activation plus one carried range.
A line reversed before the freeze carries nothing; the entries, once frozen, never change.

One place per patron per finalist draw (Turn Up the Heat r70): a further qualifying place
becomes that promotion's conversion in cash, a line of the draw where it qualified (A20); a
promotion without a conversion refuses the second place in words. The stage-game service calls
`place_lines_resolve` (or `carry_lines_store`) before add-ons are computed, so a conversion,
being cash, earns the winner's add-ons like any cash prize (example 21: R5,000 + R500).
"""

from dataclasses import replace

from django.db import transaction

from core.audit import Actor
from core.errors import DomainError
from core.formats import local_datetime, rand_cents
from draws.entry_sources import Carried, CarriedEntry
from draws.models import Draw, DrawPick, DrawStatus
from members.models import Member
from prizes.boards import board_for
from prizes.lines import LineKind, LineSource, LineSpec
from prizes.models import BoardSlot, PrizeLine
from promotions.models import PeriodKind

CARRIED_KINDS = (LineKind.PLACE, LineKind.ENTRIES)
# An extra qualifying place, by promotion code: Turn Up the Heat r70 "each additional qualifying
# spot will be converted to R5,000 cash". The other seeds give none: a second place is refused.
CONVERSION_CENTS = {"grc-turn-up-the-heat": 500_000}
CONVERSION_RULE = {"grc-turn-up-the-heat": "TH r70, A20"}


def carry_spec(slot: BoardSlot, *, words: str = "", **data) -> LineSpec:
    """The line of a place or entries slot the winner reached, naming its target series."""
    if slot.kind not in CARRIED_KINDS or slot.target_series_id is None:
        raise ValueError(f"{slot.label} is not a place or entries slot with its later draw set")
    amount = 0 if slot.kind == LineKind.PLACE else int(slot.count or 0)
    return LineSpec(
        LineKind(slot.kind),
        amount,
        LineSource.BOARD,
        words or slot.value_words(),
        {"slot": slot.label, "rule": slot.rule, "target_series": slot.target_series_id, **data},
    )


def target_draw(draw: Draw, series_id: int) -> Draw | None:
    """The next draw of the series after `draw` (not cancelled)."""
    return (
        Draw.objects.filter(series_id=series_id, scheduled_at__gt=draw.scheduled_at)
        .exclude(status=DrawStatus.CANCELLED)
        .order_by("scheduled_at", "pk")
        .first()
    )


def _target_series_id(draw: Draw, member: Member, spec: LineSpec) -> int:
    """The spec's target series, or the one the winner's board names for that kind of line."""
    if spec.data.get("target_series"):
        return int(spec.data["target_series"])
    board = board_for(draw, member.tier)
    targets = {s.target_series_id for s in (board.slots.all() if board else []) if s.kind == spec.kind}
    targets.discard(None)
    if len(targets) != 1:
        raise DomainError(
            f"“{spec.words}” does not say which later draw it is for: set the later draw on the prize board.",
            code="carry_target_unknown",
        )
    return targets.pop()


def _holds_place(member_id: int, target: Draw) -> bool:
    return (
        PrizeLine.objects.filter(
            member_id=member_id, kind=LineKind.PLACE, data__carried_into=target.pk, reversed_by__isnull=True
        )
        .exclude(source=LineSource.REVERSAL)
        .exists()
    )


def place_lines_resolve(*, draw: Draw, pick: DrawPick, specs: list[LineSpec]) -> list[LineSpec]:
    """The specs as they are stored: each place or entries line names the draw it is carried into
    ("carried_into"); a place the member already holds in that draw becomes the promotion's
    conversion (TH r70) or is refused. Refused when no later draw is scheduled or its entries are
    already frozen. Call it inside the storing transaction: the target draws are row-locked so
    a freeze cannot pass between the check and the store."""
    member = Member.objects.select_related("tier").get(pk=pick.member_id)
    promotion_code = draw.series.promotion.code
    resolved: list[LineSpec] = []
    placed: set[int] = set()
    for spec in specs:
        if spec.kind not in CARRIED_KINDS:
            resolved.append(spec)
            continue
        series_id = _target_series_id(draw, member, spec)
        target = target_draw(draw, series_id)
        if target is None:
            raise DomainError(
                f"“{spec.words}”: no later draw of that series is scheduled after {draw.name}. "
                "Schedule it, then record the prize.",
                code="carry_no_later_draw",
            )
        if transaction.get_connection().in_atomic_block:
            target = Draw.objects.select_for_update(of=("self",)).get(pk=target.pk)
        if target.entries_frozen_at is not None or target.status != DrawStatus.SCHEDULED:
            raise DomainError(
                f"“{spec.words}”: the entries of {target.name} were frozen at "
                f"{local_datetime(target.entries_frozen_at or target.started_at)}; it can take no more entrants.",
                code="carry_target_frozen",
            )
        data = {**spec.data, "target_series": series_id, "carried_into": target.pk}
        if spec.kind == LineKind.PLACE and (target.pk in placed or _holds_place(member.pk, target)):
            resolved.append(_conversion(promotion_code, member, target, spec))
            continue
        if spec.kind == LineKind.PLACE:
            placed.add(target.pk)
        resolved.append(replace(spec, words=f"{spec.words} ({target.name})"[:300], data=data))
    return resolved


def _conversion(promotion_code: str, member: Member, target: Draw, spec: LineSpec) -> LineSpec:
    amount = CONVERSION_CENTS.get(promotion_code)
    if amount is None:
        raise DomainError(
            f"{member.full_name} already holds a place in {target.name}: one place per patron.",
            code="place_already_held",
        )
    data = {k: v for k, v in spec.data.items() if k != "carried_into"}
    return LineSpec(
        LineKind.CASH,
        amount,
        LineSource.CONVERSION,
        f"{rand_cents(amount)} cash instead of a second place in {target.name} (one place per patron)",
        {**data, "converted_place_in": target.pk, "rule": CONVERSION_RULE[promotion_code]},
    )


def carry_lines_store(*, actor: Actor, draw: Draw, pick: DrawPick, specs: list[LineSpec]) -> list[PrizeLine]:
    """place_lines_resolve and prize_lines_store in one transaction, the member's row locked so
    two draws storing that member's places at once take turns (one place per patron)."""
    from prizes.services import prize_lines_store

    with transaction.atomic():
        Member.objects.select_for_update().filter(pk=pick.member_id).first()
        resolved = place_lines_resolve(draw=draw, pick=pick, specs=specs)
        return prize_lines_store(actor=actor, draw=draw, pick=pick, specs=resolved)


def _takes_carried_only(draw: Draw) -> bool:
    """A finalist draw: the target of a PLACE slot, or of an ENTRIES slot while it earns no tickets
    of its own (Royal Flush r56: the month-end finalist draw's entries are the bin winners'
    receipts). A draw that earns tickets keeps them and adds the carried ones (RF r34.1)."""
    targeted = set(
        BoardSlot.objects.filter(kind__in=CARRIED_KINDS, target_series_id=draw.series_id).values_list("kind", flat=True)
    )
    if LineKind.PLACE in targeted:
        return True
    return bool(targeted) and draw.series.rule.period_kind == PeriodKind.NONE


def carried_into(draw: Draw) -> Carried | None:
    """The entrants carried into `draw` from its places and entries lines not reversed, in the
    order won (draws.entry_sources); None when nothing is or can be carried into it."""
    only = _takes_carried_only(draw)
    lines = list(
        PrizeLine.objects.filter(kind__in=CARRIED_KINDS, data__carried_into=draw.pk, reversed_by__isnull=True)
        .exclude(source=LineSource.REVERSAL)
        .select_related("draw")
        .order_by("pk")
    )
    if not only and not lines:
        return None
    tickets: dict[int, int] = {}
    why: dict[int, list[dict]] = {}
    placed: set[int] = set()
    for line in lines:
        if line.kind == LineKind.PLACE:
            if line.member_id in placed:
                continue  # one place per patron: one entry, however the lines came to be
            placed.add(line.member_id)
            count = 1
        else:
            count = line.amount_cents
        tickets[line.member_id] = tickets.get(line.member_id, 0) + count
        why.setdefault(line.member_id, []).append(
            {"prize_line": line.pk, "draw": line.draw_id, "draw_name": line.draw.name, "kind": line.kind}
        )
    return Carried(only=only, entries=tuple(CarriedEntry(m, tickets[m], why[m]) for m in tickets))
