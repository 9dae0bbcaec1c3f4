"""Turn Up the Heat, Saturday 3pm: the bonus feature's symbol boxes (TH r102-r107, PRIZES.md A19).

Six winners choose randomisers in pick order (r103): four podiums pay cash (the board's), two
unlock the bonus feature, each with its own symbol (r104). The two open the 12 boxes on stage
(r106) one at a time, alternately, the earlier pick first (r105). The first to see all three of
their own symbols wins the R10,000 jackpot, the other R7,500 (r105). A19: the boxes hide 3 of
each symbol and 6 blanks (the number of boxes and of blanks are the board's settings); a symbol
counts for its owner whoever opens it (else the game could deadlock). If one declines the game,
they get R5,000 and the other R10,000; if both decline, R5,000 each (r107); an absent bonus
winner gets R5,000, as one who declines (A19). The three amounts are the board's Bonus slots
(`BonusAmounts`); the seed's are the defaults.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from core.formats import rand_cents
from prizes.lines import GameRefused, LineKind, LineSource, LineSpec

BOXES = 12  # r106
SYMBOLS_TO_WIN = 3  # r105: "all three of their winning symbols"
JACKPOT_CENTS = 1_000_000  # r105: R10,000
RUNNER_UP_CENTS = 750_000  # r105: R7,500
DECLINED_CENTS = 500_000  # r107: R5,000
BONUS_SYMBOLS = 2  # r104: two bonus winners, each with a symbol


@dataclass(frozen=True)
class BonusAmounts:
    """What the bonus game pays (the board's Bonus slots): the first to all three symbols, or
    the one who plays while the other declines (r105, r107); the runner-up (r105); one who
    declines or is absent (r107, A19)."""

    first: int = JACKPOT_CENTS
    runner_up: int = RUNNER_UP_CENTS
    declined: int = DECLINED_CENTS


def boxes_refusal(*, boxes: int, blank_boxes: int) -> str | None:
    """Why a board's boxes and blanks cannot be laid out (3 of each of the 2 symbols, the rest
    blank: A19), or None."""
    symbols = BONUS_SYMBOLS * SYMBOLS_TO_WIN
    if boxes != symbols + blank_boxes:
        return (
            f"The boxes hide {SYMBOLS_TO_WIN} of each of the {BONUS_SYMBOLS} bonus symbols and the blanks (A19): "
            f"{blank_boxes} blank boxes make {symbols + blank_boxes} boxes, not {boxes}."
        )
    return None


@dataclass(frozen=True)
class BonusWinner:
    pick: int  # the winner's place in pick order: the lower opens first
    symbol: str
    declined: bool = False  # refused the game (r107)
    absent: bool = False  # not on stage for the game (A19): paid as one who declines


def layout_refusal(*, layout: Sequence[str | None], symbols: Sequence[str], boxes: int = BOXES) -> str | None:
    """Why a layout (box 1 first; a symbol, or None for a blank) is not one of `boxes` boxes
    with 3 of each bonus symbol and blanks, or None."""
    if len(layout) != boxes:
        return f"There are {boxes} boxes on stage (TH r106), not {len(layout)}."
    if len(set(symbols)) != len(symbols):
        return "The two bonus podiums need different symbols."
    for symbol in symbols:
        if layout.count(symbol) != SYMBOLS_TO_WIN:
            return f"The boxes hide {SYMBOLS_TO_WIN} {symbol} symbols, not {layout.count(symbol)}."
    strays = {box for box in layout if box is not None and box not in symbols}
    if strays:
        return f"The boxes hide only the two bonus symbols and blanks, not {', '.join(sorted(strays))}."
    return None


def next_opener(*, winners: Sequence[BonusWinner], opened: Sequence[tuple[int, int]]) -> int:
    """The pick of the winner whose turn it is: alternately, the earlier pick first (r105)."""
    order = sorted(winner.pick for winner in winners)
    return order[len(opened) % 2]


def symbols_found(*, winners: Sequence[BonusWinner], layout: Sequence[str | None], opened: Sequence[tuple[int, int]]):
    """Each winner's own symbols seen so far, by pick — whoever opened the box (A19)."""
    seen = [layout[box - 1] for _, box in opened]
    return {winner.pick: seen.count(winner.symbol) for winner in winners}


def opening_refusal(
    *,
    winners: Sequence[BonusWinner],
    layout: Sequence[str | None],
    opened: Sequence[tuple[int, int]],
    opening: tuple[int, int],
) -> str | None:
    """Why `opening` (pick, box number 1-12) cannot follow `opened`, or None (the stage page
    and `symbol_boxes_lines` ask the same)."""
    pick, box = opening
    if any(winner.declined or winner.absent for winner in winners):
        return "A bonus winner declined or is absent: no box is opened, the prizes follow from r107."
    if _finisher(winners, layout, opened) is not None:
        return "The bonus game is over: a winner has all three symbols."
    if box not in range(1, len(layout) + 1):
        return f"The boxes are numbered 1 to {len(layout)}, not {box}."
    if box in {done for _, done in opened}:
        return f"Box {box} is already open: choose another box."
    turn = next_opener(winners=winners, opened=opened)
    if pick != turn:
        return f"It is the turn of the winner of pick {turn} to open a box, not of pick {pick}."
    return None


def symbol_boxes_lines(
    *,
    winners: Sequence[BonusWinner],
    layout: Sequence[str | None],
    opened: Sequence[tuple[int, int]],
    boxes: int = BOXES,
    amounts: BonusAmounts = BonusAmounts(),
) -> list[LineSpec]:
    """The two bonus winners' lines, in the order of `winners`: `amounts` are the board's."""
    if len(winners) != 2 or len({winner.pick for winner in winners}) != 2:
        raise ValueError("the bonus feature has two winners with different picks")
    if refusal := layout_refusal(layout=layout, symbols=[winner.symbol for winner in winners], boxes=boxes):
        raise ValueError(refusal)
    out = [winner for winner in winners if winner.declined or winner.absent]
    if out:
        if opened:
            raise GameRefused("A bonus winner declined or is absent: no box is opened, the prizes follow from r107.")
        return [_declined_line(winner, amounts) for winner in winners]
    for count, opening in enumerate(opened):
        if refusal := opening_refusal(winners=winners, layout=layout, opened=opened[:count], opening=opening):
            raise GameRefused(refusal)
    first = _finisher(winners, layout, opened)
    if first is None:
        raise GameRefused("The bonus game is not finished: neither winner has all three symbols yet.")
    data = {"game": "symbol_boxes", "opened": [list(opening) for opening in opened]}
    lines = []
    for winner in winners:
        mine = {"pick": winner.pick, "symbol": winner.symbol}
        if winner.pick == first:
            words = f"Bonus boxes: first to all three {winner.symbol} symbols, {rand_cents(amounts.first)}"
            lines.append(LineSpec(LineKind.CASH, amounts.first, LineSource.GAME, words, data | mine))
        else:
            words = f"Bonus boxes: runner-up, {rand_cents(amounts.runner_up)}"
            lines.append(LineSpec(LineKind.CASH, amounts.runner_up, LineSource.GAME, words, data | mine))
    return lines


def _finisher(
    winners: Sequence[BonusWinner], layout: Sequence[str | None], opened: Sequence[tuple[int, int]]
) -> int | None:
    """The pick of the first winner to see all three own symbols, or None. One box shows one
    symbol, so two can never finish on the same box."""
    seen = {winner.pick: 0 for winner in winners}
    for _, box in opened:
        for winner in winners:
            if layout[box - 1] == winner.symbol:
                seen[winner.pick] += 1
                if seen[winner.pick] == SYMBOLS_TO_WIN:
                    return winner.pick
    return None


def _declined_line(winner: BonusWinner, amounts: BonusAmounts) -> LineSpec:
    """r107: one who declines (or is absent, A19) gets R5,000; one who plays while the other
    declines gets the jackpot without opening a box."""
    data = {"game": "symbol_boxes", "pick": winner.pick, "symbol": winner.symbol}
    if winner.declined or winner.absent:
        why = "declined the game" if winner.declined else "absent for the game"
        data |= {"declined": winner.declined, "absent": winner.absent}
        words = f"Bonus boxes: {why}, {rand_cents(amounts.declined)}"
        return LineSpec(LineKind.CASH, amounts.declined, LineSource.GAME, words, data)
    words = f"Bonus boxes: the other bonus winner did not play, the jackpot {rand_cents(amounts.first)}"
    return LineSpec(LineKind.CASH, amounts.first, LineSource.GAME, words, data)
