"""Golden Horse Thursday evening vault (GH r9: "There will be 15 balls in the vault, fourteen (14)
white and one (1) pink"; "On the last Thursday of every month three (3) balls"; A1-A4) and
PRIZES.md §5 examples 1, 2, 4."""

import datetime as dt

import pytest

from prizes.games.vault import (
    Ball,
    VaultContents,
    ball_refusal,
    vault_left,
    vault_lines,
)
from prizes.lines import GameRefused, LineKind, LineSource

W, P = Ball.WHITE, Ball.PINK
JACKPOT = 5_000_000  # cfg per tier per date (A4): any amount will do
CONSOLATION = 250_000


def lines(balls, *, last_thursday=False):
    return vault_lines(
        last_thursday=last_thursday,
        balls=balls,
        jackpot_cents=JACKPOT,
        consolation_cents=CONSOLATION,
        tier="Queen",
        draw_date=dt.date(2026, 7, 16),
    )


def test_example_1_queen_16_jul_white_then_pink_then_white_from_the_13_left():
    """§5 #1: GH Thu 20h00 Queen 16 Jul: W1 white, W2 pink -> W1 C, W2 J; W3 (13 white left) C."""
    assert vault_left(last_thursday=False, drawn=[W, P]) == VaultContents(white=13, pink=0)
    w1, w2, w3 = lines([W, P, W])
    assert (w1.amount_cents, w1.source) == (CONSOLATION, LineSource.GAME)
    assert (w2.amount_cents, w2.source) == (JACKPOT, LineSource.JACKPOT)
    assert (w3.amount_cents, w3.source) == (CONSOLATION, LineSource.GAME)
    assert w2.words == "Vault: pink ball, Queen jackpot of 16 Jul 2026: R 50,000.00"
    assert w1.words == "Vault: white ball, Queen consolation of 16 Jul 2026: R 2,500.00"
    assert {line.kind for line in (w1, w2, w3)} == {LineKind.CASH}
    assert w2.data == {"game": "vault", "ball": "pink", "position": 2, "vault_balls": 15, "tier": "Queen"}


def test_example_2_last_thursday_two_whites_leave_only_the_pink_for_w3():
    """§5 #2: GH Thu 19h00 T&J 30 Jul, 3 balls (A2, A3): W1, W2 white -> W3 J; W1, W2 C."""
    assert vault_left(last_thursday=True, drawn=[W, W]) == VaultContents(white=0, pink=1)
    assert [line.amount_cents for line in lines([W, W, P], last_thursday=True)] == [CONSOLATION, CONSOLATION, JACKPOT]
    assert lines([W, W, P], last_thursday=True)[0].data["vault_balls"] == 3


def test_example_4_a_white_ball_is_the_consolation_only():
    """§5 #4: GH Thu 20h00, white -> C only (the app's +Play R200 is Thursday midday's, A6)."""
    (line,) = lines([W])
    assert (line.amount_cents, line.source) == (CONSOLATION, LineSource.GAME)


@pytest.mark.parametrize(
    ("last_thursday", "balls", "left"),
    [
        (False, [], VaultContents(14, 1)),
        (False, [W], VaultContents(13, 1)),
        (False, [P], VaultContents(14, 0)),
        (False, [W, W, W], VaultContents(11, 1)),
        (True, [], VaultContents(2, 1)),
        (True, [P], VaultContents(2, 0)),
        (True, [W, P], VaultContents(1, 0)),
        (True, [P, W, W], VaultContents(0, 0)),
    ],
)
def test_what_is_left_in_the_vault_for_the_stage_screen(last_thursday, balls, left):
    assert vault_left(last_thursday=last_thursday, drawn=balls) == left
    assert left.balls == (3 if last_thursday else 15) - len(balls)


@pytest.mark.parametrize(
    ("last_thursday", "balls"),
    [
        (False, [P, W, W]),
        (False, [W, W, W]),
        (False, [W, W, P]),
        (True, [P, W, W]),
        (True, [W, P, W]),
        (True, [W, W, P]),
    ],
)
def test_every_possible_sequence_pays_one_line_per_winner_in_pick_order(last_thursday, balls):
    paid = [line.amount_cents for line in lines(balls, last_thursday=last_thursday)]
    assert paid == [JACKPOT if ball == P else CONSOLATION for ball in balls]


@pytest.mark.parametrize(
    ("last_thursday", "balls", "message"),
    [
        (False, [P, P], "The pink ball was already drawn by winner 1: only white balls are left in the vault."),
        (False, [W, P, P], "The pink ball was already drawn by winner 2: only white balls are left in the vault."),
        (True, [P, P], "The pink ball was already drawn by winner 1: only white balls are left in the vault."),
        (
            True,
            [W, W, W],
            "No white ball is left in the vault (2 white and 1 pink tonight): "
            "winner 3's ball can only be the pink one.",
        ),
        (
            False,
            [W, P, W, W],
            "All 3 winners of this tier have drawn their ball: there is no ball number 4.",
        ),
        (True, [W, P, W, W], "All 3 winners of this tier have drawn their ball: there is no ball number 4."),
        (False, ["blue"], "A ball from the vault is white or pink, not 'blue'."),
    ],
)
def test_an_impossible_sequence_is_refused_in_words(last_thursday, balls, message):
    with pytest.raises(GameRefused) as refused:
        lines(balls, last_thursday=last_thursday)
    assert str(refused.value) == message
    with pytest.raises(GameRefused):
        vault_left(last_thursday=last_thursday, drawn=balls)


def test_the_stage_asks_the_same_question_before_each_ball():
    assert ball_refusal(last_thursday=True, drawn=[W, W], ball=P) is None
    assert ball_refusal(last_thursday=True, drawn=[W, W], ball=W).startswith("No white ball is left")
    assert ball_refusal(last_thursday=False, drawn=[W, W], ball=W) is None


def test_more_whites_than_a_full_vault_holds_is_refused_when_more_winners_draw():
    """15-ball vault: 14 whites at most (r9), reachable only with more than 3 drawers."""
    assert ball_refusal(last_thursday=False, drawn=[W] * 13, ball=W, winners=15) is None
    assert ball_refusal(last_thursday=False, drawn=[W] * 14, ball=W, winners=15) == (
        "No white ball is left in the vault (14 white and 1 pink tonight): winner 15's ball can only be the pink one."
    )
