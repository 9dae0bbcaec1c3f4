"""The first turn of the games a winner plays alone after a podium (Roulette-Xtra, FL r90; the
safe, TH r123-r124): a card or a randomiser opens one of the board's podiums, each podium once a
draw (prizes/games/reveals.py). A declined winner gets the podium left over and plays no more
(PRIZES.md §1: no optional gamble)."""

from core.errors import DomainError
from prizes.games import reveals
from prizes.lines import GameRefused, LineSpec
from prizes.models import BoardSlot, PrizeBoard

PODIUM = reveals.SlotGame.PODIUM


def declined(pick) -> bool:
    return pick.outcome == "declined"


def podium_label(slot: BoardSlot) -> str:
    """ "3" for the board's "Podium 3": the stage says the noun once."""
    return slot.label.removeprefix(f"{PODIUM.value} ")


def podium_slots(board: PrizeBoard) -> list[BoardSlot]:
    return [s for s in board.slots.all() if not s.every_winner]


def podium_clean(raw: dict) -> dict | None:
    """The podium opened, when the POST is one; None when it is another event of the game."""
    slot = str(raw.get("slot") or "").strip()
    return {"slot": slot} if slot else None


def podium_choices(board: PrizeBoard, events: list[dict]) -> list[str]:
    opened = {e["slot"] for e in events if "slot" in e}
    return [label for s in podium_slots(board) if (label := podium_label(s)) not in opened]


def events_of(events: list[dict], pick) -> list[dict]:
    return [e for e in events if e.get("pick") == pick.pk]


def podiums(board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, LineSpec]:
    """Each winner's podium line by pick id (GameRefused: a podium opened twice, a turn played
    before the podium, a declined winner who plays on)."""
    opened: dict[int, str] = {}
    for pick in winners:
        mine = events_of(events, pick)
        if not mine:
            continue
        if "slot" not in mine[0]:
            raise GameRefused(f"Record the podium pick {pick.k} opened first: the game is played from it.")
        if any("slot" in e for e in mine[1:]):
            raise GameRefused(f"Pick {pick.k} opened a podium already: one podium a winner.")
        if declined(pick) and len(mine) > 1:
            raise GameRefused(f"Pick {pick.k} declined: a declined winner takes the podium and plays no more.")
        opened[pick.pk] = mine[0]["slot"]
    slots = [reveals.Slot(podium_label(s), s.amount_cents or 0, s.kind) for s in podium_slots(board)]
    picks = [
        reveals.Pick(p.pk, opened.get(p.pk), declined=declined(p))
        for p in winners
        if p.pk in opened or (final and declined(p))
    ]
    return reveals.open_slots(slots=slots, picks=picks, game=PODIUM)


def blank(words: str) -> DomainError:
    return DomainError(words, code="event_blank")
