"""The "pick a slot" games: the board's slots hide prizes and each winner, in pick order, opens one.

- Reveals: Golden Horse Thursday 13h00, TEEDS Saturdays, Halfway Mark, Car Draw Day ("pick one
  reveal, which will determine how much they win"; a reveal may be a vehicle, A5); Fast Lane
  Wednesdays (r12-13, r24-25: game unstated, PRIZES.md reads reveals).
- Envelopes: Golden Horse RAPS Saturdays ("pick an envelope from the envelopes on hand").
- Podiums: Fast Lane Thursday Jack and Queen (r41: five podiums, R20,000 / R30,000 "on offer" =
  the five podiums' total, A8); Turn Up the Heat Thursday Queen (r55: a randomiser decides the
  podium; r56: R40,000 a week = the five podiums' total).
- The Fast Lane car draw's six podiums (r64-67: in pick order a randomiser places each finalist
  behind a podium; five cash, one a vehicle "valued at R362k"): `open_slots` with PODIUM.
- Prize cards: Royal Flush RAPS sessions (r13-14, r28-29: a prize card "indicating a cash value").
- Grand Finale cards: Royal Flush r70.4-70.5, the cards A K Q J 10 of a royal flush, chosen in pick
  order; "the order of the cards will not necessarily determine the size of the prize".

Each slot is opened once per draw and only a slot on the board. A declined winner gets the slot
left over once the others have chosen (PRIZES.md §1, DT r19 for all seeds; no optional gamble);
when more than one slot is left, the conductor records which one was opened for them.
"""

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from core.formats import rand_cents
from prizes.lines import GameRefused, LineKind, LineSource, LineSpec

PODIUMS = 5  # FL r41, TH r55
FL_JACK_PODIUMS_TOTAL = 2_000_000  # FL r41: R20,000 for the Jacks (A8)
FL_QUEEN_PODIUMS_TOTAL = 3_000_000  # FL r41: R30 000 for the Queens (A8)
TH_QUEEN_PODIUMS_TOTAL = 4_000_000  # TH r56: R40,000 cash
GRAND_FINALE_CARDS = ("A", "K", "Q", "J", "10")  # RF r70.5


class SlotGame(StrEnum):
    """What the slots are called on stage: the words of each line."""

    REVEAL = "Reveal"
    ENVELOPE = "Envelope"
    PODIUM = "Podium"
    PRIZE_CARD = "Prize card"
    GRAND_FINALE_CARD = "Grand Finale card"

    @property
    def noun(self) -> str:
        """Within a sentence: "podium", but "Grand Finale card" keeps its capitals."""
        return self.value if self is SlotGame.GRAND_FINALE_CARD else self.value.lower()


@dataclass(frozen=True)
class Slot:
    label: str  # as the stage shows it: "3", "A", "Pink envelope"
    amount_cents: int  # for a vehicle its stated value; 0 for a place; the count for entries
    kind: LineKind = LineKind.CASH


@dataclass(frozen=True)
class Pick:
    """One winner's turn, in pick order. A declined winner's `label` is None when the slot left
    over is theirs, or the slot the conductor opened for them when several were left."""

    winner: Hashable
    label: str | None
    declined: bool = False


def board_refusal(
    slots: Sequence[Slot],
    *,
    game: SlotGame = SlotGame.REVEAL,
    total_cents: int | None = None,
    labels: Sequence[str] | None = None,
) -> str | None:
    """Why a board cannot be played (the board form shows it), or None. Every slot has its own
    label and a whole amount; `labels`, when given, are the slots the board must have (the Grand
    Finale's A K Q J 10); a stated total (FL r41, TH r56) is what the cash slots add up to."""
    noun = game.noun
    if not slots:
        return f"The board has no {noun}s: add one for each prize."
    for slot in slots:
        if not str(slot.label).strip():
            article = "An" if noun[0] in "aeiou" else "A"
            return f"{article} {noun} has no label: name each as the stage shows it."
        if not isinstance(slot.amount_cents, int) or isinstance(slot.amount_cents, bool) or slot.amount_cents < 0:
            return f"{game.value} {slot.label} needs an amount in whole cents, not below zero."
        if slot.kind not in set(LineKind):
            return f"{game.value} {slot.label} has no kind of prize (cash, +Play, vehicle…)."
    twice = sorted(label for label, n in Counter(str(s.label) for s in slots).items() if n > 1)
    if twice:
        return f"Two {noun}s are labelled {twice[0]}: each {noun} has its own label."
    if labels is not None and sorted(str(s.label) for s in slots) != sorted(labels):
        return f"The {noun}s are {', '.join(labels)}, one each; the board has {', '.join(s.label for s in slots)}."
    if total_cents is not None:
        if any(s.kind != LineKind.CASH for s in slots):
            return f"A board with a stated total holds cash {noun}s only."
        added = sum(s.amount_cents for s in slots)
        if added != total_cents:
            return (
                f"The {len(slots)} {noun}s add up to {rand_cents(added)} but the board's total is "
                f"{rand_cents(total_cents)}: change the {noun}s so that they add up to the total."
            )
    return None


def _assign(slots: Sequence[Slot], picks: Sequence[Pick], noun: str) -> dict[Hashable, tuple[Slot, bool]]:
    """Each winner's slot and whether it was the one left over; the present winners choose first."""
    by_label = {str(slot.label): slot for slot in slots}
    if len(picks) > len(slots):
        raise GameRefused(f"{len(picks)} winners but only {len(slots)} {noun}s: each {noun} is opened once.")
    winners = Counter(pick.winner for pick in picks)
    if any(n > 1 for n in winners.values()):
        raise GameRefused(f"A winner was recorded twice: each winner opens one {noun} in this draw.")
    assigned: dict[Hashable, tuple[Slot, bool]] = {}
    taken: set[str] = set()
    for pick in picks:
        if pick.label is None:
            if not pick.declined:
                raise GameRefused(f"Record the {noun} each winner opened.")
            continue
        label = str(pick.label).strip()
        if label not in by_label:
            raise GameRefused(f"There is no {noun} {label} on this board. Check the {noun} opened.")
        if label in taken:
            raise GameRefused(f"{noun[0].upper()}{noun[1:]} {label} was already opened in this draw: each opens once.")
        taken.add(label)
        assigned[pick.winner] = (by_label[label], False)
    waiting = [pick for pick in picks if pick.label is None]
    if waiting:
        left = [slot for slot in slots if str(slot.label) not in taken]
        if len(waiting) > 1 or len(left) > 1:
            raise GameRefused(
                f"{len(left)} {noun}s are left for {len(waiting)} declined winner(s): "
                f"record which {noun} was opened for each declined winner."
            )
        assigned[waiting[0].winner] = (left[0], True)
    return {pick.winner: assigned[pick.winner] for pick in picks}


def open_slots(
    *,
    slots: Sequence[Slot],
    picks: Sequence[Pick],
    game: SlotGame = SlotGame.REVEAL,
    total_cents: int | None = None,
    labels: Sequence[str] | None = None,
) -> dict[Hashable, LineSpec]:
    """Each winner's line, in pick order, from the slot they opened (or the one left over)."""
    if problem := board_refusal(slots, game=game, total_cents=total_cents, labels=labels):
        raise GameRefused(problem)
    lines = {}
    for winner, (slot, left_over) in _assign(slots, picks, game.noun).items():
        words = f"{game.value} {slot.label}"
        if left_over:
            words += " (the one left over: the winner declined to be present)"
        lines[winner] = LineSpec(
            kind=LineKind(slot.kind),
            amount_cents=slot.amount_cents,
            source=LineSource.BOARD,
            words=words,
            data={"game": game.name.lower(), "slot": slot.label, "left_over": left_over},
        )
    return lines


def podium_lines(
    *, slots: Sequence[Slot], picks: Sequence[Pick], total_cents: int | None = None
) -> dict[Hashable, LineSpec]:
    """Fast Lane Thursday Jack/Queen (r41, A8) and Turn Up the Heat Thursday Queen (r55-56): five
    podiums adding up to the week's total."""
    if len(slots) != PODIUMS:
        raise GameRefused(f"This draw has five podiums on stage (FL r41, TH r55); the board has {len(slots)}.")
    return open_slots(slots=slots, picks=picks, game=SlotGame.PODIUM, total_cents=total_cents)


def grand_finale_lines(*, slots: Sequence[Slot], picks: Sequence[Pick]) -> dict[Hashable, LineSpec]:
    """Royal Flush Grand Finale (r70): A K Q J 10, any card any prize (rank is not size)."""
    return open_slots(slots=slots, picks=picks, game=SlotGame.GRAND_FINALE_CARD, labels=GRAND_FINALE_CARDS)
