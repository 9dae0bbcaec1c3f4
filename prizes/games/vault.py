"""Golden Horse Prive Powerplay, Thursday evening tier draws: the vault (GH r9 "Thursday midday &
evening draws", PRIZES.md A1-A4).

Three winners per tier (A1: "nine (9)… five (3) per tier"), in pick order, each put a hand into
the vault and draw one ball, never put back. The vault holds 15 balls, 14 white and 1 pink; on
the flagged last Thursdays (30 Jul, 27 Aug, 10 Sep 2026 — a per-date flag, A3) only 3 balls,
2 white and 1 pink, so one of the three certainly takes the jackpot (A2). Pink pays the tier's
jackpot for that date, white its consolation; both amounts are settings per tier per date (A4),
given here as inputs.

Pure rules: the conductor records the colours, this module refuses a sequence that cannot have
come out of the vault and says what each winner won.
"""

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from core.formats import local_date, rand_cents
from prizes.lines import GameRefused, LineKind, LineSource, LineSpec

WINNERS_PER_TIER = 3  # A1


class Ball(StrEnum):
    WHITE = "white"
    PINK = "pink"


@dataclass(frozen=True)
class VaultContents:
    white: int
    pink: int

    @property
    def balls(self) -> int:
        return self.white + self.pink


FULL_VAULT = VaultContents(white=14, pink=1)  # r9: 15 balls, fourteen white and one pink
LAST_THURSDAY_VAULT = VaultContents(white=2, pink=1)  # r9: three balls on the last Thursday (A2, A3)


def vault_for(*, last_thursday: bool) -> VaultContents:
    return LAST_THURSDAY_VAULT if last_thursday else FULL_VAULT


def ball_refusal(
    *, last_thursday: bool, drawn: Sequence[str], ball: str, winners: int = WINNERS_PER_TIER
) -> str | None:
    """Why the next winner cannot have drawn `ball` after the balls `drawn` so far (in pick
    order), or None. The stage page and `vault_lines` ask the same question."""
    if ball not in tuple(Ball):
        return f"A ball from the vault is white or pink, not {ball!r}."
    if len(drawn) >= winners:
        return f"All {winners} winners of this tier have drawn their ball: there is no ball number {len(drawn) + 1}."
    left = _left(last_thursday, drawn)
    if ball == Ball.PINK and left.pink == 0:
        return (
            f"The pink ball was already drawn by winner {list(drawn).index(Ball.PINK) + 1}: "
            "only white balls are left in the vault."
        )
    if ball == Ball.WHITE and left.white == 0:
        night = vault_for(last_thursday=last_thursday)
        return (
            f"No white ball is left in the vault ({night.white} white and {night.pink} pink tonight): "
            f"winner {len(drawn) + 1}'s ball can only be the pink one."
        )
    return None


def vault_left(*, last_thursday: bool, drawn: Sequence[str], winners: int = WINNERS_PER_TIER) -> VaultContents:
    """What is still in the vault after `drawn` (for the stage screen). Refuses an impossible
    sequence rather than show a negative count."""
    _check(last_thursday, drawn, winners=winners)
    return _left(last_thursday, drawn)


def vault_lines(
    *,
    last_thursday: bool,
    balls: Sequence[str],
    jackpot_cents: int,
    consolation_cents: int,
    tier: str,
    draw_date: dt.date,
    winners: int = WINNERS_PER_TIER,
) -> list[LineSpec]:
    """One line per ball drawn, in pick order (lines[0] is the first winner's). A part-played
    draw gives the lines of those who have drawn; an impossible sequence is refused whole."""
    _check(last_thursday, balls, winners=winners)
    size = vault_for(last_thursday=last_thursday).balls
    on = local_date(draw_date)
    lines = []
    for position, ball in enumerate(balls, start=1):
        data = {"game": "vault", "ball": str(ball), "position": position, "vault_balls": size, "tier": tier}
        if ball == Ball.PINK:
            words = f"Vault: pink ball, {tier} jackpot of {on}: {rand_cents(jackpot_cents)}"
            lines.append(LineSpec(LineKind.CASH, jackpot_cents, LineSource.JACKPOT, words, data))
        else:
            words = f"Vault: white ball, {tier} consolation of {on}: {rand_cents(consolation_cents)}"
            lines.append(LineSpec(LineKind.CASH, consolation_cents, LineSource.GAME, words, data))
    return lines


def _check(last_thursday: bool, balls: Sequence[str], *, winners: int) -> None:
    for count, ball in enumerate(balls):
        refusal = ball_refusal(last_thursday=last_thursday, drawn=balls[:count], ball=ball, winners=winners)
        if refusal:
            raise GameRefused(refusal)


def _left(last_thursday: bool, drawn: Sequence[str]) -> VaultContents:
    night = vault_for(last_thursday=last_thursday)
    pinks = sum(1 for ball in drawn if ball == Ball.PINK)
    return VaultContents(white=night.white - (len(drawn) - pinks), pink=night.pink - pinks)
