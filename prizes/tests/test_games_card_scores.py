"""Emnotweni DayTime PlayTime card scores (DT r10.1, r18-r20; PRIZES.md A21, §5 examples 24, 25)."""

import re

import pytest

from prizes.games.card_scores import DEFAULT_AMOUNTS, CardTurn, ChosenBy, card_score_lines, choosing_order
from prizes.lines import GameRefused, LineKind, LineSource


def test_the_seeds_prizes_are_the_default_amounts():
    assert DEFAULT_AMOUNTS == (300_000, 200_000, 100_000)  # r10.1.1 R3000, r10.1.2 R2000, r10.1.3 R1000


def test_example_24_highest_score_wins_r3000_then_r2000_r1000():
    """10 Sep: scores 7, 12, 3 (W1-W3) -> W2 R3,000, W1 R2,000, W3 R1,000."""
    lines = card_score_lines(turns=[CardTurn("W1", 7), CardTurn("W2", 12), CardTurn("W3", 3)])

    assert list(lines) == ["W2", "W1", "W3"]
    assert {w: line.amount_cents for w, line in lines.items()} == {"W2": 300_000, "W1": 200_000, "W3": 100_000}
    assert lines["W2"].words == "1st prize, the highest card score (12)"
    assert lines["W3"].words == "3rd prize, the third highest card score (3)"
    assert (lines["W2"].kind, lines["W2"].source) == (LineKind.CASH, LineSource.GAME)
    assert lines["W1"].data == {"game": "card_scores", "place": 2, "score": 7, "chosen_by": "finalist"}


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ((1, 2, 3), (100_000, 200_000, 300_000)),
        ((3, 2, 1), (300_000, 200_000, 100_000)),
        ((-1, 0, 1), (100_000, 200_000, 300_000)),
        ((13, 1, 12), (300_000, 100_000, 200_000)),
    ],
)
def test_the_order_of_the_scores_decides_not_the_pick_order(scores, expected):
    turns = [CardTurn(f"W{n}", score) for n, score in enumerate(scores, start=1)]

    lines = card_score_lines(turns=turns)

    assert tuple(lines[f"W{n}"].amount_cents for n in (1, 2, 3)) == expected


def test_the_boards_amounts_replace_the_defaults():
    lines = card_score_lines(turns=[CardTurn("W1", 7), CardTurn("W2", 12), CardTurn("W3", 3)], amounts=[500, 300, 1])

    assert [line.amount_cents for line in lines.values()] == [500, 300, 1]


def test_example_25_one_declined_finalist_gets_the_card_left_over_r19():
    turns = [CardTurn("W1", 12), CardTurn("W2", 3), CardTurn("W3", 7, declined=True)]

    lines = card_score_lines(turns=turns)

    assert lines["W3"].amount_cents == 200_000  # the last card's prize, W3 not redrawn
    assert lines["W3"].words == "2nd prize, the second highest card score (7); declined: the card left over (r19)"
    assert lines["W3"].data["chosen_by"] == "left_over"


def test_a_lone_declined_finalist_is_given_the_last_card_whatever_their_pick_order_r19():
    turns = [CardTurn("W1", 12, declined=True), CardTurn("W2", 3), CardTurn("W3", 7)]

    assert choosing_order(turns) == [("W2", ChosenBy.FINALIST), ("W3", ChosenBy.FINALIST), ("W1", ChosenBy.LEFT_OVER)]


def test_with_two_declined_audience_stand_ins_choose_and_the_prizes_stay_the_finalists_r18_r20():
    turns = [CardTurn("W1", 12, declined=True), CardTurn("W2", 3), CardTurn("W3", 7, declined=True)]

    lines = card_score_lines(turns=turns)

    assert set(lines) == {"W1", "W2", "W3"}  # no line for a stand-in (r20)
    assert lines["W1"].amount_cents == 300_000
    assert (
        lines["W1"].words
        == "1st prize, the highest card score (12); declined: chosen by a stand-in from the audience (r18)"
    )
    assert lines["W3"].data["chosen_by"] == "stand_in"
    assert lines["W2"].data["chosen_by"] == "finalist"
    assert choosing_order(turns) == [("W1", ChosenBy.STAND_IN), ("W2", ChosenBy.FINALIST), ("W3", ChosenBy.STAND_IN)]


def test_all_three_declined_three_stand_ins_choose():
    turns = [CardTurn(f"W{n}", n, declined=True) for n in (1, 2, 3)]

    lines = card_score_lines(turns=turns)

    assert {line.data["chosen_by"] for line in lines.values()} == {"stand_in"}
    assert lines["W3"].amount_cents == 300_000


@pytest.mark.parametrize(
    ("turns", "message"),
    [
        ([CardTurn("W1", 7), CardTurn("W2", 7), CardTurn("W3", 3)], "Two cards have the score 7"),
        ([CardTurn("W1", 3), CardTurn("W2", 3), CardTurn("W3", 3)], "Two cards have the score 3"),
        ([CardTurn("W1", 7), CardTurn("W2", 12)], "three finalists a draw (r10.1); 2 were recorded"),
        ([CardTurn(f"W{n}", n) for n in range(4)], "4 were recorded"),
        ([CardTurn("W1", 7), CardTurn("W1", 12), CardTurn("W3", 3)], "A finalist was recorded twice"),
        ([CardTurn("W1", 7.5), CardTurn("W2", 12), CardTurn("W3", 3)], "score as a whole number"),
    ],
)
def test_an_impossible_record_is_refused(turns, message):
    with pytest.raises(GameRefused, match=re.escape(message)):
        card_score_lines(turns=turns)


@pytest.mark.parametrize("amounts", [(300_000, 200_000), (300_000, 200_000, 0), (3000.0, 2000, 1000)])
def test_a_board_without_three_whole_prizes_is_refused(amounts):
    turns = [CardTurn("W1", 7), CardTurn("W2", 12), CardTurn("W3", 3)]
    with pytest.raises(GameRefused, match="three prizes"):
        card_score_lines(turns=turns, amounts=amounts)
