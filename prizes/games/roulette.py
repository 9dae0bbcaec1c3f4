"""Fast Lane to Fortune, Saturday 7pm Roulette-Xtra (FL r86-r94, PRIZES.md A10).

Each winner's card gives a podium value B (r90; the board's setting, an input here). The winner
may then bet from it on a number of the wheel, 0 to 36 (r91), each number carrying a multiplier
x2…x10 (the seed lists the multipliers, not which number has which: a setting, given as a map).
A bet costs at least R200 from what the winner holds (r93) and never more than that; at most
10 spins (r94). The seed gives no payout rule, so A10: a hit pays stake x multiplier, the stake
included (B - s + s*m), a miss loses the stake (B - s). The winner may stop at any time; the
prize is the balance at the stop.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.formats import rand_cents
from prizes.lines import GameRefused, LineKind, LineSource, LineSpec

MIN_STAKE_CENTS = 20_000  # r93: "A minimum bet costs R200"
MAX_SPINS = 10  # r94
NUMBERS = range(37)  # r91: 0 - 36
MULTIPLIERS = range(2, 11)  # r91: X2 … X10


@dataclass(frozen=True)
class Spin:
    number: int  # the number bet on
    stake_cents: int
    result: int  # where the ball landed


def multipliers_refusal(multipliers: Mapping[int, int]) -> str | None:
    """Why a wheel's map of number -> multiplier is not a Roulette-Xtra wheel, or None."""
    if not multipliers:
        return "The wheel has no number with a multiplier: set at least one."
    for number, multiplier in sorted(multipliers.items()):
        if number not in NUMBERS:
            return f"The wheel has numbers 0 to 36; {number} is not one of them."
        if multiplier not in MULTIPLIERS:
            return f"Number {number} has multiplier x{multiplier}; a multiplier is x2 to x10."
    return None


def spin_refusal(*, podium_cents: int, multipliers: Mapping[int, int], spins: Sequence[Spin], spin: Spin) -> str | None:
    """Why `spin` cannot follow `spins` (the stage page and `roulette_lines` ask the same)."""
    if len(spins) >= MAX_SPINS:
        return f"A winner has at most {MAX_SPINS} spins (FL r94): this would be spin {len(spins) + 1}."
    if spin.number not in NUMBERS:
        return f"A bet is on a number from 0 to 36, not {spin.number}."
    if spin.number not in multipliers:
        return f"Number {spin.number} has no multiplier on this wheel: bet on a number that has one."
    if spin.result not in NUMBERS:
        return f"The wheel stops on a number from 0 to 36, not {spin.result}."
    balance = roulette_balance(podium_cents=podium_cents, multipliers=multipliers, spins=spins)
    if spin.stake_cents < MIN_STAKE_CENTS:
        return f"A bet is at least {rand_cents(MIN_STAKE_CENTS)} (FL r93), not {rand_cents(spin.stake_cents)}."
    if spin.stake_cents > balance:
        return f"The winner holds {rand_cents(balance)}: a bet of {rand_cents(spin.stake_cents)} is more than that."
    return None


def roulette_balance(*, podium_cents: int, multipliers: Mapping[int, int], spins: Sequence[Spin]) -> int:
    """What the winner holds after `spins` (not re-checked: `roulette_lines` checks them)."""
    balance = podium_cents
    for spin in spins:
        balance += _won(multipliers, spin)
    return balance


def roulette_lines(*, podium_cents: int, multipliers: Mapping[int, int], spins: Sequence[Spin]) -> list[LineSpec]:
    """The winner's line when they stop after `spins` (none: they keep the podium)."""
    if podium_cents <= 0:
        raise ValueError("a podium holds a positive amount")
    if refusal := multipliers_refusal(multipliers):
        raise ValueError(refusal)
    played = []
    balance = podium_cents
    for count, spin in enumerate(spins):
        if refusal := spin_refusal(podium_cents=podium_cents, multipliers=multipliers, spins=spins[:count], spin=spin):
            raise GameRefused(refusal)
        balance += _won(multipliers, spin)
        played.append(
            {
                "number": spin.number,
                "stake_cents": spin.stake_cents,
                "result": spin.result,
                "multiplier": multipliers[spin.number],
                "balance_cents": balance,
            }
        )
    count = len(spins)
    words = (
        f"Roulette: podium {rand_cents(podium_cents)}, {count} spin{'' if count == 1 else 's'}, "
        f"stopped at {rand_cents(balance)}"
    )
    data = {"game": "roulette", "podium_cents": podium_cents, "spins": played}
    return [LineSpec(LineKind.CASH, balance, LineSource.GAME, words, data)]


def _won(multipliers: Mapping[int, int], spin: Spin) -> int:
    """A10: a hit turns the stake into stake x multiplier; a miss loses it."""
    if spin.number == spin.result:
        return spin.stake_cents * (multipliers[spin.number] - 1)
    return -spin.stake_cents
