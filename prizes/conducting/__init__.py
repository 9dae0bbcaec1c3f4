"""How each stage game is conducted from the draw's run page: one `Conducted` per game, in its
own module here, registered in `GAMES` below (prizes/conduct.py does the locking, the storing
and the audit for every game alike).

A play is one per draw and board: its `events` are what the conductor recorded, in order, each
naming the pick it belongs to (or none, for what belongs to the whole game: Best Hand's
community cards). The adapter
- `event_clean(board, raw, pick)`: the POSTed fields → one event (DomainError when blank or
  unreadable; the engine judges whether it could have happened);
- `turn_refusal(events, pick)`: why this pick may not record another event now (its turn is
  over), or None;
- `waiting(events, winners)`: the first winner whose turns are not all recorded, else None
  (Finish waits for them);
- `lines(draw, board, events, winners, final)`: each winner's LineSpecs by pick id; GameRefused
  when the events cannot have happened (called on every new event, and with `final` at Finish);
- `controls(board, events)`: the context its template needs (slots still closed, balls left…);
- `turn_words(event)`: the event in words, for the run page and the stage screen;
- `progressive(draw, pick)` (optional): the jackpot a JACKPOT line of this winner is paid from
  (default: the series' progressive, if any);
- `after_finish(actor, draw, board, events)` (optional): what the game does once its lines are
  stored, in Finish's transaction (the safe and the progressive reveal grow when not won);
- `template`: the controls of one winner's row (`templates/prizes/conducting/_<game>.html`),
  posting its fields to `prizes:game_event` with the pick.
"""

from collections.abc import Callable
from dataclasses import dataclass

from prizes.models import BoardGame


@dataclass(frozen=True)
class Conducted:
    games: frozenset[str]
    template: str
    event_clean: Callable
    turn_refusal: Callable
    waiting: Callable
    lines: Callable
    controls: Callable
    turn_words: Callable
    progressive: Callable | None = None
    after_finish: Callable | None = None


def one_turn_each(events: list[dict], pick) -> str | None:
    """For games of one event per winner (a slot opened, a ball drawn)."""
    if any(e.get("pick") == pick.pk for e in events):
        return f"Pick {pick.k}'s turn is already recorded."
    return None


def first_without_turn(events: list[dict], winners: list, *, skip=lambda pick: False):
    played = {e.get("pick") for e in events}
    return next((p for p in winners if p.pk not in played and not skip(p)), None)


def _registry() -> dict[str, Conducted]:
    from prizes.conducting import (
        best_hand,
        by_order,
        card_scores,
        paddle,
        roll_into_riches,
        roulette,
        safe,
        share_out,
        slots,
        symbol_boxes,
        vault,
    )

    games: dict[str, Conducted] = {}
    for conducted in (
        slots.CONDUCTED,
        by_order.CONDUCTED,
        vault.CONDUCTED,
        card_scores.CONDUCTED,
        best_hand.CONDUCTED,
        paddle.CONDUCTED,
        roulette.CONDUCTED,
        roll_into_riches.CONDUCTED,
        safe.CONDUCTED,
        symbol_boxes.CONDUCTED,
        share_out.CONDUCTED,
    ):
        games.update(dict.fromkeys(conducted.games, conducted))
    return games


GAMES: dict[str, Conducted] = _registry()


def conducted(game: str) -> Conducted | None:
    return GAMES.get(game)


__all__ = ["GAMES", "BoardGame", "Conducted", "conducted", "first_without_turn", "one_turn_each"]
