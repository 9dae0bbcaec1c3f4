"""A manager adds, removes and reorders the prizes (slots) of a board (issue 14 item 1): the
same guards as board_save (the manager's property, never while a draw of the series runs, the
board's total still met) and an audit event for each change."""

from django.db import transaction

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import rand_cents
from members.staff import check_staff_property
from prizes.lines import LineKind
from prizes.models import BoardSlot, PrizeBoard
from prizes.services import BOARDS, _check_total, board_edit_refusal
from prizes.vault_jackpots import PINK, WHITE
from promotions.models import DrawSeries


def _locked_board(actor: Actor, board_id: int) -> PrizeBoard:
    board = PrizeBoard.objects.select_for_update().select_related("series", "series__property").get(pk=board_id)
    check_staff_property(actor, board.series.property, **BOARDS)
    refusal = board_edit_refusal(board)
    if refusal:
        raise DomainError(refusal, code="board_in_use")
    return board


def _saved(actor: Actor, board: PrizeBoard, action: str, data: dict) -> None:
    board.updated_by = actor.label
    board.save(update_fields=["updated_by", "updated_at"])
    audit_log(actor=actor, action=action, obj=board, data={"board": str(board), **data})


def board_slot_add(
    *,
    actor: Actor,
    board_id: int,
    label: str,
    kind: str = LineKind.CASH,
    amount_cents: int | None = None,
    target_series: DrawSeries | None = None,
    count: int | None = None,
) -> BoardSlot:
    """A new prize at the end of the board. An amount left empty is a required setting: the
    draw waits for it, like the seed's. A place or entries name a later draw of the promotion."""
    label = label.strip()
    if not label:
        raise DomainError("Name the prize, e.g. Reveal 6.", code="label_required")
    with transaction.atomic():
        board = _locked_board(actor, board_id)
        slots = list(board.slots.all())
        if any(slot.label.lower() == label.lower() for slot in slots):
            raise DomainError(f"The board already has a prize called {label}: name it differently.", code="label_taken")
        if kind in (LineKind.PLACE, LineKind.ENTRIES):
            if target_series is not None and (
                target_series.promotion_id != board.series.promotion_id or target_series.pk == board.series_id
            ):
                raise DomainError("A place or entries are in a later draw of the same promotion.", code="wrong_target")
            amount_cents = 0 if kind == LineKind.PLACE else None  # the loader's shape: a place is worth R0
        else:
            target_series, count = None, None
        slot = BoardSlot(
            board=board,
            position=max((s.position for s in slots), default=0) + 1,
            label=label,
            kind=kind,
            amount_cents=amount_cents,
            target_series=target_series,
            count=count if kind == LineKind.ENTRIES else None,
            rule="added by a manager",
        )
        slot.full_clean()
        _check_total(board, [*slots, slot])
        slot.save()
        _saved(
            actor,
            board,
            "prize.board_slot_added",
            {"slot": label, "position": slot.position, "kind": kind, "value": slot.value_words()},
        )
    return slot


def board_slot_remove(*, actor: Actor, board_id: int, slot_id: int) -> None:
    """Take a prize off the board; the ones after it move up a place."""
    with transaction.atomic():
        board = _locked_board(actor, board_id)
        slots = list(board.slots.all())
        slot = _slot_of(slots, slot_id)
        if len(slots) == 1:
            raise DomainError("A prize board keeps at least one prize.", code="last_slot")
        if slot.group in (PINK, WHITE):
            raise DomainError("The vault's pink and white ball prizes stay on the board.", code="vault_slot")
        rest = [s for s in slots if s.pk != slot.pk]
        try:
            _check_total(board, rest)
        except DomainError as refused:
            raise DomainError(
                f"Without {slot.label} ({slot.value_words()}) the prizes would not add up to the board's total of "
                f"{rand_cents(board.total_cents)}: change the total or the other amounts first.",
                code=refused.code,
            ) from None
        slot.delete()
        for later in rest:  # ascending: each moves into the place just freed
            if later.position > slot.position:
                later.position -= 1
                later.save(update_fields=["position"])
        _saved(
            actor,
            board,
            "prize.board_slot_removed",
            {"slot": slot.label, "position": slot.position, "value": slot.value_words()},
        )


def board_slot_move(*, actor: Actor, board_id: int, slot_id: int, up: bool) -> None:
    """Swap a prize with the one before it (up) or after it."""
    with transaction.atomic():
        board = _locked_board(actor, board_id)
        slots = list(board.slots.order_by("position"))
        slot = _slot_of(slots, slot_id)
        index = slots.index(slot) + (-1 if up else 1)
        if not 0 <= index < len(slots):
            raise DomainError(f"{slot.label} is already {'first' if up else 'last'} on the board.", code="no_move")
        other = slots[index]
        mine, theirs = slot.position, other.position
        slot.position = 0  # a free place: positions are unique on the board and start at 1
        slot.save(update_fields=["position"])
        other.position = mine
        other.save(update_fields=["position"])
        slot.position = theirs
        slot.save(update_fields=["position"])
        _saved(
            actor,
            board,
            "prize.board_slot_moved",
            {"slot": slot.label, "from": mine, "to": theirs, "swapped_with": other.label},
        )


def _slot_of(slots: list[BoardSlot], slot_id: int) -> BoardSlot:
    slot = next((s for s in slots if s.pk == slot_id), None)
    if slot is None:
        raise DomainError("That prize is not on this board (it may have been removed).", code="no_slot")
    return slot
