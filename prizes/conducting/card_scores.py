"""Emnotweni DayTime PlayTime's cards (DT r10.1, r18-r20, PRIZES.md A21; prizes/games/card_scores.py):
once the three finalists are drawn, each card's score is recorded in the order they choose: the
present finalists in pick order, a lone declined finalist's card last (the one left over, r19).
With two or more declined, an audience stand-in chooses for each of them in pick order (r18): the
stand-in is named (on the pick when the outcome was recorded, or here) and wins nothing (r20).
"""

from core.errors import DomainError
from draws.models import DrawPick, PickOutcome
from prizes.conducting import Conducted, first_without_turn, one_turn_each
from prizes.games.card_scores import FINALISTS, CardTurn, ChosenBy, card_score_lines, choosing_order
from prizes.lines import GameRefused, LineSpec
from prizes.models import BoardGame, PrizeBoard


def _declined(pick) -> bool:
    return pick.outcome == PickOutcome.DECLINED


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    text = str(raw.get("score") or "").strip()
    if not text:
        raise DomainError("Write the score on the card.", code="event_blank")
    try:
        score = int(text)
    except ValueError:
        words = f"“{text}” is not a card score: write it as a whole number."
        raise DomainError(words, code="event_unreadable") from None
    event: dict = {"score": score}
    if _declined(pick):
        declined = DrawPick.objects.filter(draw_id=pick.draw_id, outcome=PickOutcome.DECLINED).count()
        if declined > 1:
            stand_in = str(raw.get("stand_in") or "").strip() or pick.stand_in_name
            if not stand_in:
                raise DomainError(
                    f"Pick {pick.k} declined, as did another finalist: name the person from the audience who "
                    "chooses the card for them (r18).",
                    code="stand_in_required",
                )
            event["stand_in"] = stand_in
        else:
            event["left_over"] = True
    return event


def _turns(events: list[dict], winners: list) -> list[CardTurn]:
    scores = {e["pick"]: e["score"] for e in events}
    return [CardTurn(p.pk, scores.get(p.pk, 0), declined=_declined(p)) for p in winners]


def _order_refusal(events: list[dict], winners: list) -> None:
    """The cards are chosen in the order of choosing_order: refuse a score recorded out of it."""
    if len(winners) < FINALISTS:
        raise GameRefused("The finalists choose their cards once all three are drawn (r10.1).")
    by_pk = {p.pk: p for p in winners}
    order = [winner for winner, _ in choosing_order(_turns(events, winners))]
    for position, event in enumerate(events):
        expected = order[position] if position < len(order) else None
        if event["pick"] == expected:
            continue
        pick = by_pk.get(event["pick"])
        due = by_pk.get(expected) if expected is not None else None
        if pick is not None and _declined(pick) and sum(map(_declined, winners)) == 1:
            raise GameRefused(
                f"Pick {pick.k} declined to be present: their card is the one left over once the others have "
                "chosen (r19). Record the others' cards first."
            )
        if due is not None:
            raise GameRefused(f"Pick {due.k} chooses first: the finalists choose in the order they were drawn (r10.1).")
        raise GameRefused("Each finalist receives one card.")


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    _order_refusal(events, winners)
    scores = [e["score"] for e in events]
    tied = sorted({s for s in scores if scores.count(s) > 1})
    if tied:
        raise GameRefused(f"Two cards have the score {tied[0]}: each card's score is different (A21). Check the cards.")
    if len(events) < len(winners):
        return {}  # the prizes are known once every card is recorded
    amounts = [slot.amount_cents for slot in board.slots.all() if not slot.every_winner]
    specs = card_score_lines(turns=_turns(events, winners), amounts=amounts)
    stand_ins = {e["pick"]: e["stand_in"] for e in events if e.get("stand_in")}
    out = {}
    for pick_id, spec in specs.items():
        if spec.data["chosen_by"] == ChosenBy.STAND_IN and pick_id in stand_ins:
            data = {**spec.data, "stand_in": stand_ins[pick_id]}  # named on the record, paid nothing (r20)
            spec = LineSpec(spec.kind, spec.amount_cents, spec.source, spec.words, data)
        out[pick_id] = [spec]
    return out


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    return {}


def turn_words(event: dict) -> str:
    if event.get("stand_in"):
        return f"card score {event['score']}, chosen by {event['stand_in']} from the audience"
    if event.get("left_over"):
        return f"card score {event['score']}, the card left over"
    return f"card score {event['score']}"


CONDUCTED = Conducted(
    games=frozenset({BoardGame.CARD_SCORE}),
    template="prizes/conducting/_card_scores.html",
    event_clean=event_clean,
    turn_refusal=one_turn_each,
    waiting=first_without_turn,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
)
