"""Fast Lane Saturday 7pm Roulette-Xtra (FL r86-r94, A10): the winner's card opens a podium
(r90), then up to 10 spins (r94), each a stake of at least R200 from what the winner holds (r93)
on a number of the wheel, and where the ball landed; the winner stops when they like and takes
what they hold (prizes/games/roulette.py computes it and refuses what cannot happen).

Events of one winner, in order: {"slot": "3"}, then {"number", "stake_cents", "result"} per spin,
then {"stop": True} (ten spins end the turn by themselves)."""

from django import forms

from core.errors import DomainError
from core.formats import rand_cents
from prizes.conducting import Conducted
from prizes.conducting.podium_first import (
    blank,
    declined,
    events_of,
    podium_choices,
    podium_clean,
    podium_label,
    podium_slots,
    podiums,
)
from prizes.forms import RandField
from prizes.games import roulette
from prizes.lines import GameRefused, LineSpec
from prizes.models import ROULETTE_NUMBERS, BoardGame, PrizeBoard


def multipliers(board: PrizeBoard) -> dict[int, int]:
    """The wheel's map number -> multiplier (r91; the seed gives none: the board's settings, A10)."""
    return {n: int(m) for n in ROULETTE_NUMBERS if (m := board.setting(f"multiplier_{n}")) is not None}


def _number(raw: dict, key: str, words: str) -> int:
    text = str(raw.get(key) or "").strip()
    if not text:
        raise blank(f"Type {words}: a number from 0 to 36.")
    if not text.isdigit():
        said = f"{words[0].upper()}{words[1:]}"
        raise DomainError(f"{said} is a number from 0 to 36, not {text}.", code="event_unreadable")
    return int(text)


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    if podium := podium_clean(raw):
        return podium
    if raw.get("stop"):
        return {"stop": True}
    if not any(str(raw.get(key) or "").strip() for key in ("number", "stake", "result")):
        raise blank("Choose the podium opened, or record the spin: the number bet on, the stake and the result.")
    number = _number(raw, "number", "the number bet on")
    try:
        stake = RandField().clean(raw.get("stake"))
    except forms.ValidationError as error:
        raise DomainError(error.messages[0], code="event_unreadable") from None
    if stake is None:
        raise blank("Type the stake in rand: at least R200 (FL r93).")
    result = _number(raw, "result", "where the ball landed")
    return {"number": number, "stake_cents": stake, "result": result}


def _spins(mine: list[dict]) -> list[roulette.Spin]:
    return [roulette.Spin(e["number"], e["stake_cents"], e["result"]) for e in mine if "number" in e]


def turn_refusal(events: list[dict], pick) -> str | None:
    mine = events_of(events, pick)
    if any(e.get("stop") for e in mine):
        return f"Pick {pick.k} has stopped: their prize is what they hold."
    if len(_spins(mine)) >= roulette.MAX_SPINS:
        return f"A winner has at most {roulette.MAX_SPINS} spins (FL r94): pick {pick.k} has had {roulette.MAX_SPINS}."
    return None


def waiting(events: list[dict], winners: list):
    """The first winner still playing: no podium yet, or neither stopped nor out of spins."""
    for pick in winners:
        mine = events_of(events, pick)
        if not mine and not declined(pick):
            return pick
        if mine and not declined(pick) and turn_refusal(events, pick) is None:
            return pick
    return None


def _board_refusal(board: PrizeBoard, spins: list[roulette.Spin], pick) -> str | None:
    """The board's own limits, where a manager set them stricter than the seed's."""
    most, least = board.setting("max_spins"), board.setting("min_stake_cents")
    if most is not None and len(spins) > int(most):
        return f"This board allows {most} spins a winner: pick {pick.k} would have {len(spins)}."
    for spin in spins:
        if least is not None and spin.stake_cents < int(least):
            return f"A bet on this board is at least {rand_cents(int(least))}, not {rand_cents(spin.stake_cents)}."
    return None


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    opened = podiums(board, events, winners, final)
    wheel = multipliers(board)
    result = {}
    for pick in winners:
        if pick.pk not in opened:
            continue
        podium, spins = opened[pick.pk], _spins(events_of(events, pick))
        [line] = roulette.roulette_lines(podium_cents=podium.amount_cents, multipliers=wheel, spins=spins)
        if refusal := _board_refusal(board, spins, pick):  # after the seed's own rules (r93, r94)
            raise GameRefused(refusal)
        data = {**line.data, "podium": podium.data["slot"]}
        result[pick.pk] = [LineSpec(line.kind, line.amount_cents, line.source, line.words, data)]
    return result


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    """The podiums still closed, the wheel's numbers with their multipliers, and what each
    winner holds after their spins so far."""
    wheel = multipliers(board)
    amounts = {podium_label(s): s.amount_cents or 0 for s in podium_slots(board)}
    holding = []
    for pick_id in dict.fromkeys(e["pick"] for e in events):
        mine = [e for e in events if e["pick"] == pick_id]
        spins = _spins(mine)
        podium = amounts.get(mine[0].get("slot"), 0)
        balance = roulette.roulette_balance(podium_cents=podium, multipliers=wheel, spins=spins)
        holding.append({"pick": pick_id, "balance": balance, "spins": len(spins)})
    return {
        "choices": podium_choices(board, events),
        "numbers": sorted(wheel.items()),
        "wheel": list(ROULETTE_NUMBERS),
        "holding": holding,
        "max_spins": roulette.MAX_SPINS,
    }


def turn_words(event: dict) -> str:
    if "slot" in event:
        return f"podium {event['slot']}"
    if event.get("stop"):
        return "stopped"
    return f"{rand_cents(event['stake_cents'])} on {event['number']}, the ball on {event['result']}"


CONDUCTED = Conducted(
    games=frozenset({BoardGame.ROULETTE}),
    template="prizes/conducting/_roulette.html",
    event_clean=event_clean,
    turn_refusal=turn_refusal,
    waiting=waiting,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
)
