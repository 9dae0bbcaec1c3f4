"""Turn Up the Heat 3pm bonus feature (TH r104 "2 winners will unlock a Bonus feature with each one
having a symbol", r105 "winner 1 will open the first box then winner 2 … the first winner to reveal
all three of their winning symbols will win the R10,000 Jackpot and the Runner up will win
R7,500", r106 "12 boxes", r107 declines: R5,000 / R10,000, both R5,000 each; A19) and PRIZES.md
§5 examples 18 and 19."""

import pytest

from core.formats import rand_cents
from prizes.games.symbol_boxes import (
    BonusAmounts,
    BonusWinner,
    boxes_refusal,
    layout_refusal,
    next_opener,
    opening_refusal,
    symbol_boxes_lines,
    symbols_found,
)
from prizes.lines import GameRefused, LineKind, LineSource

F, C = "flame", "chilli"
# cfg layout (A19: 3 per symbol + 6 blanks), box 1 first
LAYOUT = [F, C, None, F, C, None, None, C, F, None, None, None]
X = BonusWinner(pick=2, symbol=F)  # the earlier pick: opens first
Y = BonusWinner(pick=5, symbol=C)


def amounts(opened, *, winners=(X, Y)):
    return [line.amount_cents for line in symbol_boxes_lines(winners=list(winners), layout=LAYOUT, opened=opened)]


def test_example_18_y_completes_first_with_a_symbol_x_opened():
    """§5 #18: X (earlier pick) opens first; Y completes first -> Y R10,000, X R7,500. A19: Y's
    third chilli counts for Y although X opened it."""
    opened = [(2, 1), (5, 2), (2, 5), (5, 3), (2, 8)]
    x_line, y_line = symbol_boxes_lines(winners=[X, Y], layout=LAYOUT, opened=opened)
    assert (y_line.amount_cents, x_line.amount_cents) == (1_000_000, 750_000)
    assert y_line.words == "Bonus boxes: first to all three chilli symbols, R 10,000.00"
    assert x_line.words == "Bonus boxes: runner-up, R 7,500.00"
    assert {x_line.source, y_line.source} == {LineSource.GAME}
    assert {x_line.kind, y_line.kind} == {LineKind.CASH}
    assert y_line.data == {
        "game": "symbol_boxes",
        "opened": [[2, 1], [5, 2], [2, 5], [5, 3], [2, 8]],
        "pick": 5,
        "symbol": C,
    }


def test_the_earlier_pick_wins_when_they_complete_first():
    assert amounts([(2, 1), (5, 3), (2, 4), (5, 6), (2, 9)]) == [1_000_000, 750_000]


def test_lines_follow_the_order_the_winners_are_given_in():
    assert amounts([(2, 1), (5, 3), (2, 4), (5, 6), (2, 9)], winners=(Y, X)) == [750_000, 1_000_000]


@pytest.mark.parametrize(
    ("x", "y", "expected", "x_words"),
    [
        # §5 #19: X declines -> X R5,000, Y R10,000 (r107)
        (
            BonusWinner(2, F, declined=True),
            Y,
            [500_000, 1_000_000],
            "Bonus boxes: declined the game, R 5,000.00",
        ),
        (X, BonusWinner(5, C, declined=True), [1_000_000, 500_000], None),
        # §5 #19: both decline -> R5,000 each (r107)
        (BonusWinner(2, F, declined=True), BonusWinner(5, C, declined=True), [500_000, 500_000], None),
        # A19: an absent bonus winner -> R5,000
        (BonusWinner(2, F, absent=True), Y, [500_000, 1_000_000], "Bonus boxes: absent for the game, R 5,000.00"),
    ],
)
def test_example_19_declines_and_absence(x, y, expected, x_words):
    lines = symbol_boxes_lines(winners=[x, y], layout=LAYOUT, opened=[])
    assert [line.amount_cents for line in lines] == expected
    if x_words:
        assert lines[0].words == x_words
    if expected == [500_000, 1_000_000]:
        assert lines[1].words == "Bonus boxes: the other bonus winner did not play, the jackpot R 10,000.00"


def test_no_box_is_opened_once_a_bonus_winner_declined():
    declined = BonusWinner(2, F, declined=True)
    with pytest.raises(GameRefused, match="declined or is absent"):
        symbol_boxes_lines(winners=[declined, Y], layout=LAYOUT, opened=[(2, 1)])
    assert opening_refusal(winners=[declined, Y], layout=LAYOUT, opened=[], opening=(2, 1)) == (
        "A bonus winner declined or is absent: no box is opened, the prizes follow from r107."
    )


@pytest.mark.parametrize(
    ("opened", "message"),
    [
        ([(2, 1), (5, 1)], "Box 1 is already open: choose another box."),
        ([(5, 1)], "It is the turn of the winner of pick 2 to open a box, not of pick 5."),
        ([(2, 1), (2, 2)], "It is the turn of the winner of pick 5 to open a box, not of pick 2."),
        ([(2, 13)], "The boxes are numbered 1 to 12, not 13."),
        ([(2, 0)], "The boxes are numbered 1 to 12, not 0."),
        (
            [(2, 1), (5, 3), (2, 4), (5, 6), (2, 9), (5, 2)],
            "The bonus game is over: a winner has all three symbols.",
        ),
        ([(2, 1), (5, 2)], "The bonus game is not finished: neither winner has all three symbols yet."),
        ([], "The bonus game is not finished: neither winner has all three symbols yet."),
    ],
)
def test_an_impossible_opening_is_refused_in_words(opened, message):
    with pytest.raises(GameRefused) as refused:
        amounts(opened)
    assert str(refused.value) == message


def test_the_stage_screen_knows_whose_turn_it_is_and_the_symbols_found():
    opened = [(2, 1), (5, 5)]
    assert next_opener(winners=[Y, X], opened=[]) == 2
    assert next_opener(winners=[X, Y], opened=opened) == 2
    assert next_opener(winners=[X, Y], opened=opened[:1]) == 5
    assert symbols_found(winners=[X, Y], layout=LAYOUT, opened=opened) == {2: 1, 5: 1}
    assert opening_refusal(winners=[X, Y], layout=LAYOUT, opened=opened, opening=(2, 12)) is None


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        (LAYOUT[:11], "There are 12 boxes on stage (TH r106), not 11."),
        ([F, F, F, F, C, C, C, None, None, None, None, None], "The boxes hide 3 flame symbols, not 4."),
        ([F, F, F, C, C, None, None, None, None, None, None, None], "The boxes hide 3 chilli symbols, not 2."),
        (
            [F, F, F, C, C, C, "star", None, None, None, None, None],
            "The boxes hide only the two bonus symbols and blanks, not star.",
        ),
        (LAYOUT, None),
    ],
)
def test_the_layout_is_12_boxes_with_3_of_each_symbol(layout, message):
    assert layout_refusal(layout=layout, symbols=[F, C]) == message
    if message:
        with pytest.raises(ValueError, match="boxes"):
            symbol_boxes_lines(winners=[X, Y], layout=layout, opened=[])


def test_the_two_bonus_winners_have_different_symbols():
    assert layout_refusal(layout=LAYOUT, symbols=[F, F]) == "The two bonus podiums need different symbols."


BOARD_AMOUNTS = BonusAmounts(first=1_200_000, runner_up=800_000, declined=600_000)


@pytest.mark.parametrize(
    ("x", "y", "opened", "expected"),
    [
        (X, Y, [(2, 1), (5, 2), (2, 4), (5, 5), (2, 9)], [1_200_000, 800_000]),  # X completes first (r105)
        (BonusWinner(2, F, declined=True), Y, [], [600_000, 1_200_000]),  # r107: declined / the other
        (BonusWinner(2, F, declined=True), BonusWinner(5, C, declined=True), [], [600_000, 600_000]),
        (BonusWinner(2, F, absent=True), Y, [], [600_000, 1_200_000]),  # A19: absent as declined
    ],
)
def test_the_amounts_are_the_boards(x, y, opened, expected):
    """The board's Bonus slots pay the game, each rule of r105 and r107 with its slot."""
    lines = symbol_boxes_lines(winners=[x, y], layout=LAYOUT, opened=opened, amounts=BOARD_AMOUNTS)
    assert [line.amount_cents for line in lines] == expected
    assert all(line.words.endswith(rand_cents(amount)) for line, amount in zip(lines, expected, strict=True))


def test_the_seeds_amounts_are_the_defaults():
    assert BonusAmounts() == BonusAmounts(first=1_000_000, runner_up=750_000, declined=500_000)  # r105, r107


@pytest.mark.parametrize(
    ("boxes", "blanks", "refused"), [(12, 6, False), (14, 8, False), (6, 0, False), (13, 6, True), (12, 7, True)]
)
def test_the_boxes_hide_three_of_each_symbol_and_the_blanks(boxes, blanks, refused):
    assert (boxes_refusal(boxes=boxes, blank_boxes=blanks) is not None) == refused


def test_a_board_of_14_boxes_numbers_them_to_14():
    layout = [*LAYOUT, None, None]
    lines = symbol_boxes_lines(winners=[X, Y], layout=layout, opened=[(2, 13), (5, 1), (2, 4), (5, 9)], boxes=14)
    assert [line.amount_cents for line in lines] == [1_000_000, 750_000]
    refusal = opening_refusal(winners=[X, Y], layout=layout, opened=[], opening=(2, 15))
    assert refusal == "The boxes are numbered 1 to 14, not 15."
    with pytest.raises(ValueError, match="There are 12 boxes on stage"):
        symbol_boxes_lines(winners=[X, Y], layout=layout, opened=[], boxes=12)
