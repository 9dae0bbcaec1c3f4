"""Turn Up the Heat's Saturday 7pm paddle (TH r112-r117, PRIZES.md §5 example 20;
prizes/games/paddle.py): in the order drawn each winner picks a paddle (2, 3 or 4), then opens
reveals one by one and may stop; the turn is over when they stop or the paddle's chances are
used. The prize is the last reveal opened, never the sum (r115, r117). Each reveal opens once a
draw (the engine's reading).
"""

from dataclasses import dataclass, field

from core.errors import DomainError
from prizes.conducting import Conducted
from prizes.games.paddle import PADDLES, PaddleTurn, paddle_lines
from prizes.games.reveals import Slot
from prizes.lines import GameRefused, LineKind, LineSpec
from prizes.models import BoardGame, PrizeBoard


def _label(slot) -> str:
    return slot.label.removeprefix("Reveal ")  # the engine says "Reveal 7"


@dataclass
class _Turn:
    paddle: int | None = None
    opened: list[str] = field(default_factory=list)
    stopped: bool = False

    def over(self) -> bool:
        return self.paddle is not None and (self.stopped or len(self.opened) >= self.paddle)


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    if raw.get("stop"):
        return {"stop": True}
    if paddle := str(raw.get("paddle") or "").strip():
        if paddle not in {str(n) for n in PADDLES}:
            raise DomainError(f"There is no paddle {paddle}: the paddles hold 2, 3 or 4 (TH r113).", code="bad_paddle")
        return {"paddle": int(paddle)}
    if reveal := str(raw.get("reveal") or "").strip():
        return {"reveal": reveal}
    raise DomainError("Choose the paddle picked or the reveal opened.", code="event_blank")


def _turns(events: list[dict]) -> dict[int, _Turn]:
    turns: dict[int, _Turn] = {}
    for event in events:
        turn = turns.setdefault(event["pick"], _Turn())
        if "paddle" in event:
            turn.paddle = event["paddle"]
        elif "reveal" in event:
            turn.opened.append(event["reveal"])
        elif event.get("stop"):
            turn.stopped = True
    return turns


def turn_refusal(events: list[dict], pick) -> str | None:
    if _turns(events).get(pick.pk, _Turn()).over():
        return f"Pick {pick.k}'s turn is over: the last reveal opened is the prize (TH r115)."
    return None


def waiting(events: list[dict], winners: list):
    turns = _turns(events)
    return next((p for p in winners if not turns.get(p.pk, _Turn()).over()), None)


def _sequence_refusal(events: list[dict], winners: list) -> str | None:
    """What the order of the events cannot be: a paddle first, one paddle, stop after a reveal,
    the winners one after the other in pick order (r113)."""
    order = [p.pk for p in winners]
    k = {p.pk: p.k for p in winners}
    turns: dict[int, _Turn] = {}
    for event in events:
        pick = event["pick"]
        turn = turns.setdefault(pick, _Turn())
        before = order[: order.index(pick)] if pick in order else []
        earlier = next((p for p in before if not turns.get(p, _Turn()).over()), None)
        if earlier is not None:
            return f"Pick {k[earlier]} plays first: the winners come on stage in the order they were drawn (TH r113)."
        if "paddle" in event:
            if turn.paddle is not None:
                return f"Pick {k[pick]} already picked paddle {turn.paddle}."
            turn.paddle = event["paddle"]
        elif turn.paddle is None:
            return f"Pick {k[pick]} picks a paddle first (TH r113)."
        elif "reveal" in event:
            turn.opened.append(event["reveal"])
        elif not turn.opened:
            return "Open a reveal before stopping: the last reveal opened is the prize (TH r115)."
        else:
            turn.stopped = True
    return None


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    if problem := _sequence_refusal(events, winners):
        raise GameRefused(problem)
    slots = [Slot(_label(s), s.amount_cents or 0, LineKind(s.kind)) for s in board.slots.all() if not s.every_winner]
    turns = _turns(events)
    played = [PaddleTurn(p.pk, turns[p.pk].paddle, turns[p.pk].opened) for p in winners if p.pk in turns]
    specs = paddle_lines(slots=slots, turns=[t for t in played if t.opened])
    return {pick_id: [spec] for pick_id, spec in specs.items()}


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    opened = {e["reveal"] for e in events if "reveal" in e}
    labels = [_label(s) for s in board.slots.all() if not s.every_winner]
    return {"choices": [label for label in labels if label not in opened], "paddles": PADDLES}


def turn_words(event: dict) -> str:
    if "paddle" in event:
        return f"paddle {event['paddle']}"
    if "reveal" in event:
        return f"opened reveal {event['reveal']}"
    return "stopped"


CONDUCTED = Conducted(
    games=frozenset({BoardGame.PADDLE}),
    template="prizes/conducting/_paddle.html",
    event_clean=event_clean,
    turn_refusal=turn_refusal,
    waiting=waiting,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
)
