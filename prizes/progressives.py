"""Progressive jackpots (issue 14, item 5): the only way a progressive changes. Each change is an
append-only ProgressiveEntry naming the draw that caused it, and an audit event, written under
a lock on the progressive's row, so two draws closing at once cannot both read one balance and
both grow (or win) from it.

The amounts come from the progressive (base, increment) or from the caller (a manager's set
amount); the games (prizes/games/) decide who won and what the winner takes in all.
"""

from django.db import transaction

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import local_date, rand_cents
from draws.models import WINNING_OUTCOMES, Draw, DrawPick, DrawStatus
from members.staff import check_staff_property
from prizes.lines import LineKind, LineSource, LineSpec
from prizes.models import Progressive, ProgressiveEntry
from prizes.models import ProgressiveEntryKind as Kind

RUN_PERMISSION = "draws.add_drawpick"  # whoever runs the draw on stage (and the system's tick)
MANAGE_PERMISSION = "prizes.change_progressive"  # a promotions manager: set an amount, reset by hand


def progressive_value(progressive: Progressive) -> int:
    """Its value now: the last entry's balance, the base before any."""
    last = progressive.entries.order_by("-pk").values_list("balance_cents", flat=True).first()
    return progressive.base_cents if last is None else last


def _lock(progressive_id: int) -> Progressive:
    """The progressive's row, locked until the transaction ends: the next writer waits and then
    reads the balance this one leaves."""
    return Progressive.objects.select_for_update().get(pk=progressive_id)


def _require(actor: Actor, permission: str, words: str) -> None:
    if actor.user is not None and not actor.user.has_perm(permission):
        raise DomainError(words, code="not_allowed")


def _append(
    actor: Actor, progressive: Progressive, draw: Draw, kind: str, change: int, words: str, pick=None, data=None
) -> ProgressiveEntry:
    balance = progressive_value(progressive) + change
    entry = ProgressiveEntry.objects.create(
        progressive=progressive,
        draw=draw,
        pick=pick,
        kind=kind,
        change_cents=change,
        balance_cents=balance,
        words=words,
        data=data or {},
        created_by=actor.label,
    )
    audit_log(
        actor=actor,
        action=f"progressive.{kind}",
        obj=progressive,
        data={
            "entry": entry.pk,
            "draw": draw.pk,
            "pick": pick.pk if pick else None,
            "change_cents": change,
            "balance_cents": balance,
            "words": words,
            **(data or {}),
        },
    )
    return entry


def _of_series(progressive: Progressive, draw: Draw) -> None:
    if draw.series_id != progressive.series_id:
        raise DomainError(f"{draw.name} is not a draw of {progressive.name}.", code="wrong_draw")


def _not_shared_out(progressive: Progressive) -> None:
    if progressive.entries.filter(kind=Kind.SHARE_OUT).exists():
        raise DomainError(f"{progressive.name} has been shared out: it does not change any more.", code="shared_out")


def progressive_grow(*, actor: Actor, draw_id: int) -> list[ProgressiveEntry]:
    """The draw has closed: each progressive of its series that grows (increment above 0) and was
    not won in it grows by its increment (TH r126, A17: +R20,000 per Saturday 9pm draw closing
    uncracked, attempted or not; FL r107, A11: increment 0 by default, so it does not grow).
    Once per draw: asked again, it changes nothing."""
    _require(actor, RUN_PERMISSION, "Only whoever runs the draw can close it.")
    with transaction.atomic():
        draw = Draw.objects.select_related("series").get(pk=draw_id)
        if draw.status != DrawStatus.DRAWN:
            raise DomainError(
                f"{draw.name} has not finished: a jackpot grows only when its draw has closed.", code="draw_not_closed"
            )
        grown = []
        ids = Progressive.objects.filter(series_id=draw.series_id, increment_cents__gt=0).order_by("pk")
        for progressive_id in ids.values_list("pk", flat=True):
            progressive = _lock(progressive_id)
            entries = progressive.entries.filter(draw=draw)
            if (
                entries.filter(kind__in=[Kind.GROW, Kind.WON]).exists()
                or progressive.entries.filter(kind=Kind.SHARE_OUT).exists()
            ):
                continue
            after = progressive_value(progressive) + progressive.increment_cents
            grown.append(
                _append(
                    actor,
                    progressive,
                    draw,
                    Kind.GROW,
                    progressive.increment_cents,
                    f"{progressive.name} not won at {draw.name}: up {rand_cents(progressive.increment_cents)} "
                    f"to {rand_cents(after)}",
                )
            )
        return grown


def progressive_win(*, actor: Actor, progressive_id: int, pick_id: int) -> ProgressiveEntry:
    """The winner of this pick won the progressive (TH: cracked the safe; FL: the die's progressive
    reveal; GH: the pink ball): he takes its whole value, and it goes back to base (TH A17, FL A11).
    One win a draw (TH A17). The `won` entry's -change is what he takes: `jackpot_line(entry)`."""
    _require(actor, RUN_PERMISSION, "Only whoever runs the draw can record a jackpot won.")
    with transaction.atomic():
        progressive = _lock(progressive_id)
        pick = DrawPick.objects.select_related("draw", "member").get(pk=pick_id)
        draw = pick.draw
        _of_series(progressive, draw)
        _not_shared_out(progressive)
        if pick.outcome not in WINNING_OUTCOMES:
            raise DomainError(
                f"Pick {pick.k} of {draw.name} is not a winner: record the winner first.", code="not_winner"
            )
        if draw.status not in (DrawStatus.RUNNING, DrawStatus.DRAWN):
            raise DomainError(f"{draw.name} is not running: a jackpot is won on stage.", code="not_running")
        earlier = progressive.entries.filter(draw=draw, kind=Kind.WON).first()
        if earlier is not None:
            raise DomainError(f"{progressive.name} was already won at {draw.name}: once a draw.", code="won_already")
        if progressive.entries.filter(draw=draw, kind=Kind.GROW).exists():
            raise DomainError(f"{progressive.name} already grew after {draw.name} closed.", code="grown_already")
        value = progressive_value(progressive)
        if value <= 0:
            raise DomainError(
                f"{progressive.name} has no amount for {draw.name}: a promotions manager sets it first.",
                code="no_amount",
            )
        won = _append(
            actor,
            progressive,
            draw,
            Kind.WON,
            -value,
            f"{progressive.name} won at {draw.name} by card {pick.card_number} (pick {pick.k}): {rand_cents(value)}",
            pick=pick,
        )
        _reset(actor, progressive, draw, "after the win")
        return won


def _reset(actor: Actor, progressive: Progressive, draw: Draw, why: str) -> ProgressiveEntry | None:
    change = progressive.base_cents - progressive_value(progressive)
    if change == 0:
        return None
    return _append(
        actor,
        progressive,
        draw,
        Kind.RESET,
        change,
        f"{progressive.name} back to its base {rand_cents(progressive.base_cents)} {why}",
        data={"reason": why},
    )


def progressive_reset(*, actor: Actor, progressive_id: int, draw_id: int, reason: str) -> ProgressiveEntry | None:
    """A manager puts the progressive back to its base, with a reason (a win does it by itself)."""
    _require(actor, MANAGE_PERMISSION, "Only a promotions manager can put a jackpot back to its base.")
    if not reason.strip():
        raise DomainError("Say why the jackpot goes back to its base.", code="no_reason")
    with transaction.atomic():
        progressive = _lock(progressive_id)
        draw = Draw.objects.select_related("property").get(pk=draw_id)
        check_staff_property(actor, draw.property, what="jackpots", done="set")
        _of_series(progressive, draw)
        _not_shared_out(progressive)
        return _reset(actor, progressive, draw, f"by hand: {reason.strip()}")


def progressive_set(*, actor: Actor, progressive_id: int, draw_id: int, amount_cents: int) -> ProgressiveEntry:
    """A manager sets the jackpot for one draw (GH r9, A4: the vault's jackpot per tier per date,
    "set on that day"; no growth rule), before the draw is run."""
    _require(actor, MANAGE_PERMISSION, "Only a promotions manager can set a jackpot's amount.")
    if not isinstance(amount_cents, int) or amount_cents <= 0:
        raise DomainError("Type the jackpot's amount in rand, above R0.", code="invalid_amount")
    with transaction.atomic():
        progressive = _lock(progressive_id)
        draw = Draw.objects.select_related("property").get(pk=draw_id)
        check_staff_property(actor, draw.property, what="jackpots", done="set")
        _of_series(progressive, draw)
        _not_shared_out(progressive)
        if progressive.increment_cents:
            raise DomainError(
                f"{progressive.name} grows by its rule: its amount is not set by hand.", code="grows_by_rule"
            )
        if draw.status not in (DrawStatus.SCHEDULED, DrawStatus.CLOSED):
            raise DomainError(f"{draw.name} has started: the jackpot is set before the draw.", code="too_late")
        change = amount_cents - progressive_value(progressive)
        return _append(
            actor,
            progressive,
            draw,
            Kind.SET,
            change,
            f"{progressive.name} set to {rand_cents(amount_cents)} for {draw.name} on {local_date(draw.scheduled_at)}",
        )


def progressive_share_out(*, actor: Actor, draw_id: int, pick_ids: list[int]) -> ProgressiveEntry:
    """TH r135-141: on 20 December 21h30, if the safe was never cracked, its value is shared
    equally among the draw's winners (A18: the 20 December 9pm growth included). A cent that does
    not divide stays in the safe. Refused if it was ever won ("Throughout", A17)."""
    _require(actor, RUN_PERMISSION, "Only whoever runs the draw can share the jackpot out.")
    with transaction.atomic():
        draw = Draw.objects.get(pk=draw_id)
        found = Progressive.objects.filter(share_series_id=draw.series_id).values_list("pk", flat=True).first()
        if found is None:
            raise DomainError(f"{draw.name} shares out no jackpot.", code="wrong_draw")
        progressive = _lock(found)
        _not_shared_out(progressive)
        cracked = progressive.entries.filter(kind=Kind.WON).select_related("draw").first()
        if cracked is not None:
            raise DomainError(
                f"{progressive.name} was won at {cracked.draw.name}: there is no share-out (TH r135).",
                code="won_already",
            )
        picks = list(DrawPick.objects.filter(pk__in=pick_ids, draw=draw).order_by("seq"))
        if len(picks) != len(set(pick_ids)) or not picks:
            raise DomainError(f"Name the winners of {draw.name} to share {progressive.name} among.", code="no_sharers")
        if any(pick.outcome not in WINNING_OUTCOMES for pick in picks):
            raise DomainError("Only the draw's winners share the jackpot: record each winner first.", code="not_winner")
        value = progressive_value(progressive)
        each = value // len(picks)
        return _append(
            actor,
            progressive,
            draw,
            Kind.SHARE_OUT,
            -each * len(picks),
            f"{progressive.name} {rand_cents(value)} shared among {len(picks)} winners of {draw.name}: "
            f"{rand_cents(each)} each",
            data={"each_cents": each, "picks": [pick.pk for pick in picks]},
        )


def jackpot_line(entry: ProgressiveEntry) -> LineSpec:
    """The prize line of a `won` entry: what the winner takes from the progressive."""
    assert entry.kind == Kind.WON
    return LineSpec(
        LineKind.CASH,
        -entry.change_cents,
        LineSource.JACKPOT,
        f"{entry.progressive.name}: {rand_cents(-entry.change_cents)}",
        {"progressive": entry.progressive.code, "entry": entry.pk},
    )


def share_out_lines(entry: ProgressiveEntry) -> dict[int, LineSpec]:
    """Each sharing pick's prize line of a `share_out` entry, by pick id."""
    assert entry.kind == Kind.SHARE_OUT
    each = entry.data["each_cents"]
    words = f"Share of {entry.progressive.name}: {rand_cents(each)}"
    return {
        pick_id: LineSpec(
            LineKind.CASH, each, LineSource.SHARE_OUT, words, {"progressive": entry.progressive.code, "entry": entry.pk}
        )
        for pick_id in entry.data["picks"]
    }
