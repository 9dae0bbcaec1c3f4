"""Turn Up the Heat's 21h30 share-out of Saturday 20 December 2025 (TH r135-r141, A18; PRIZES.md
§5 example 17): if the digit safe was never cracked, the draw's five winners (r138) share its
money equally. Nothing happens on stage but the draw itself: no events, and Finish pays each
winner his share (a SHARE_OUT line) and records the progressive's share-out entry
(prizes.progressives.progressive_share_out), in Finish's transaction.

A18: the share includes the increment of 20 December's own 9pm draw, so Finish waits until that
draw's game is finished (the safe has grown). r135 "only if never cracked": a cracked safe
refuses the draw's Start (`share_out_start_refusal`, registered in prizes.apps) and its Finish.
"""

import datetime as dt

from django.utils import timezone

from core.errors import DomainError
from core.formats import rand_cents
from draws.models import Draw, DrawStatus
from prizes.conducting import Conducted
from prizes.lines import GameRefused, LineKind, LineSource, LineSpec
from prizes.models import BoardGame, PrizeBoard, Progressive
from prizes.models import ProgressiveEntryKind as Kind
from prizes.progressives import progressive_share_out, progressive_value


def shared_progressive(draw: Draw) -> Progressive | None:
    """The jackpot this draw shares out (TH: the digit safe), if any."""
    return Progressive.objects.filter(share_series_id=draw.series_id).order_by("pk").first()


def _cracked_words(progressive: Progressive) -> str | None:
    won = progressive.entries.filter(kind=Kind.WON).select_related("draw").order_by("pk").first()
    if won is None:
        return None
    return (
        f'{progressive.name} was cracked at {won.draw.name}: there is no share-out (TH r135 "only if never cracked").'
    )


def share_out_start_refusal(draw: Draw) -> str | None:
    """The share-out draw does not start once the safe was cracked (r135): cancel it instead."""
    progressive = shared_progressive(draw)
    words = progressive and _cracked_words(progressive)
    return f"{words} Cancel this draw." if words else None


def _unfinished_same_day(progressive: Progressive, draw: Draw) -> Draw | None:
    """The safe's draw earlier the same day (20 Dec 9pm) that has not grown it or paid it yet (A18)."""
    day = timezone.localdate(draw.scheduled_at)
    start = timezone.make_aware(dt.datetime.combine(day, dt.time.min))
    earlier = Draw.objects.filter(
        series_id=progressive.series_id, scheduled_at__gte=start, scheduled_at__lt=draw.scheduled_at
    ).exclude(status=DrawStatus.CANCELLED)
    for other in earlier.order_by("scheduled_at"):
        if not progressive.entries.filter(draw=other, kind__in=[Kind.GROW, Kind.WON]).exists():
            return other
    return None


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    raise DomainError("Nothing is played on stage for the share-out: press Finish.", code="nothing_to_record")


def turn_refusal(events: list[dict], pick) -> str | None:
    return "Nothing is played on stage for the share-out: Finish shares the safe among the winners."


def waiting(events: list[dict], winners: list):
    return None


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    """Each winner's equal share of the safe as it stands (a cent that does not divide stays in
    it, as progressive_share_out keeps it); refused when there is nothing to share."""
    progressive = shared_progressive(draw)
    if progressive is None:
        raise GameRefused(f"{draw.name} shares out no jackpot: it has no progressive to share.")
    if words := _cracked_words(progressive):
        raise GameRefused(words)
    if progressive.entries.filter(kind=Kind.SHARE_OUT).exists():
        raise GameRefused(f"{progressive.name} has been shared out already.")
    if earlier := _unfinished_same_day(progressive, draw):
        raise GameRefused(
            f"Finish {earlier.name} first: its R20,000 goes into {progressive.name} before the share-out (TH A18)."
        )
    if not winners:
        return {}
    value = progressive_value(progressive)
    each = value // len(winners)
    words = (
        f"Share of {progressive.name}: {rand_cents(each)} (one of {len(winners)} equal shares of {rand_cents(value)})"
    )
    data = {"progressive": progressive.code, "pot_cents": value}
    return {pick.pk: [LineSpec(LineKind.CASH, each, LineSource.SHARE_OUT, words, data)] for pick in winners}


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    return {}


def turn_words(event: dict) -> str:
    return ""


def after_finish(actor, draw, board: PrizeBoard, events: list[dict]) -> None:
    """The safe pays what the lines just stored say: its share-out entry, under its lock. The draw
    is locked, so only a concurrent change of the safe itself could make the two differ: then
    Finish is undone rather than pay one amount and record another."""
    stored = list(draw.prize_lines.filter(source=LineSource.SHARE_OUT).order_by("pick__seq"))
    entry = progressive_share_out(actor=actor, draw_id=draw.pk, pick_ids=[line.pick_id for line in stored])
    if any(line.amount_cents != entry.data["each_cents"] for line in stored):
        raise DomainError(
            f"{entry.progressive.name} changed while the share-out was finished: finish it again.",
            code="progressive_changed",
        )


CONDUCTED = Conducted(
    games=frozenset({BoardGame.SHARE_OUT}),
    template="prizes/conducting/_share_out.html",
    event_clean=event_clean,
    turn_refusal=turn_refusal,
    waiting=waiting,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
    after_finish=after_finish,
)
