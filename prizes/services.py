"""Every change to prize boards and prize lines: keyword-only, atomic, audited (issue 14).

- board_create: a board with its slots (the seed loader, prizes.seed_boards).
- board_save: a manager fills in or changes a board's amounts, kinds and settings.
- prize_lines_store: what a winner won in a draw, as the stage games compute it (LineSpec).
- prize_line_reverse: a manager's correction: the negative of a line, with the reason.
"""

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import rand_cents
from draws.models import Draw, DrawPick, DrawStatus
from members.models import Tier
from members.staff import check_staff_property
from prizes.boards import slot_total
from prizes.games import best_hand, symbol_boxes
from prizes.lines import LineKind, LineSource, LineSpec
from prizes.models import BOARD_SETTINGS, BoardGame, BoardSlot, PrizeBoard, PrizeLine
from promotions.models import DrawSeries

BOARDS = {"what": "prize boards", "done": "set up"}
PRIZES = {"what": "prizes of draws", "done": "recorded"}


# --- Boards ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SlotDef:
    """One slot as the seed loader (or a test) describes it; amount None = a required setting."""

    label: str
    amount_cents: int | None = None
    kind: str = LineKind.CASH
    group: str = ""
    target_series: DrawSeries | None = None
    count: int | None = None
    every_winner: bool = False
    rule: str = ""


def board_create(
    *,
    actor: Actor,
    series: DrawSeries,
    game: str,
    slots: list[SlotDef],
    tier: Tier | None = None,
    draw_date: dt.date | None = None,
    total_cents: int | None = None,
    settings: dict | None = None,
    notes: str = "",
) -> PrizeBoard:
    with transaction.atomic():
        check_staff_property(actor, series.property, **BOARDS)
        board = PrizeBoard(
            series=series,
            tier=tier,
            draw_date=draw_date,
            game=game,
            total_cents=total_cents,
            settings=settings or {},
            notes=notes,
            updated_by=actor.label,
        )
        board.full_clean()
        board.save()
        made = [
            BoardSlot(
                board=board,
                position=i,
                label=s.label,
                amount_cents=s.amount_cents,
                kind=s.kind,
                group=s.group,
                target_series=s.target_series,
                count=s.count,
                every_winner=s.every_winner,
                rule=s.rule,
            )
            for i, s in enumerate(slots, start=1)
        ]
        BoardSlot.objects.bulk_create(made)
        _check_total(board, made)
        audit_log(
            actor=actor,
            action="prize.board_created",
            obj=board,
            data={"series": series.name, "board": str(board), "game": board.get_game_display(), "slots": len(made)},
        )
    return board


def board_edit_refusal(board: PrizeBoard) -> str | None:
    """A running draw's game reads its board: the board changes before or after, never during."""
    if board.series.draws.filter(status=DrawStatus.RUNNING).exists():
        return "A draw of this series is running: change its prize board once that draw is complete."
    return None


def board_save(
    *,
    actor: Actor,
    board_id: int,
    slots: dict[int, dict],
    settings: dict | None = None,
    total_cents=...,
) -> PrizeBoard:
    """Save a manager's board: `slots` maps a slot's id to its new {"amount_cents", "kind",
    "target_series", "count"} (keys left out stay as they are); `settings` the game's settings
    (prizes.models.SETTINGS; None in a value: not set); `total_cents` the total the money slots
    must add up to (None: none). Refused while a draw of the series runs,
    and when the slots' money passes the board's total, or misses it once every amount is set
    (FL r41, TH r56)."""
    with transaction.atomic():
        board = PrizeBoard.objects.select_for_update().select_related("series", "series__property").get(pk=board_id)
        check_staff_property(actor, board.series.property, **BOARDS)
        refusal = board_edit_refusal(board)
        if refusal:
            raise DomainError(refusal, code="board_in_use")
        changes = {}
        board_slots = list(board.slots.select_related("target_series"))
        for slot in board_slots:
            for field, value in slots.get(slot.pk, {}).items():
                before = getattr(slot, field)
                if before != value:
                    changes[f"{slot.label}: {field.replace('_cents', '')}"] = [_plain(before), _plain(value)]
                    setattr(slot, field, value)
        keys = {spec[0] for spec in board.setting_specs()}
        for key, value in (settings or {}).items():
            if key in keys and board.settings.get(key) != value:
                changes[key] = [_plain(board.setting(key)), _plain(value)]
                if value is None and key not in BOARD_SETTINGS:  # a board's own setting stays, blank
                    board.settings.pop(key, None)
                else:
                    board.settings[key] = value
        if total_cents is not ... and board.total_cents != total_cents:  # ...: left as it is
            changes["total"] = [_plain(board.total_cents), _plain(total_cents)]
            board.total_cents = total_cents
        _check_total(board, board_slots)
        _check_settings(board)
        if not changes:
            return board
        for slot in board_slots:
            slot.full_clean()
        BoardSlot.objects.bulk_update(board_slots, ["amount_cents", "kind", "target_series", "count"])
        board.updated_by = actor.label
        board.save()
        audit_log(actor=actor, action="prize.board_saved", obj=board, data={"board": str(board), "changes": changes})
    return board


def _plain(value):
    if isinstance(value, DrawSeries):
        return value.name
    return value


def _check_settings(board: PrizeBoard) -> None:
    """Settings the game cannot be played with: a Best Hand deck that is not 25 readable cards
    (FL r84, A9); boxes that cannot hide 3 of each bonus symbol and the blanks (TH r106, A19)."""
    refusal = None
    if board.game == BoardGame.BEST_HAND and board.setting("deck") is not None:
        refusal = best_hand.deck_refusal(board.setting("deck"))
    elif board.game == BoardGame.SYMBOL_BOXES:
        refusal = symbol_boxes.boxes_refusal(boxes=board.setting("boxes"), blank_boxes=board.setting("blank_boxes"))
    if refusal:
        raise DomainError(refusal, code="board_settings")


def _check_total(board: PrizeBoard, slots: list[BoardSlot]) -> None:
    if board.total_cents is None:
        return
    money = [s for s in slots if s.kind not in (LineKind.PLACE, LineKind.ENTRIES)]
    total = slot_total(money)
    if total > board.total_cents:
        raise DomainError(
            f"The prizes add up to {rand_cents(total)}, more than the board's total of "
            f"{rand_cents(board.total_cents)}: lower them.",
            code="board_over_total",
        )
    if all(s.amount_cents is not None for s in money) and total != board.total_cents:
        raise DomainError(
            f"The prizes add up to {rand_cents(total)}, not the board's total of {rand_cents(board.total_cents)}: "
            "correct them so they add up.",
            code="board_under_total",
        )


# --- Prize lines -----------------------------------------------------------------------------


def _locked_draw(draw_id: int, actor: Actor) -> Draw:
    draw = Draw.objects.select_for_update(of=("self",)).select_related("property").get(pk=draw_id)
    check_staff_property(actor, draw.property, **PRIZES)
    return draw


def prize_lines_store(*, actor: Actor, draw: Draw, pick: DrawPick, specs: list[LineSpec]) -> list[PrizeLine]:
    """Store what the winner of `pick` won in `draw` (the stage game's LineSpecs), each as a line
    of its own kind and source. Only a winner wins, only once the draw has started; a reversal
    is made by prize_line_reverse only."""
    if not specs:
        raise DomainError("Nothing to record: the game gave no prize.", code="no_prize")
    if any(spec.source == LineSource.REVERSAL for spec in specs):
        raise DomainError("A correction is made from the prize record, with its reason.", code="reversal_here")
    now = timezone.now()
    with transaction.atomic():
        draw = _locked_draw(draw.pk, actor)
        if draw.status not in (DrawStatus.RUNNING, DrawStatus.DRAWN):
            raise DomainError("Prizes are recorded once the draw has started.", code="draw_not_started")
        pick = DrawPick.objects.select_related("member").get(pk=pick.pk)
        if pick.draw_id != draw.pk:
            raise DomainError("That pick is not of this draw.", code="pick_of_other_draw")
        if not pick.is_winner():
            raise DomainError(f"Pick {pick.k} is not a winner: only a winner's prizes are recorded.", code="not_winner")
        lines = PrizeLine.objects.bulk_create(
            PrizeLine(
                draw=draw,
                pick=pick,
                member=pick.member,
                kind=spec.kind,
                amount_cents=spec.amount_cents,
                source=spec.source,
                words=spec.words,
                data=spec.data,
                created_at=now,
                created_by=actor.label,
            )
            for spec in specs
        )
        audit_log(
            actor=actor,
            action="prize.lines_stored",
            obj=draw,
            data={
                "pick": pick.k,
                "card_number": pick.card_number,
                "lines": [{"kind": s.kind, "amount_cents": s.amount_cents, "words": s.words} for s in specs],
            },
        )
    return lines


def prize_line_reverse_refusal(actor: Actor, line: PrizeLine) -> str | None:
    """Why `actor` may not correct `line`, or None (the page's button and the service)."""
    user = actor.user
    if user is None or not user.has_perm("prizes.reverse_prizeline"):
        return "Only a promotions manager corrects a prize line."
    if line.source == LineSource.REVERSAL:
        return "This line is itself a correction: it is not corrected again."
    if PrizeLine.objects.filter(reverses=line).exists():
        return "This line has already been corrected."
    return None


def prize_line_reverse(*, actor: Actor, line_id: int, reason: str) -> PrizeLine:
    """Correct a prize line: a new line of the same winner, kind and draw for the negative
    amount, with the reason; the line itself is never changed (issue 14, item 7)."""
    reason = reason.strip()
    if not reason:
        raise DomainError("Give the reason for the correction: it is kept on the prize record.", code="no_reason")
    user = actor.user
    if user is None or not user.has_perm("prizes.reverse_prizeline"):
        raise DomainError("Only a promotions manager corrects a prize line.", code="reverse_refused")
    with transaction.atomic():
        line = PrizeLine.objects.select_related("draw").get(pk=line_id)
        _locked_draw(line.draw_id, actor)
        refusal = prize_line_reverse_refusal(actor, line)  # re-checked under the draw's lock
        if refusal:
            raise DomainError(refusal, code="reverse_refused")
        reversal = PrizeLine.objects.create(
            draw_id=line.draw_id,
            pick_id=line.pick_id,
            member_id=line.member_id,
            kind=line.kind,
            amount_cents=-line.amount_cents,
            source=LineSource.REVERSAL,
            words=f"Correction of: {line.words}"[:300],
            data={"reverses": line.pk},
            reverses=line,
            reason=reason,
            created_at=timezone.now(),
            created_by=actor.label,
        )
        audit_log(
            actor=actor,
            action="prize.line_reversed",
            obj=line,
            data={"draw": line.draw_id, "words": line.words, "amount_cents": line.amount_cents, "reason": reason},
        )
    return reversal
