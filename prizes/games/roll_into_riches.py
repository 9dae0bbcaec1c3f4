"""Fast Lane to Fortune, Saturday 9pm Roll into Riches (FL r95-r108, PRIZES.md A11).

Each winner, one by one (r102), chooses a randomiser that gives one of five reveals (r98, r103;
their amounts are the board's setting). They keep it, or forfeit it (r104-r105) and roll the die
once (r106, A11: one roll) — the die names a zone of the 20-reveal board (r108) and the winner
opens one reveal of that zone: that reveal is the prize. Every winner plays the full board (A11).

r108 is printed as an "Example": it is the editable default here (`DEFAULT_BOARD`), its amounts
in the listed order. Behind reveal 19 is the R20,000 progressive jackpot (r107): its current
value is an input; winning it gives a jackpot line and tells the caller to reset it to its base
(A11; the stored progressive is another module's). Reveal 20 is the R25,000 Bonus Reveal.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from core.formats import rand_cents
from prizes.lines import GameRefused, LineKind, LineSource, LineSpec

FIRST_REVEALS = 5  # r98: "they will win from 5 reveals"
DIE = range(1, 7)
MAX_ROLLS = 1  # A11


@dataclass(frozen=True)
class Reveal:
    number: int
    amount_cents: int
    progressive: bool = False  # its amount is the progressive's base; the prize is its value now
    bonus: bool = False


@dataclass(frozen=True)
class Zone:
    die: int
    reveals: tuple[Reveal, ...]


def _zone(die: int, first: int, *amounts_rand: int, progressive: int | None = None, bonus: int | None = None) -> Zone:
    return Zone(
        die,
        tuple(
            Reveal(number, rand * 100, progressive=number == progressive, bonus=number == bonus)
            for number, rand in enumerate(amounts_rand, start=first)
        ),
    )


# FL r108, "20 Reveals Split Into 6 Dice Zones", amounts in the order listed.
DEFAULT_BOARD: tuple[Zone, ...] = (
    _zone(1, 1, 2_000, 5_000, 8_000),
    _zone(2, 4, 5_000, 8_000, 10_000),
    _zone(3, 7, 8_000, 10_000, 12_000, 15_000),
    _zone(4, 11, 10_000, 12_000, 15_000, 18_000),
    _zone(5, 15, 12_000, 15_000, 18_000),
    _zone(6, 18, 15_000, 20_000, 25_000, progressive=19, bonus=20),  # r107
)


@dataclass(frozen=True)
class Play:
    """What the conductor recorded for one winner."""

    randomiser: int  # 1-5: which of the five first reveals
    rolls: tuple[int, ...] = ()  # the die; empty: the winner kept the first reveal
    reveal: int | None = None  # the reveal opened in the rolled zone


@dataclass(frozen=True)
class Outcome:
    lines: tuple[LineSpec, ...]
    reset_progressive: bool  # the progressive was won: back to its base for the next winner (A11)


def board_refusal(board: Sequence[Zone]) -> str | None:
    """Why a board is not a Roll into Riches board, or None: one zone per face of the die,
    each reveal number once, positive amounts, one progressive at most."""
    if sorted(zone.die for zone in board) != list(DIE):
        return "The board needs one zone for each face of the die, 1 to 6."
    reveals = [reveal for zone in board for reveal in zone.reveals]
    if not all(zone.reveals for zone in board):
        return "Every zone of the board needs at least one reveal."
    numbers = [reveal.number for reveal in reveals]
    if len(set(numbers)) != len(numbers):
        return "Each reveal number appears once on the board."
    if any(reveal.amount_cents <= 0 for reveal in reveals):
        return "Every reveal of the board needs an amount."
    if sum(reveal.progressive for reveal in reveals) > 1:
        return "Only one reveal of the board hides the progressive jackpot."
    return None


def play_refusal(*, play: Play, board: Sequence[Zone] = DEFAULT_BOARD) -> str | None:
    """Why `play` cannot have happened, or None (the stage page and `roll_into_riches` ask the
    same). An unfinished play (rolled, no reveal yet) is not refused here."""
    if play.randomiser not in range(1, FIRST_REVEALS + 1):
        return f"There are {FIRST_REVEALS} randomisers, 1 to {FIRST_REVEALS}; not {play.randomiser}."
    if len(play.rolls) > MAX_ROLLS:
        return "The die is rolled once: a second roll is not allowed."
    for die in play.rolls:
        if die not in DIE:
            return f"A die shows 1 to 6, not {die}."
    if play.reveal is None:
        return None
    if not play.rolls:
        return "The die board's reveals are opened only after a roll: the winner kept the first reveal."
    zone = _zone_for(board, play.rolls[0])
    numbers = [reveal.number for reveal in zone.reveals]
    if play.reveal not in numbers:
        return (
            f"The die shows {zone.die}: the winner opens one of reveals {numbers[0]} to {numbers[-1]}, "
            f"not reveal {play.reveal}."
        )
    return None


def roll_into_riches(
    *, first_reveals: Sequence[int], play: Play, progressive_cents: int, board: Sequence[Zone] = DEFAULT_BOARD
) -> Outcome:
    """The game's line for one winner (add-ons are not the game's: another module adds them)."""
    if len(first_reveals) != FIRST_REVEALS or any(amount <= 0 for amount in first_reveals):
        raise ValueError(f"the first stage has {FIRST_REVEALS} reveals with their amounts")
    if refusal := board_refusal(board):
        raise ValueError(refusal)
    if refusal := play_refusal(play=play, board=board):
        raise GameRefused(refusal)
    first = first_reveals[play.randomiser - 1]
    data = {"game": "roll_into_riches", "randomiser": play.randomiser, "first_reveal_cents": first}
    if not play.rolls:
        words = f"Roll into Riches: kept the reveal of randomiser {play.randomiser}, {rand_cents(first)}"
        return Outcome((LineSpec(LineKind.CASH, first, LineSource.GAME, words, data),), reset_progressive=False)
    die = play.rolls[0]
    if play.reveal is None:
        raise GameRefused(f"The die shows {die}: the winner has not opened a reveal of zone {die} yet.")
    reveal = next(reveal for reveal in _zone_for(board, die).reveals if reveal.number == play.reveal)
    data |= {"die": die, "reveal": reveal.number}
    played = f"Roll into Riches: forfeited {rand_cents(first)}, rolled {die}, reveal {reveal.number}"
    if reveal.progressive:
        data["progressive_cents"] = progressive_cents
        words = f"{played}, the progressive jackpot: {rand_cents(progressive_cents)}"
        return Outcome(
            (LineSpec(LineKind.CASH, progressive_cents, LineSource.JACKPOT, words, data),), reset_progressive=True
        )
    words = f"{played}{', the Bonus Reveal' if reveal.bonus else ''}: {rand_cents(reveal.amount_cents)}"
    return Outcome(
        (LineSpec(LineKind.CASH, reveal.amount_cents, LineSource.GAME, words, data),), reset_progressive=False
    )


def _zone_for(board: Sequence[Zone], die: int) -> Zone:
    return next(zone for zone in board if zone.die == die)
