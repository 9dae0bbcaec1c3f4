"""Boards without a stage game ("By the order of the picks"): the first winner takes the board's
first prize, the second the second, and so on (the Wednesday and Saturday cash draws, the car
draw finalists' places, Royal Flush's month-end bins and finalist draws). Nothing is played on
stage, so nothing is recorded: Finish computes the lines from the winners' order alone, and a
declined winner keeps the prize of their place in that order (PRIZES.md §1)."""

from core.errors import DomainError
from prizes.conducting import Conducted
from prizes.conducting.slots import slot_line
from prizes.lines import GameRefused, LineSpec
from prizes.models import BoardGame, PrizeBoard

NOTHING_TO_RECORD = "Nothing is played on stage for this board: the prizes follow the order of the picks."


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    raise DomainError(NOTHING_TO_RECORD, code="nothing_to_record")


def turn_refusal(events: list[dict], pick) -> str:
    return NOTHING_TO_RECORD


def waiting(events: list[dict], winners: list):
    return None


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    """Winner n (in pick order) → the board's n-th prize; every-winner slots are added by
    prizes.conduct.play_lines. Refused when the board has fewer prizes than the draw has winners."""
    ordered = [s for s in board.slots.all() if not s.every_winner]
    if not ordered:
        return {pick.pk: [] for pick in winners}
    if len(winners) > len(ordered):
        raise GameRefused(
            f"The prize board has {len(ordered)} prize{'s' if len(ordered) != 1 else ''} for {len(winners)} "
            "winners: add the missing prizes to the board, then Finish."
        )
    return {
        pick.pk: [slot_line(slot, order=n)]
        for n, (pick, slot) in enumerate(zip(winners, ordered, strict=False), start=1)
    }


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    return {"by_order": True}


def turn_words(event: dict) -> str:
    return ""


CONDUCTED = Conducted(
    games=frozenset({BoardGame.PLACE}),
    template="prizes/conducting/_by_order.html",
    event_clean=event_clean,
    turn_refusal=turn_refusal,
    waiting=waiting,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
)
