"""Emnotweni DayTime PlayTime: the three finalists' cards (DT r10.1, r18-r20; PRIZES.md A21,
§5 examples 24 and 25).

In the order they were drawn the three finalists each choose a card (r10.1); the highest score
wins the 1st prize (R3000), the second highest the 2nd (R2000), the third the 3rd (R1000)
(r10.1.1-3; the board's amounts, these by default). "Score" is undefined: each card has its own
score, so two equal scores are refused (A21).

A finalist who declined to be present (the register, r14-15) is not redrawn. If only one
declined, that finalist gets the card left over once the others have chosen (r19). If more
declined, a person from the audience chooses for each of them (r18); the stand-in is not
entitled to the prize (r20, r21), so the line is the finalist's and no one else's.
"""

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from prizes.lines import GameRefused, LineKind, LineSource, LineSpec

FINALISTS = 3  # DT r10.1 "the three by prize winners" (A21)
DEFAULT_AMOUNTS = (300_000, 200_000, 100_000)  # DT r10.1.1-3: R3000, R2000, R1000
_PLACES = ("1st", "2nd", "3rd")
_HIGHEST = ("the highest", "the second highest", "the third highest")


class ChosenBy(StrEnum):
    FINALIST = "finalist"  # the finalist chose in pick order (r10.1)
    LEFT_OVER = "left_over"  # the one declined finalist: the card the others left (r19)
    STAND_IN = "stand_in"  # an audience stand-in chose for a declined finalist (r18), gets nothing (r20)


_CHOSEN_WORDS = {
    ChosenBy.FINALIST: "",
    ChosenBy.LEFT_OVER: "; declined: the card left over (r19)",
    ChosenBy.STAND_IN: "; declined: chosen by a stand-in from the audience (r18)",
}


@dataclass(frozen=True)
class CardTurn:
    winner: Hashable
    score: int  # the score on the card this finalist received
    declined: bool = False


def _chosen_by(turn: CardTurn, declined: int) -> ChosenBy:
    if not turn.declined:
        return ChosenBy.FINALIST
    return ChosenBy.LEFT_OVER if declined == 1 else ChosenBy.STAND_IN


def choosing_order(turns: Sequence[CardTurn]) -> list[tuple[Hashable, ChosenBy]]:
    """Who takes a card when, for the stage: the present finalists (and stand-ins) in pick order,
    a lone declined finalist's card last, since it is what the others leave (r19)."""
    declined = sum(turn.declined for turn in turns)
    order = [(turn.winner, _chosen_by(turn, declined)) for turn in turns]
    return sorted(order, key=lambda item: item[1] == ChosenBy.LEFT_OVER)


def _refusal(turns: Sequence[CardTurn], amounts: Sequence[int]) -> str | None:
    if len(amounts) != FINALISTS or any(not isinstance(a, int) or isinstance(a, bool) or a <= 0 for a in amounts):
        return "The board needs the three prizes (1st, 2nd, 3rd) in whole cents above zero."
    if len(turns) != FINALISTS:
        return f"DayTime PlayTime has three finalists a draw (r10.1); {len(turns)} were recorded."
    if any(n > 1 for n in Counter(turn.winner for turn in turns).values()):
        return "A finalist was recorded twice: each finalist receives one card."
    if any(not isinstance(turn.score, int) or isinstance(turn.score, bool) for turn in turns):
        return "Record each card's score as a whole number."
    tied = sorted(score for score, n in Counter(turn.score for turn in turns).items() if n > 1)
    if tied:
        return f"Two cards have the score {tied[0]}: each card's score is different (A21). Check the cards."
    return None


def card_score_lines(
    *, turns: Sequence[CardTurn], amounts: Sequence[int] = DEFAULT_AMOUNTS
) -> dict[Hashable, LineSpec]:
    """Each finalist's line, highest score first (r10.1.1-3)."""
    if problem := _refusal(turns, amounts):
        raise GameRefused(problem)
    declined = sum(turn.declined for turn in turns)
    ranked = sorted(turns, key=lambda turn: turn.score, reverse=True)
    lines = {}
    for place, turn in enumerate(ranked):
        chosen_by = _chosen_by(turn, declined)
        lines[turn.winner] = LineSpec(
            kind=LineKind.CASH,
            amount_cents=amounts[place],
            source=LineSource.GAME,
            words=f"{_PLACES[place]} prize, {_HIGHEST[place]} card score ({turn.score}){_CHOSEN_WORDS[chosen_by]}",
            data={"game": "card_scores", "place": place + 1, "score": turn.score, "chosen_by": chosen_by.value},
        )
    return lines
