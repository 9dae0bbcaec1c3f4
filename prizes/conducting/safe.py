"""Turn Up the Heat Saturday 9pm: the digit safe (TH r120-r126, A17). A randomiser opens the
winner's podium, R5,000 to R10,000 (r123-r124); the winner keeps it, or forfeits R2,000 of it
(the board's setting `forfeit_cents`) to try the safe (r125), cracked or not
(prizes/games/safe.py refuses what cannot happen: a second crack the same night, a podium out
of range).

The safe is the series' progressive (r126): a crack pays its value now (a JACKPOT line, paid
by conduct from the progressive, which goes back to its R100,000 base); a 9pm draw whose game
finishes uncracked grows it by R20,000, attempted or not (A17: `after_finish`).

Events of one winner, in order: {"slot": "3"}, then {"safe": "kept" | "cracked" | "not_cracked"}
(a try also keeps the forfeit it cost, for its words)."""

from core.errors import DomainError
from core.formats import rand_cents
from prizes.conducting import Conducted
from prizes.conducting.podium_first import blank, declined, events_of, podium_choices, podium_clean, podiums
from prizes.games import safe
from prizes.lines import LineSpec
from prizes.models import BoardGame, PrizeBoard, Progressive
from prizes.progressives import progressive_grow, progressive_value

OUTCOMES = {
    "kept": "keeps the podium",
    "cracked": "forfeits {forfeit}, tries the safe: cracked",
    "not_cracked": "forfeits {forfeit}, tries the safe: not cracked",
}


def forfeit_cents(board: PrizeBoard) -> int:
    """What trying the safe costs: the board's setting (r125: R2,000 by default)."""
    value = board.setting("forfeit_cents")
    return safe.FORFEIT_CENTS if value is None else value


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    if podium := podium_clean(raw):
        return podium
    outcome = str(raw.get("safe") or "").strip()
    if not outcome:
        raise blank("Choose the podium opened, or whether the winner kept it or tried the safe.")
    if outcome not in OUTCOMES:
        raise DomainError("The winner keeps the podium, or tries the safe: cracked or not.", code="event_unreadable")
    if outcome == "kept":
        return {"safe": outcome}
    return {"safe": outcome, "forfeit_cents": forfeit_cents(board)}


def turn_refusal(events: list[dict], pick) -> str | None:
    mine = events_of(events, pick)
    if any("safe" in e for e in mine):
        return f"Pick {pick.k}'s turn is over: their prize is recorded at Finish."
    if mine and declined(pick):
        return f"Pick {pick.k} declined: a declined winner takes the podium and plays no more."
    return None


def waiting(events: list[dict], winners: list):
    """A winner who has not kept or tried yet (a declined one only takes a podium, or the one left)."""
    for pick in winners:
        if declined(pick):
            continue
        if not any("safe" in e for e in events_of(events, pick)):
            return pick
    return None


def safe_cents(draw) -> int:
    """The safe's value now: the series' progressive (r126, A17), or its base when it has none."""
    progressive = Progressive.objects.filter(series_id=draw.series_id).order_by("pk").first()
    return safe.SAFE_BASE_CENTS if progressive is None else progressive_value(progressive)


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    opened = podiums(board, events, winners, final)
    # In the order the winners decided on stage: a try after a crack is refused (A17), whoever's pick.
    decided = {e["pick"]: (i, e["safe"]) for i, e in enumerate(events) if "safe" in e}
    order = sorted(opened, key=lambda pick_id: decided.get(pick_id, (len(events), ""))[0])
    attempts = []
    for pick_id in order:
        outcome = decided.get(pick_id, (0, "kept"))[1]
        tried = outcome in ("cracked", "not_cracked")
        attempts.append(safe.Attempt(opened[pick_id].amount_cents, tried=tried, cracked=outcome == "cracked"))
    played = safe.safe_draw(safe_cents=safe_cents(draw), attempts=attempts, forfeit_cents=forfeit_cents(board))
    result = {}
    for pick_id, pick_lines in zip(order, played.lines, strict=True):
        slot = opened[pick_id].data["slot"]
        result[pick_id] = [
            LineSpec(line.kind, line.amount_cents, line.source, line.words, {**line.data, "podium": slot})
            for line in pick_lines
        ]
    return result


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    return {"choices": podium_choices(board, events), "cracked": any(e.get("safe") == "cracked" for e in events)}


def turn_words(event: dict) -> str:
    if "slot" in event:
        return f"podium {event['slot']}"
    return OUTCOMES[event["safe"]].format(forfeit=rand_cents(event.get("forfeit_cents", safe.FORFEIT_CENTS)))


def after_finish(actor, draw, board: PrizeBoard, events: list[dict]) -> None:
    """The 9pm draw closes: uncracked, the safe grows by R20,000 (r126, A17); cracked, the win
    has already put it back to base (progressive_grow leaves a progressive won in the draw)."""
    progressive_grow(actor=actor, draw_id=draw.pk)


CONDUCTED = Conducted(
    games=frozenset({BoardGame.SAFE}),
    template="prizes/conducting/_safe.html",
    event_clean=event_clean,
    turn_refusal=turn_refusal,
    waiting=waiting,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
    after_finish=after_finish,
)
