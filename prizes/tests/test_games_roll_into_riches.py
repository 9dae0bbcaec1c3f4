"""Fast Lane 9pm Roll into Riches (FL r98 "win from 5 reveals", r104-r106 keep or forfeit and
roll the dice, r107 "A R20 000 progressive Jackpot … & a Bonus Reveal of R25 000", r108 board;
A11) and PRIZES.md §5 examples 6, 7, 8, 9."""

import pytest

from prizes.games.roll_into_riches import (
    DEFAULT_BOARD,
    Play,
    Reveal,
    Zone,
    board_refusal,
    play_refusal,
    roll_into_riches,
)
from prizes.lines import GameRefused, LineKind, LineSource

FIRST = [300_000, 500_000, 800_000, 1_000_000, 1_500_000]  # cfg: the five first reveals
AT_BASE = 2_000_000  # r107: R20,000


def play(randomiser=3, rolls=(), reveal=None, progressive=AT_BASE, board=DEFAULT_BOARD):
    return roll_into_riches(
        first_reveals=FIRST,
        play=Play(randomiser=randomiser, rolls=tuple(rolls), reveal=reveal),
        progressive_cents=progressive,
        board=board,
    )


def test_example_6_keeping_the_first_reveal_pays_it():
    """§5 #6: keeps V -> V (the R200 app add-on is another module's line)."""
    outcome = play(randomiser=3)
    (line,) = outcome.lines
    assert (line.amount_cents, line.kind, line.source) == (800_000, LineKind.CASH, LineSource.GAME)
    assert line.words == "Roll into Riches: kept the reveal of randomiser 3, R 8,000.00"
    assert outcome.reset_progressive is False


def test_example_7_forfeit_roll_1_reveal_1_pays_r2000():
    """§5 #7: forfeits V, die 1, reveal 1 -> R2,000 (r108 Dice Roll 1: R2,000)."""
    (line,) = play(rolls=[1], reveal=1).lines
    assert (line.amount_cents, line.source) == (200_000, LineSource.GAME)
    assert line.words == "Roll into Riches: forfeited R 8,000.00, rolled 1, reveal 1: R 2,000.00"
    assert line.data == {
        "game": "roll_into_riches",
        "randomiser": 3,
        "first_reveal_cents": 800_000,
        "die": 1,
        "reveal": 1,
    }


def test_example_8_reveal_19_at_base_pays_the_r20000_jackpot_and_resets_it():
    """§5 #8: die 6, reveal 19, at base -> R20,000 jackpot, reset (r107, A11)."""
    outcome = play(rolls=[6], reveal=19)
    (line,) = outcome.lines
    assert (line.amount_cents, line.source) == (AT_BASE, LineSource.JACKPOT)
    assert outcome.reset_progressive is True
    assert line.words == (
        "Roll into Riches: forfeited R 8,000.00, rolled 6, reveal 19, the progressive jackpot: R 20,000.00"
    )


def test_reveal_19_pays_the_progressive_at_its_current_value():
    """A11: increment cfg; the prize is the value when won, not the board's R20,000."""
    outcome = play(rolls=[6], reveal=19, progressive=2_350_000)
    assert outcome.lines[0].amount_cents == 2_350_000
    assert outcome.lines[0].data["progressive_cents"] == 2_350_000


def test_example_9_reveal_20_is_the_r25000_bonus_reveal():
    """§5 #9: die 6, reveal 20 -> R25,000 (r107 Bonus Reveal), no reset."""
    outcome = play(rolls=[6], reveal=20)
    assert (outcome.lines[0].amount_cents, outcome.lines[0].source) == (2_500_000, LineSource.GAME)
    assert outcome.lines[0].words.endswith("reveal 20, the Bonus Reveal: R 25,000.00")
    assert outcome.reset_progressive is False


# r108, every reveal: (die, reveal number, R amount)
R108 = [
    (1, 1, 2_000), (1, 2, 5_000), (1, 3, 8_000),
    (2, 4, 5_000), (2, 5, 8_000), (2, 6, 10_000),
    (3, 7, 8_000), (3, 8, 10_000), (3, 9, 12_000), (3, 10, 15_000),
    (4, 11, 10_000), (4, 12, 12_000), (4, 13, 15_000), (4, 14, 18_000),
    (5, 15, 12_000), (5, 16, 15_000), (5, 17, 18_000),
    (6, 18, 15_000), (6, 19, 20_000), (6, 20, 25_000),
]  # fmt: skip


@pytest.mark.parametrize(("die", "reveal", "rand"), R108)
def test_the_default_board_is_r108_and_pays_each_reveal(die, reveal, rand):
    (line,) = play(rolls=[die], reveal=reveal).lines
    assert line.amount_cents == rand * 100


def test_the_default_board_has_20_reveals_in_6_zones():
    assert [
        (zone.die, reveal.number, reveal.amount_cents // 100) for zone in DEFAULT_BOARD for reveal in zone.reveals
    ] == R108
    assert board_refusal(DEFAULT_BOARD) is None


@pytest.mark.parametrize(
    ("randomiser", "rolls", "reveal", "message"),
    [
        (3, [2], 1, "The die shows 2: the winner opens one of reveals 4 to 6, not reveal 1."),
        (3, [2], 7, "The die shows 2: the winner opens one of reveals 4 to 6, not reveal 7."),
        (3, [6], 17, "The die shows 6: the winner opens one of reveals 18 to 20, not reveal 17."),
        (3, [1, 6], 19, "The die is rolled once: a second roll is not allowed."),
        (3, [0], 1, "A die shows 1 to 6, not 0."),
        (3, [7], 20, "A die shows 1 to 6, not 7."),
        (3, [], 5, "The die board's reveals are opened only after a roll: the winner kept the first reveal."),
        (0, [], None, "There are 5 randomisers, 1 to 5; not 0."),
        (6, [], None, "There are 5 randomisers, 1 to 5; not 6."),
        (3, [4], None, "The die shows 4: the winner has not opened a reveal of zone 4 yet."),
    ],
)
def test_an_impossible_play_is_refused_in_words(randomiser, rolls, reveal, message):
    with pytest.raises(GameRefused) as refused:
        play(randomiser=randomiser, rolls=rolls, reveal=reveal)
    assert str(refused.value) == message


def test_the_stage_can_show_a_roll_before_the_reveal_is_opened():
    assert play_refusal(play=Play(randomiser=1, rolls=(4,))) is None
    assert play_refusal(play=Play(randomiser=1, rolls=(4,), reveal=14)) is None
    assert play_refusal(play=Play(randomiser=1, rolls=(4,), reveal=15)) is not None


def test_an_edited_board_pays_its_own_amounts():
    """A11: r108 is an editable default."""
    board = tuple(
        Zone(zone.die, tuple(Reveal(r.number, r.amount_cents * 2, r.progressive, r.bonus) for r in zone.reveals))
        for zone in DEFAULT_BOARD
    )
    assert play(rolls=[1], reveal=1, board=board).lines[0].amount_cents == 400_000
    assert play(rolls=[6], reveal=19, board=board).lines[0].amount_cents == AT_BASE  # the progressive's own value


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (DEFAULT_BOARD[:5], "The board needs one zone for each face of the die, 1 to 6."),
        ((*DEFAULT_BOARD[:5], Zone(6, ())), "Every zone of the board needs at least one reveal."),
        ((*DEFAULT_BOARD[:5], Zone(6, (Reveal(1, 100),))), "Each reveal number appears once on the board."),
        ((*DEFAULT_BOARD[:5], Zone(6, (Reveal(18, 0),))), "Every reveal of the board needs an amount."),
        (
            (*DEFAULT_BOARD[:5], Zone(6, (Reveal(18, 1, progressive=True), Reveal(19, 1, progressive=True)))),
            "Only one reveal of the board hides the progressive jackpot.",
        ),
    ],
)
def test_a_board_that_cannot_be_played_is_refused(board, message):
    assert board_refusal(board) == message
    with pytest.raises(ValueError, match=message):
        play(board=board)
