"""Fast Lane Saturday 9pm Roll into Riches (FL r95-r108, A11): one by one (r102) each winner
chooses a randomiser that gives one of the five reveals (r103); they keep it, or forfeit it
(r104-r105) and roll the die once (r106, A11), then open one reveal of the die's zone on the
20-reveal board (r108). Reveal 19 is the series' progressive (r107): conduct pays it from the
progressive, which then goes back to its base (A11); a draw that closes without it won grows it
by its increment (R0 until a manager sets one, A11).

Events of one winner, in order: {"randomiser": 3}, {"choice": "keep" | "forfeit"}, then after
a forfeit {"die": 6} and {"reveal": 19}. Reading of r98 ("Five winners they will win from 5
reveals"): each randomiser gives its reveal once a draw, as the podiums of the other games."""

import re

from core.errors import DomainError
from prizes.conducting import Conducted
from prizes.conducting.podium_first import blank, declined, events_of
from prizes.games import roll_into_riches as rir
from prizes.lines import GameRefused, LineSpec
from prizes.models import BoardGame, BoardSlot, PrizeBoard, Progressive
from prizes.progressives import progressive_grow, progressive_value

ORDER = ("randomiser", "choice", "die", "reveal")
CHOICES = {"keep": "keeps the reveal", "forfeit": "forfeits the reveal to roll the die"}
_DIE_GROUP = re.compile(r"^Die (\d)")
_REVEAL_NUMBER = re.compile(r"^Die reveal (\d+)")


def _randomiser_slots(board: PrizeBoard) -> list[BoardSlot]:
    return [s for s in board.slots.all() if not s.every_winner and not _DIE_GROUP.match(s.group)]


def die_board(board: PrizeBoard) -> tuple[rir.Zone, ...]:
    """The board's die zones (seed: r108's example, the editable default): a slot of group
    "Die 6 (…)" labelled "Die reveal 19: R20,000 progressive" is reveal 19 of zone 6."""
    zones: dict[int, list[rir.Reveal]] = {}
    for slot in board.slots.all():
        face, number = _DIE_GROUP.match(slot.group), _REVEAL_NUMBER.match(slot.label)
        if face and number:
            label = slot.label.lower()
            reveal = rir.Reveal(
                int(number[1]), slot.amount_cents or 0, progressive="progressive" in label, bonus="bonus" in label
            )
            zones.setdefault(int(face[1]), []).append(reveal)
    return tuple(rir.Zone(face, tuple(reveals)) for face, reveals in sorted(zones.items()))


def _whole(raw: dict, key: str, words: str) -> int:
    text = str(raw.get(key) or "").strip()
    if not text.isdigit():
        raise DomainError(f"Choose {words} as a number, not {text}.", code="event_unreadable")
    return int(text)


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    given = [key for key in ORDER if str(raw.get(key) or "").strip()]
    if not given:
        raise blank("Record the randomiser chosen, keep or forfeit, the die or the reveal opened.")
    key = given[0]
    if key == "choice":
        choice = str(raw["choice"]).strip()
        if choice not in CHOICES:
            raise DomainError("The winner keeps the reveal or forfeits it.", code="event_unreadable")
        return {"choice": choice}
    words = {"randomiser": "the randomiser", "die": "what the die shows", "reveal": "the reveal opened"}[key]
    return {key: _whole(raw, key, words)}


def _play(mine: list[dict], pick) -> rir.Play | None:
    """The winner's play so far, its events in the game's order (GameRefused otherwise); None
    before the randomiser."""
    for position, event in enumerate(mine):
        key = next(k for k in ORDER if k in event)
        expected = ORDER[position] if position < len(ORDER) else None
        if key != expected:
            raise GameRefused(_out_of_order(pick, key, expected))
    if not mine:
        return None
    forfeits = len(mine) > 1 and mine[1]["choice"] == "forfeit"
    if forfeits and declined(pick):
        raise GameRefused(
            f"Pick {pick.k} declined: a declined winner keeps the reveal (no optional gamble, PRIZES.md §1)."
        )
    if len(mine) > 2 and not forfeits:
        raise GameRefused(f"Pick {pick.k} kept the reveal: only a winner who forfeits it rolls the die (FL r105).")
    rolls = (mine[2]["die"],) if len(mine) > 2 else ()
    return rir.Play(mine[0]["randomiser"], rolls, mine[3]["reveal"] if len(mine) > 3 else None)


def _out_of_order(pick, key: str, expected: str | None) -> str:
    if key == "die" and expected == "reveal":
        return f"The die is rolled once (A11): record the reveal pick {pick.k} opened."
    return {
        "randomiser": f"Record the randomiser pick {pick.k} chose first.",
        "choice": f"Record whether pick {pick.k} keeps the reveal or forfeits it first.",
        "die": f"Record the die pick {pick.k} rolled first.",
        "reveal": f"Record the die pick {pick.k} rolled first.",
        None: f"Pick {pick.k}'s turn is over.",
    }[expected]


def _done(mine: list[dict]) -> bool:
    return len(mine) == len(ORDER) or (len(mine) == 2 and mine[1]["choice"] == "keep")


def turn_refusal(events: list[dict], pick) -> str | None:
    mine = events_of(events, pick)
    if _done(mine):
        return f"Pick {pick.k}'s turn is over: their prize is recorded at Finish."
    return None


def waiting(events: list[dict], winners: list):
    return next((p for p in winners if not _done(events_of(events, p))), None)


def _jackpot_cents(draw, zones: tuple[rir.Zone, ...]) -> int:
    """The progressive's value now (r107), or the board's amount when the series has none."""
    progressive = Progressive.objects.filter(series_id=draw.series_id).order_by("pk").first()
    if progressive is not None:
        return progressive_value(progressive)
    return next((r.amount_cents for z in zones for r in z.reveals if r.progressive), 0)


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    first = [s.amount_cents or 0 for s in _randomiser_slots(board)]
    zones = die_board(board)
    if len(first) != rir.FIRST_REVEALS:
        raise GameRefused(f"The board needs the {rir.FIRST_REVEALS} randomiser reveals (FL r98); it has {len(first)}.")
    if refusal := rir.board_refusal(zones):
        raise GameRefused(refusal)
    chosen: dict[int, int] = {}
    result = {}
    for pick in winners:
        mine = events_of(events, pick)
        play = _play(mine, pick)
        if play is None:
            continue
        if play.randomiser in chosen:
            raise GameRefused(f"Randomiser {play.randomiser} was chosen by pick {chosen[play.randomiser]}: each once.")
        chosen[play.randomiser] = pick.k
        if refusal := rir.play_refusal(play=play, board=zones):
            raise GameRefused(refusal)
        if _done(mine):
            outcome = rir.roll_into_riches(
                first_reveals=first, play=play, progressive_cents=_jackpot_cents(draw, zones), board=zones
            )
            result[pick.pk] = list(outcome.lines)
    return result


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    """What each winner records next (randomisers not chosen yet, keep or forfeit, the die, the
    reveals of the zone rolled)."""
    zones = {zone.die: [r.number for r in zone.reveals] for zone in die_board(board)}
    stages = []
    for pick_id in dict.fromkeys(e["pick"] for e in events):
        mine = [e for e in events if e["pick"] == pick_id]
        step = ORDER[len(mine)] if len(mine) < len(ORDER) else None
        zone = zones.get(mine[2]["die"], []) if step == "reveal" else []
        stages.append({"pick": pick_id, "next": step, "zone": zone})
    taken = {e["randomiser"] for e in events if "randomiser" in e}
    return {
        "randomisers": [n for n in range(1, rir.FIRST_REVEALS + 1) if n not in taken],
        "faces": list(rir.DIE),
        "stages": stages,
    }


def turn_words(event: dict) -> str:
    if "randomiser" in event:
        return f"randomiser {event['randomiser']}"
    if "choice" in event:
        return CHOICES[event["choice"]]
    if "die" in event:
        return f"rolled {event['die']}"
    return f"opened reveal {event['reveal']}"


def after_finish(actor, draw, board: PrizeBoard, events: list[dict]) -> None:
    """A draw closing without the progressive won grows it by its increment (A11: R0 until set)."""
    progressive_grow(actor=actor, draw_id=draw.pk)


CONDUCTED = Conducted(
    games=frozenset({BoardGame.ROLL_INTO_RICHES}),
    template="prizes/conducting/_roll_into_riches.html",
    event_clean=event_clean,
    turn_refusal=turn_refusal,
    waiting=waiting,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
    after_finish=after_finish,
)
