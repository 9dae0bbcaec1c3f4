"""Turn Up the Heat Saturday 7pm paddle (TH r112-r117; PRIZES.md §5 example 20)."""

import re

import pytest

from prizes.games.paddle import PADDLES, REVEALS, PaddleTurn, paddle_lines
from prizes.games.reveals import Slot
from prizes.lines import GameRefused, LineKind, LineSource

# 25 reveals (r116), amounts cfg: reveal n hides R(n x 1,000).
BOARD = [Slot(str(n), n * 100_000) for n in range(1, 26)]


def test_the_seed_values():
    assert PADDLES == (2, 3, 4)  # r113 "a paddle on stage which will contain 2, 3 or 4"
    assert REVEALS == 25  # r116 "There will be 25 boxes/Prize reveals on stage"


def test_example_20_the_last_opened_is_the_prize_even_when_an_earlier_one_was_bigger():
    lines = paddle_lines(slots=BOARD, turns=[PaddleTurn("W1", 2, ["20", "3"])])

    assert lines["W1"].amount_cents == 300_000  # reveal 3, not reveal 20's R20,000
    assert lines["W1"].words == "Reveal 3, the last of 2 opened with paddle 2"
    assert (lines["W1"].kind, lines["W1"].source) == (LineKind.CASH, LineSource.BOARD)
    assert lines["W1"].data == {"game": "paddle", "paddle": 2, "opened": ["20", "3"], "slot": "3"}


@pytest.mark.parametrize(
    ("paddle", "opened", "prize"),
    [
        (2, ["5", "9"], 900_000),  # all chances used: the last (r115)
        (3, ["5", "9", "1"], 100_000),  # never summed (r117)
        (4, ["5", "9", "1", "25"], 2_500_000),
        (4, ["12"], 1_200_000),  # stops after one (r115 "can stop at any point")
        (3, ["7", "8"], 800_000),  # stops early: the last opened
    ],
)
def test_the_prize_is_the_last_reveal_opened_never_the_sum(paddle, opened, prize):
    lines = paddle_lines(slots=BOARD, turns=[PaddleTurn("W1", paddle, opened)])

    assert lines["W1"].amount_cents == prize


@pytest.mark.parametrize(
    ("paddle", "opened", "message"),
    [
        (2, ["1", "2", "3"], "Paddle 2 gives 2 chances (TH r114); 3 reveals were recorded"),
        (4, ["1", "2", "3", "4", "5"], "Paddle 4 gives 4 chances (TH r114); 5 reveals"),
        (5, ["1"], "There is no paddle 5: the paddles hold 2, 3 or 4 (TH r113)"),
        (1, ["1"], "There is no paddle 1"),
        (3, [], "Record the reveals the winner opened"),
        (3, ["1", "26"], "There is no reveal 26 on this board"),
        (3, ["4", "4"], "Reveal 4 was already opened in this draw"),
    ],
)
def test_an_impossible_turn_is_refused(paddle, opened, message):
    with pytest.raises(GameRefused, match=re.escape(message)):
        paddle_lines(slots=BOARD, turns=[PaddleTurn("W1", paddle, opened)])


def test_a_reveal_opened_by_an_earlier_winner_stays_open_for_the_draw():
    turns = [PaddleTurn("W1", 2, ["1", "2"]), PaddleTurn("W2", 3, ["3", "2"])]
    with pytest.raises(GameRefused, match="Reveal 2 was already opened in this draw"):
        paddle_lines(slots=BOARD, turns=turns)

    lines = paddle_lines(slots=BOARD, turns=turns, board_per_winner=True)
    assert (lines["W1"].amount_cents, lines["W2"].amount_cents) == (200_000, 200_000)


def test_five_winners_in_pick_order():
    turns = [
        PaddleTurn("W1", 4, ["1", "2", "3", "4"]),
        PaddleTurn("W2", 2, ["5"]),
        PaddleTurn("W3", 3, ["6", "7", "8"]),
        PaddleTurn("W4", 4, ["9", "10", "11", "12"]),
        PaddleTurn("W5", 4, ["13", "14", "15", "16"]),
    ]

    lines = paddle_lines(slots=BOARD, turns=turns)

    assert list(lines) == ["W1", "W2", "W3", "W4", "W5"]
    assert [line.amount_cents for line in lines.values()] == [400_000, 500_000, 800_000, 1_200_000, 1_600_000]


def test_a_winner_plays_once():
    with pytest.raises(GameRefused, match="A winner was recorded twice"):
        paddle_lines(slots=BOARD, turns=[PaddleTurn("W1", 2, ["1"]), PaddleTurn("W1", 2, ["2"])])


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (BOARD[:24], "25 prize reveals on stage (TH r116); the board has 24"),
        ([*BOARD[:24], Slot("1", 100)], "Two reveals are labelled 1"),
    ],
)
def test_a_board_that_is_not_25_distinct_reveals_is_refused(board, message):
    with pytest.raises(GameRefused, match=re.escape(message)):
        paddle_lines(slots=board, turns=[PaddleTurn("W1", 2, ["1"])])
