"""What a stage game or a rule awards, before it is stored: the common currency of the prize
engines (`prizes/games/`), the board, add-ons, jackpots and carry-overs (issue 14).

A game never sees the database: it takes the board's slots and what the conductor recorded,
and returns `LineSpec`s; the prize service stores them as PrizeLines of the winner's pick.
Amounts are whole cents (R1 = 100): money is never a float here.
"""

from dataclasses import dataclass, field
from enum import StrEnum

from core.formats import rand_cents as rand  # noqa: F401  (R 5,000.00, SCREENS.md: the words of every line)


class LineKind(StrEnum):
    CASH = "cash"
    PLAY = "play"  # +Play (free play credit): PRIZES.md §3, expires after 365 days
    VEHICLE = "vehicle"  # a car at its stated value
    PLACE = "place"  # a place in a named later draw (a finalist)
    ENTRIES = "entries"  # n entries into a named later draw
    OTHER = "other"


class LineSource(StrEnum):
    BOARD = "board"  # the slot the winner reached on the prize board
    GAME = "game"  # computed by a stage game from its outcome (best hand, roulette, die…)
    ADD_ON = "add_on"  # from the winner's flags at verification (app, playTSOGO)
    JACKPOT = "jackpot"  # a progressive's value when won
    SHARE_OUT = "share_out"  # a progressive shared among several winners
    CONVERSION = "conversion"  # an extra finalist place turned into cash (TH r70)
    REVERSAL = "reversal"  # a manager's correction of a line of a complete draw


class GameRefused(ValueError):
    """What the conductor recorded cannot have happened (a second pink ball, an 11th spin, a
    stake below R200…): the message says so in words for the stage."""


@dataclass(frozen=True)
class LineSpec:
    kind: LineKind
    amount_cents: int  # for a vehicle its stated value; for a place 0; for entries the count
    source: LineSource
    words: str  # what the winner won, for the stage screen, the record and the letter
    data: dict = field(default_factory=dict)  # the game's outcome that produced it (kept on the line)

    def __post_init__(self):
        if not isinstance(self.amount_cents, int) or isinstance(self.amount_cents, bool):
            raise TypeError("amount_cents must be a whole number of cents")
        if self.amount_cents < 0 and self.source != LineSource.REVERSAL:
            raise ValueError("only a reversal line is negative")
