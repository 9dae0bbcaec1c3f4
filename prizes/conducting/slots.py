"""Reveals, envelopes, podiums, prize cards and Grand Finale cards: each winner opens one slot
of the board, each slot once a draw; a declined winner gets the slot left over at Finish
(PRIZES.md §1; prizes/games/reveals.py)."""

from collections.abc import Hashable

from core.errors import DomainError
from prizes.conducting import Conducted, first_without_turn, one_turn_each
from prizes.games import reveals
from prizes.lines import LineKind, LineSource, LineSpec
from prizes.models import BoardGame, BoardSlot, PrizeBoard

SLOT_GAMES = {
    BoardGame.REVEAL: reveals.SlotGame.REVEAL,
    BoardGame.ENVELOPE: reveals.SlotGame.ENVELOPE,
    BoardGame.PODIUM: reveals.SlotGame.PODIUM,
    BoardGame.PRIZE_CARD: reveals.SlotGame.PRIZE_CARD,
    BoardGame.FINALE_CARD: reveals.SlotGame.GRAND_FINALE_CARD,
}


def slot_label(board: PrizeBoard, slot: BoardSlot) -> str:
    """The label the stage uses: "3" for the board's "Reveal 3" (the game's noun is said once)."""
    noun = SLOT_GAMES.get(board.game)
    return slot.label.removeprefix(f"{noun.value} ") if noun else slot.label


def slot_amount(slot: BoardSlot) -> int:
    """A slot's amount as a line carries it: the count of an entries slot, else its cents."""
    return (slot.count or 0) if slot.kind == LineKind.ENTRIES else (slot.amount_cents or 0)


def slot_line(slot: BoardSlot, **data) -> LineSpec:
    """The board line of a slot the winner reached as it is (no game changed it); a place or
    entries slot names the later draw's series."""
    data = {"slot": slot.label, "rule": slot.rule, **data}
    if slot.target_series_id:
        data["target_series"] = slot.target_series_id
    return LineSpec(LineKind(slot.kind), slot_amount(slot), LineSource.BOARD, slot.value_words(), data)


def _game_slots(board: PrizeBoard) -> list[BoardSlot]:
    return [s for s in board.slots.all() if not s.every_winner]


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    slot = str(raw.get("slot") or "").strip()
    if not slot:
        raise DomainError("Choose what the winner opened.", code="event_blank")
    return {"slot": slot}


def _declined(pick) -> bool:
    return pick.outcome == "declined"


def waiting(events: list[dict], winners: list):
    return first_without_turn(events, winners, skip=_declined)


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    board_slots = [reveals.Slot(slot_label(board, s), slot_amount(s), LineKind(s.kind)) for s in _game_slots(board)]
    by_pick = {e["pick"]: e for e in events}
    picks = [
        reveals.Pick(p.pk, by_pick[p.pk]["slot"] if p.pk in by_pick else None, declined=_declined(p))
        for p in winners
        if p.pk in by_pick or (final and _declined(p))
    ]
    opened: dict[Hashable, LineSpec] = reveals.open_slots(slots=board_slots, picks=picks, game=SLOT_GAMES[board.game])
    return {pick: [line] for pick, line in opened.items()}


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    opened = {e.get("slot") for e in events}
    return {"choices": [label for s in _game_slots(board) if (label := slot_label(board, s)) not in opened]}


def turn_words(event: dict) -> str:
    return f"opened {event['slot']}"


CONDUCTED = Conducted(
    games=frozenset(SLOT_GAMES),
    template="prizes/conducting/_slots.html",
    event_clean=event_clean,
    turn_refusal=one_turn_each,
    waiting=waiting,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
)
