"""Turn Up the Heat, Saturday 7pm Cash draw: the paddle (TH r112-r117, PRIZES.md §5 example 20).

Five winners (r112), in the order drawn, each pick a paddle holding 2, 3 or 4 (r113): the number
of prize reveals they may open of the 25 on stage (r114, r116; amounts cfg). A winner may stop at
any point (r115); the prize is the last reveal opened (r115), never the sum (r117 "Prizes will
not add up").

The seed does not say whether a reveal opened by one winner is closed again for the next: here
each reveal is opened once per draw (5 winners x 4 at most = 20 of 25 fits), as on the other
boards; `board_per_winner=True` gives each winner the full board instead.
"""

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from prizes.games.reveals import Slot, SlotGame, board_refusal
from prizes.lines import GameRefused, LineKind, LineSource, LineSpec

PADDLES = (2, 3, 4)  # TH r113
REVEALS = 25  # TH r116


@dataclass(frozen=True)
class PaddleTurn:
    winner: Hashable
    paddle: int
    opened: Sequence[str]  # the reveals' labels, in the order the winner opened them


def _check_turn(turn: PaddleTurn, by_label: dict[str, Slot], taken: set[str]) -> list[str]:
    if turn.paddle not in PADDLES:
        raise GameRefused(f"There is no paddle {turn.paddle}: the paddles hold 2, 3 or 4 (TH r113).")
    opened = [str(label).strip() for label in turn.opened]
    if not opened:
        raise GameRefused("Record the reveals the winner opened: at least one, the last is the prize.")
    if len(opened) > turn.paddle:
        raise GameRefused(
            f"Paddle {turn.paddle} gives {turn.paddle} chances (TH r114); {len(opened)} reveals were recorded."
        )
    for label in opened:
        if label not in by_label:
            raise GameRefused(f"There is no reveal {label} on this board. Check the reveal opened.")
        if label in taken:
            raise GameRefused(f"Reveal {label} was already opened in this draw: each opens once.")
        taken.add(label)
    return opened


def paddle_lines(
    *, slots: Sequence[Slot], turns: Sequence[PaddleTurn], board_per_winner: bool = False
) -> dict[Hashable, LineSpec]:
    """Each winner's line, in pick order: the last reveal they opened (r115, r117)."""
    if problem := board_refusal(slots, game=SlotGame.REVEAL):
        raise GameRefused(problem)
    if len(slots) != REVEALS:
        raise GameRefused(f"The 7pm draw has 25 prize reveals on stage (TH r116); the board has {len(slots)}.")
    if any(n > 1 for n in Counter(turn.winner for turn in turns).values()):
        raise GameRefused("A winner was recorded twice: each winner plays the paddle once in this draw.")
    by_label = {str(slot.label): slot for slot in slots}
    taken: set[str] = set()
    lines = {}
    for turn in turns:
        opened = _check_turn(turn, by_label, set() if board_per_winner else taken)
        last = by_label[opened[-1]]
        lines[turn.winner] = LineSpec(
            kind=LineKind(last.kind),
            amount_cents=last.amount_cents,
            source=LineSource.BOARD,
            words=f"Reveal {last.label}, the last of {len(opened)} opened with paddle {turn.paddle}",
            data={"game": "paddle", "paddle": turn.paddle, "opened": opened, "slot": last.label},
        )
    return lines
