"""Turn Up the Heat, Saturday 9pm: the digit safe (TH r120-r126, PRIZES.md A17), and the
21h30 share-out of Saturday 20 December 2025 (TH r135-r141, A18).

9pm: five winners (r120) each choose a randomiser that gives a podium of R5,000 to R10,000
(r123-r124; the board's amounts, inputs here). A winner may forfeit R2,000 of it to try to crack
the safe (r125: the board's setting, `forfeit_cents`, R2,000 by default); one who cracks it takes
podium - forfeit + the safe's value.

The safe's value (r126: "Base value of R100,000 and increase by R20,000 per cash draw if not
won"), read as A17: R100,000, plus R20,000 for each Saturday 9pm draw that closes with the safe
uncracked, whether anyone tried or not; after a crack it is R100,000 again from the next 9pm
draw; one crack a draw (once cracked, the safe is empty until the next 9pm draw).

21h30 on 20 Dec (r135): only if the safe was never cracked during the promotion, five winners
(r138) share equally the money in the safe ("vault" in r135 is the safe, A18). A18's setting
says whether that includes the increment of 20 Dec's own 9pm draw (default) or is the safe's
value at that draw.

Pure rules: the stored progressive and its audited entries are another module's.
"""

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from core.formats import local_date, rand_cents
from prizes.lines import GameRefused, LineKind, LineSource, LineSpec

SAFE_BASE_CENTS = 10_000_000  # r126: R100,000
SAFE_INCREMENT_CENTS = 2_000_000  # r126: R20,000 (A17: per 9pm draw closing uncracked)
FORFEIT_CENTS = 200_000  # r125: R2,000, the board's default
PODIUM_MIN_CENTS = 500_000  # r124: R5,000
PODIUM_MAX_CENTS = 1_000_000  # r124: R10,000
NINE_PM_WINNERS = 5  # r120
SHARE_OUT_WINNERS = 5  # r135, r138


@dataclass(frozen=True)
class NinePm:
    """A Saturday 9pm draw that has closed, and whether the safe was cracked in it."""

    on: dt.date
    cracked: bool


@dataclass(frozen=True)
class Attempt:
    """One 9pm winner's game, as the conductor recorded it."""

    podium_cents: int
    tried: bool = False  # forfeited R2,000 to try the safe
    cracked: bool = False


@dataclass(frozen=True)
class NinePmOutcome:
    lines: tuple[tuple[LineSpec, ...], ...]  # each winner's lines, in pick order
    cracked: bool
    next_safe_cents: int  # the safe's value for the next 9pm draw once this one closes


def safe_value(*, closed: Sequence[NinePm]) -> int:
    """The safe's value at the next 9pm draw after the 9pm draws `closed`, in date order (A17)."""
    value = SAFE_BASE_CENTS
    for draw in closed:
        value = SAFE_BASE_CENTS if draw.cracked else value + SAFE_INCREMENT_CENTS
    return value


def attempt_refusal(*, attempts: Sequence[Attempt], attempt: Attempt, forfeit_cents: int = FORFEIT_CENTS) -> str | None:
    """Why `attempt` cannot follow the draw's `attempts` so far, or None (the stage page and
    `safe_draw` ask the same)."""
    if len(attempts) >= NINE_PM_WINNERS:
        return f"The 9pm draw has {NINE_PM_WINNERS} winners (TH r120): there is no winner {len(attempts) + 1}."
    if not PODIUM_MIN_CENTS <= attempt.podium_cents <= PODIUM_MAX_CENTS:
        return (
            f"A 9pm podium holds {rand_cents(PODIUM_MIN_CENTS)} to {rand_cents(PODIUM_MAX_CENTS)} (TH r124), "
            f"not {rand_cents(attempt.podium_cents)}."
        )
    if attempt.cracked and not attempt.tried:
        return f"Only a winner who forfeits {rand_cents(forfeit_cents)} to try the safe can crack it."
    if attempt.tried and forfeit_cents > attempt.podium_cents:
        return (
            f"Trying the safe forfeits {rand_cents(forfeit_cents)}, more than the podium's "
            f"{rand_cents(attempt.podium_cents)}: check the board's forfeit."
        )
    if attempt.tried:
        for position, earlier in enumerate(attempts, start=1):
            if earlier.cracked:
                return (
                    f"Winner {position} cracked the safe tonight: it is empty until next Saturday's 9pm draw, "
                    "so no one else may try it."
                )
    return None


def safe_draw(*, safe_cents: int, attempts: Sequence[Attempt], forfeit_cents: int = FORFEIT_CENTS) -> NinePmOutcome:
    """The 9pm draw's lines for the winners who have played so far, and the safe after it;
    `forfeit_cents` is what trying the safe costs (the board's setting, r125)."""
    lines = []
    for count, attempt in enumerate(attempts):
        if refusal := attempt_refusal(attempts=attempts[:count], attempt=attempt, forfeit_cents=forfeit_cents):
            raise GameRefused(refusal)
        lines.append(tuple(_attempt_lines(attempt, safe_cents, forfeit_cents)))
    cracked = any(attempt.cracked for attempt in attempts)
    after = SAFE_BASE_CENTS if cracked else safe_cents + SAFE_INCREMENT_CENTS
    return NinePmOutcome(tuple(lines), cracked=cracked, next_safe_cents=after)


def share_out_lines(*, closed: Sequence[NinePm], on: dt.date, includes_last_increment: bool = True) -> list[LineSpec]:
    """The five 21h30 winners' equal shares (r135, A18). `closed` are all the promotion's 9pm
    draws, 20 Dec's last."""
    for draw in closed:
        if draw.cracked:
            raise GameRefused(f"The safe was cracked on {local_date(draw.on)}: there is no 21h30 share-out (TH r135).")
    pot = safe_value(closed=closed if includes_last_increment else closed[:-1])
    share, spare = divmod(pot, SHARE_OUT_WINNERS)  # spare cents, if ever, to the earliest picks
    lines = []
    for position in range(1, SHARE_OUT_WINNERS + 1):
        amount = share + (1 if position <= spare else 0)
        words = f"Safe share-out, 21h30 {local_date(on)}: one fifth of {rand_cents(pot)}, {rand_cents(amount)}"
        data = {
            "game": "safe_share_out",
            "pot_cents": pot,
            "position": position,
            "includes_last_increment": includes_last_increment,
        }
        lines.append(LineSpec(LineKind.CASH, amount, LineSource.SHARE_OUT, words, data))
    return lines


def _attempt_lines(attempt: Attempt, safe_cents: int, forfeit_cents: int) -> list[LineSpec]:
    podium = attempt.podium_cents
    data = {"game": "safe", "podium_cents": podium, "tried": attempt.tried, "cracked": attempt.cracked}
    if not attempt.tried:
        words = f"9pm podium: {rand_cents(podium)}, no safe attempt"
        return [LineSpec(LineKind.CASH, podium, LineSource.BOARD, words, data)]
    data["forfeit_cents"] = forfeit_cents
    kept = podium - forfeit_cents
    words = f"9pm podium {rand_cents(podium)} less {rand_cents(forfeit_cents)} to try the safe: {rand_cents(kept)}"
    if not attempt.cracked:
        return [LineSpec(LineKind.CASH, kept, LineSource.GAME, f"{words}, not cracked", data)]
    safe_words = f"Safe cracked: {rand_cents(safe_cents)}"
    return [
        LineSpec(LineKind.CASH, kept, LineSource.GAME, words, data),
        LineSpec(LineKind.CASH, safe_cents, LineSource.JACKPOT, safe_words, data | {"safe_cents": safe_cents}),
    ]
