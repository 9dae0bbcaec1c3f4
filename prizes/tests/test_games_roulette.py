"""Fast Lane 7pm Roulette-Xtra (FL r91 "numbers from 0 - 36 and their multipliers" X2…X10,
r93 "A minimum bet costs R200", r94 "capped to a max of 10 Spins"; A10 payout) and PRIZES.md
§5 examples 10 and 11."""

import pytest

from prizes.games.roulette import Spin, multipliers_refusal, roulette_balance, roulette_lines, spin_refusal
from prizes.lines import GameRefused, LineKind, LineSource

WHEEL = {number: 2 + number % 9 for number in range(37)}  # cfg map: every number x2…x10
assert (WHEEL[17], WHEEL[35], WHEEL[0]) == (10, 10, 2)
WHEEL_17_X3 = WHEEL | {17: 3}
PODIUM = 500_000  # cfg: R5,000


def prize(spins, *, podium=PODIUM, wheel=WHEEL_17_X3):
    (line,) = roulette_lines(podium_cents=podium, multipliers=wheel, spins=spins)
    return line


def test_example_10_r1000_on_17_at_x3_hits_and_the_winner_stops_with_p_plus_r2000():
    """§5 #10: podium P, R1,000 on 17 (x3) hits, stops -> P + R2,000 (A10: B - s + s*m)."""
    line = prize([Spin(number=17, stake_cents=100_000, result=17)])
    assert line.amount_cents == PODIUM + 200_000
    assert (line.kind, line.source) == (LineKind.CASH, LineSource.GAME)
    assert line.words == "Roulette: podium R 5,000.00, 1 spin, stopped at R 7,000.00"
    assert line.data["spins"] == [
        {"number": 17, "stake_cents": 100_000, "result": 17, "multiplier": 3, "balance_cents": 700_000}
    ]


def test_example_11_ten_r200_misses_leave_p_minus_r2000_and_an_11th_spin_is_refused():
    """§5 #11: P ≥ R2,000, 10 x R200 miss -> P - R2,000; 11th spin refused (r94)."""
    misses = [Spin(number=17, stake_cents=20_000, result=0)] * 10
    assert prize(misses).amount_cents == PODIUM - 200_000
    assert prize(misses).words == "Roulette: podium R 5,000.00, 10 spins, stopped at R 3,000.00"
    with pytest.raises(GameRefused) as refused:
        prize([*misses, Spin(number=17, stake_cents=20_000, result=17)])
    assert str(refused.value) == "A winner has at most 10 spins (FL r94): this would be spin 11."


def test_example_11_a_r150_stake_is_refused():
    """§5 #11: R150 stake refused (r93: at least R200); R200 itself is accepted."""
    with pytest.raises(GameRefused) as refused:
        prize([Spin(number=17, stake_cents=15_000, result=3)])
    assert str(refused.value) == "A bet is at least R 200.00 (FL r93), not R 150.00."
    assert prize([Spin(number=17, stake_cents=20_000, result=3)]).amount_cents == PODIUM - 20_000
    assert spin_refusal(podium_cents=PODIUM, multipliers=WHEEL, spins=[], spin=Spin(1, 19_999, 1)) is not None


def test_a_winner_who_does_not_bet_keeps_the_podium():
    line = prize([])
    assert line.amount_cents == PODIUM
    assert line.words == "Roulette: podium R 5,000.00, 0 spins, stopped at R 5,000.00"


@pytest.mark.parametrize(
    ("spins", "balance"),
    [
        # each number's multiplier from the map: x2 on 0, x10 on 8, x3 on 17 (the example's)
        ([Spin(0, 100_000, 0)], PODIUM + 100_000),
        ([Spin(8, 100_000, 8)], PODIUM + 900_000),
        ([Spin(8, 100_000, 9)], PODIUM - 100_000),
        ([Spin(17, PODIUM, 17)], PODIUM * 3),  # all in, hit
        ([Spin(17, PODIUM, 16)], 0),  # all in, miss: nothing left
        # a hit raises the balance the next stake may reach (stake ≤ current balance)
        ([Spin(17, PODIUM, 17), Spin(17, PODIUM * 3, 1)], 0),
        ([Spin(0, 20_000, 36), Spin(35, 20_000, 35)], PODIUM - 20_000 + 20_000 * 9),  # 35 is x10
    ],
)
def test_hits_pay_stake_times_multiplier_and_misses_lose_the_stake(spins, balance):
    assert prize(spins).amount_cents == balance
    assert roulette_balance(podium_cents=PODIUM, multipliers=WHEEL_17_X3, spins=spins) == balance


@pytest.mark.parametrize(
    ("spins", "message"),
    [
        ([Spin(17, PODIUM + 1, 17)], "The winner holds R 5,000.00: a bet of R 5,000.01 is more than that."),
        (
            [Spin(17, 400_000, 3), Spin(17, 100_001, 3)],
            "The winner holds R 1,000.00: a bet of R 1,000.01 is more than that.",
        ),
        ([Spin(17, PODIUM, 16), Spin(17, 20_000, 17)], "The winner holds R 0.00: a bet of R 200.00 is more than that."),
        ([Spin(37, 20_000, 37)], "A bet is on a number from 0 to 36, not 37."),
        ([Spin(-1, 20_000, 3)], "A bet is on a number from 0 to 36, not -1."),
        ([Spin(17, 20_000, 37)], "The wheel stops on a number from 0 to 36, not 37."),
    ],
)
def test_impossible_bets_are_refused_in_words(spins, message):
    with pytest.raises(GameRefused) as refused:
        prize(spins)
    assert str(refused.value) == message


def test_a_bet_on_a_number_without_a_multiplier_is_refused():
    wheel = {17: 3, 0: 10}
    with pytest.raises(GameRefused) as refused:
        prize([Spin(5, 20_000, 5)], wheel=wheel)
    assert str(refused.value) == "Number 5 has no multiplier on this wheel: bet on a number that has one."
    assert prize([Spin(0, 20_000, 0)], wheel=wheel).amount_cents == PODIUM + 20_000 * 9


@pytest.mark.parametrize(
    ("wheel", "message"),
    [
        ({}, "The wheel has no number with a multiplier: set at least one."),
        ({37: 2}, "The wheel has numbers 0 to 36; 37 is not one of them."),
        ({3: 1}, "Number 3 has multiplier x1; a multiplier is x2 to x10."),
        ({3: 11}, "Number 3 has multiplier x11; a multiplier is x2 to x10."),
        ({0: 2, 36: 10}, None),
    ],
)
def test_the_multiplier_map_holds_numbers_0_to_36_at_x2_to_x10(wheel, message):
    assert multipliers_refusal(wheel) == message
