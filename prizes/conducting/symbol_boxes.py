"""Turn Up the Heat Saturday 3pm: randomisers, then the bonus feature's symbol boxes (TH
r102-r107, PRIZES.md A19; prizes/games/symbol_boxes.py computes the bonus and refuses what cannot
happen).

Events, each on its winner's pick:
- the randomiser the winner chose (r103): {"slot": "2"} for a cash podium (r104), or
  {"bonus": "Flame"} for the bonus feature with its symbol;
- a bonus winner refusing the game (r107): {"declines": True}, before any box is opened;
- a box opened (r105-r106) on the pick of the winner whose turn it is:
  {"box": 7, "shows": "Flame"} or {"box": 7, "shows": "blank"}.
The engine wants the whole layout of the 12 boxes: the boxes still closed are filled from what
is left of 3 of each symbol and 6 blanks (A19), so a box showing more than those is refused.
A winner whose pick outcome is declined (not on stage) and holds the bonus counts as absent (A19).

The board decides the numbers: its settings `boxes` and `blank_boxes` (r106, A19), and its three
Bonus slots the bonus game's amounts (r105, r107); a board without such a slot pays the seed's.
"""

from core.errors import DomainError
from prizes.conducting import Conducted
from prizes.conducting.podium_first import declined
from prizes.games import reveals
from prizes.games import symbol_boxes as engine
from prizes.lines import GameRefused, LineKind, LineSpec
from prizes.models import BoardGame, BoardSlot, PrizeBoard

PODIUM = reveals.SlotGame.PODIUM
BONUS_WINNERS = 2  # r104
BLANK = "blank"
# The board's slots that pay the bonus game (prizes/seed_boards.py names them so).
BONUS_FIRST = "Bonus: first to all three symbols"  # r105 (and r107: the other declined)
BONUS_RUNNER_UP = "Bonus: runner-up"  # r105
BONUS_DECLINED = "Bonus: declined the bonus game"  # r107, A19 (absent)


def bonus_amounts(board: PrizeBoard) -> engine.BonusAmounts:
    """The bonus game's amounts from the board's Bonus slots; the seed's for a slot it lacks."""
    by_label = {s.label: s.amount_cents for s in board.slots.all() if s.amount_cents is not None}
    default = engine.BonusAmounts()
    return engine.BonusAmounts(
        first=by_label.get(BONUS_FIRST, default.first),
        runner_up=by_label.get(BONUS_RUNNER_UP, default.runner_up),
        declined=by_label.get(BONUS_DECLINED, default.declined),
    )


def box_counts(board: PrizeBoard) -> tuple[int, int]:
    """(boxes, blank boxes) on stage: the board's settings (r106, A19); GameRefused when they
    cannot hold 3 of each bonus symbol and the blanks."""
    boxes, blanks = board.setting("boxes"), board.setting("blank_boxes")
    if refusal := engine.boxes_refusal(boxes=boxes, blank_boxes=blanks):
        raise GameRefused(f"{refusal} Correct the prize board.")
    return boxes, blanks


def _symbol(text) -> str:
    """One spelling of a symbol, however the conductor typed it ("flame " → "Flame")."""
    return " ".join(str(text or "").split()).capitalize()


def _podium_slots(board: PrizeBoard) -> list[BoardSlot]:
    """The cash podiums (r104); the board's "Bonus: …" slots are the engine's amounts, said."""
    return [s for s in board.slots.all() if not s.every_winner and s.label.startswith(f"{PODIUM.value} ")]


def _podium_label(slot: BoardSlot) -> str:
    return slot.label.removeprefix(f"{PODIUM.value} ")


# --- The POST -----------------------------------------------------------------------------------


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    if slot := str(raw.get("slot") or "").strip():
        return {"slot": slot}
    if raw.get("bonus") is not None and str(raw.get("bonus")).strip() != "":
        symbol = _symbol(raw.get("bonus"))
        if symbol.lower() == BLANK:
            raise DomainError("A bonus randomiser shows a symbol, not a blank (TH r104).", code="event_unreadable")
        return {"bonus": symbol}
    if raw.get("bonus") is not None:
        raise DomainError("Type the symbol on the bonus randomiser (TH r104).", code="event_blank")
    if raw.get("declines"):
        return {"declines": True}
    box_text = str(raw.get("box") or "").strip()
    if not box_text:
        raise DomainError(
            "Choose the podium or bonus the winner's randomiser gave, or the box opened.", code="event_blank"
        )
    if not box_text.isdigit():
        boxes = board.setting("boxes")
        raise DomainError(f"The boxes are numbered 1 to {boxes}, not {box_text}.", code="event_unreadable")
    shows = _symbol(raw.get("shows"))
    if not shows:
        raise DomainError(f"Choose what box {box_text} shows: a symbol or blank.", code="event_blank")
    return {"box": int(box_text), "shows": BLANK if shows.lower() == BLANK else shows}


# --- Reading the events -------------------------------------------------------------------------


def _bonus_events(events: list[dict]) -> list[dict]:
    return [e for e in events if "bonus" in e]


def _boxes(events: list[dict]) -> list[dict]:
    return [e for e in events if "box" in e]


def _someone_declined(events: list[dict]) -> bool:
    return any(e.get("declines") for e in events)


def _finished(events: list[dict]) -> bool:
    """A bonus winner has all three symbols (r105): no more boxes."""
    shown = [e["shows"] for e in _boxes(events)]
    return any(shown.count(e["bonus"]) >= engine.SYMBOLS_TO_WIN for e in _bonus_events(events))


def _opener_k(events: list[dict]) -> int | None:
    """The pick number of the bonus winner whose turn it is to open a box (r105), once both are known."""
    bonus = _bonus_events(events)
    if len(bonus) != BONUS_WINNERS:
        return None
    winners = [engine.BonusWinner(e["k"], e["bonus"]) for e in bonus]
    return engine.next_opener(winners=winners, opened=[(0, e["box"]) for e in _boxes(events)])


def _randomiser(events: list[dict], pick) -> dict | None:
    return next((e for e in events if e.get("pick") == pick.pk and ("slot" in e or "bonus" in e)), None)


def turn_refusal(events: list[dict], pick) -> str | None:
    mine = _randomiser(events, pick)
    if mine is None:
        return None
    if "slot" in mine:
        return f"Pick {pick.k}'s randomiser gave podium {mine['slot']}: their prize is recorded at Finish."
    if declined(pick) or any(e.get("declines") for e in events if e["pick"] == pick.pk):
        return f"Pick {pick.k} does not play the bonus game: their prize follows from TH r107."
    if _someone_declined(events):
        if _boxes(events):
            return "A bonus winner declined the game: no box is opened, the prizes follow from TH r107."
        return None  # may decline too (r107: both decline)
    if _finished(events):
        return "The bonus game is over: a winner has all three symbols (TH r105)."
    turn = _opener_k(events)
    if _boxes(events) and turn != pick.k:
        return f"It is the turn of pick {turn} to open a box (TH r105)."
    return None


def waiting(events: list[dict], winners: list):
    """The first winner whose randomiser is not recorded (a declined winner, when theirs is the
    only one left, takes it at Finish), then the bonus winner whose turn it is to open a box."""
    without = [p for p in winners if _randomiser(events, p) is None]
    left_to_a_declined = len(without) == 1 and declined(without[0])
    if without and not left_to_a_declined:
        return without[0]
    bonus = [p for p in winners if (r := _randomiser(events, p)) and "bonus" in r]
    if len(bonus) != BONUS_WINNERS or _someone_declined(events) or any(declined(p) for p in bonus):
        return None
    if _finished(events):
        return None
    turn = _opener_k(events)
    return next((p for p in bonus if p.k == turn), None)


# --- The lines ----------------------------------------------------------------------------------


def _randomisers_refusal(board: PrizeBoard, events: list[dict], winners: list) -> str | None:
    """One randomiser a winner, first; each podium once; two bonuses with different symbols;
    declining and opening only for bonus winners."""
    podiums = {_podium_label(s) for s in _podium_slots(board)}
    by_pick = {p.pk: p for p in winners}
    held: dict[int, dict] = {}
    for event in events:
        pick = by_pick.get(event["pick"])
        k = event["k"]
        if "slot" in event or "bonus" in event:
            if pick is not None and pick.pk in held:
                return f"Pick {k}'s randomiser is recorded already: one randomiser a winner (TH r103)."
            if "slot" in event:
                if event["slot"] not in podiums:
                    return f"There is no podium {event['slot']} on this board."
                if any(e.get("slot") == event["slot"] for e in held.values()):
                    return f"Podium {event['slot']} was already given in this draw: each podium once."
            else:
                bonuses = [e["bonus"] for e in held.values() if "bonus" in e]
                if len(bonuses) >= BONUS_WINNERS:
                    return f"Only {BONUS_WINNERS} randomisers unlock the bonus feature (TH r104)."
                if event["bonus"] in bonuses:
                    return f"The two bonus winners have different symbols: {event['bonus']} is taken (A19)."
            held[event["pick"]] = event
            continue
        mine = held.get(event["pick"])
        if mine is None or "bonus" not in mine:
            what = "declines the bonus game" if event.get("declines") else "opens a box"
            return f"Only a bonus winner {what}: record pick {k}'s randomiser first (TH r104)."
        if event.get("declines") and pick is not None and declined(pick):
            return f"Pick {k} is not on stage: they count as absent already (A19)."
        if "box" in event and len([e for e in held.values() if "bonus" in e]) < BONUS_WINNERS:
            return "The boxes open once both bonus winners are known (TH r105): record the other bonus randomiser."
    return None


def _layout(events: list[dict], symbols: list[str], boxes: int, blanks: int) -> list[str | None]:
    """The boxes as far as they are known, the closed ones filled from what is left (A19);
    GameRefused when an opened box shows what the boxes cannot hide."""
    opened: dict[int, str] = {}
    for event in _boxes(events):
        box, shows = event["box"], event["shows"]
        if box not in range(1, boxes + 1) or box in opened:
            continue  # the engine says why (numbered 1 to 12; opened once)
        if shows != BLANK and shows not in symbols:
            hidden = " and ".join(symbols)
            raise GameRefused(f"Box {box} cannot show {shows}: the boxes hide {hidden} symbols and blanks (A19).")
        seen = sum(1 for s in opened.values() if s == shows)
        most = blanks if shows == BLANK else engine.SYMBOLS_TO_WIN
        if seen >= most:
            what = "blanks" if shows == BLANK else f"{shows} symbols"
            raise GameRefused(f"Box {box} cannot show {shows}: the boxes hide only {most} {what}, all open (A19).")
        opened[box] = shows
    left: list[str | None] = [None] * (blanks - sum(1 for s in opened.values() if s == BLANK))
    for symbol in symbols:
        left += [symbol] * (engine.SYMBOLS_TO_WIN - sum(1 for s in opened.values() if s == symbol))
    layout: list[str | None] = []
    for box in range(1, boxes + 1):
        shows = opened.get(box)
        layout.append(None if shows == BLANK else shows if box in opened else left.pop())
    return layout


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    if refusal := _randomisers_refusal(board, events, winners):
        raise GameRefused(refusal)
    held = {p.pk: _randomiser(events, p) for p in winners}
    left_over = [p for p in winners if held[p.pk] is None]
    podium_slots = _podium_slots(board)
    given = {e["slot"] for e in held.values() if e and "slot" in e}
    bonus_picks = [p for p in winners if held[p.pk] and "bonus" in held[p.pk]]
    absent_bonus = []
    # r103: the randomiser left over falls to the winner not on stage (open_slots gives a podium
    # left over; a bonus left over makes them an absent bonus winner, A19).
    if final and len(left_over) == 1 and declined(left_over[0]) and len(given) >= len(podium_slots):
        absent_bonus.append(left_over[0])
    slots = [reveals.Slot(_podium_label(s), s.amount_cents or 0, LineKind(s.kind)) for s in podium_slots]
    picks = [
        reveals.Pick(p.pk, held[p.pk]["slot"] if held[p.pk] else None, declined=declined(p))
        for p in winners
        if (held[p.pk] and "slot" in held[p.pk]) or (final and p in left_over and p not in absent_bonus)
    ]
    result = {pick_id: [line] for pick_id, line in reveals.open_slots(slots=slots, picks=picks, game=PODIUM).items()}
    result.update(_bonus_lines(board, events, bonus_picks, absent_bonus, final))
    return result


def _bonus_lines(
    board: PrizeBoard, events: list[dict], bonus_picks: list, absent_bonus: list, final: bool
) -> dict[int, list[LineSpec]]:
    """The two bonus winners' lines (r105, r107) once the game is over; before, only the boxes
    opened so far are checked."""
    symbols = [_randomiser(events, p)["bonus"] for p in bonus_picks]
    declines = {e["pick"] for e in events if e.get("declines")}
    players = [
        engine.BonusWinner(p.k, symbol, declined=p.pk in declines, absent=declined(p))
        for p, symbol in zip(bonus_picks, symbols, strict=True)
    ]
    # A19: a bonus winner not on stage, whose symbol nobody saw: another symbol stands in for it.
    players += [engine.BonusWinner(p.k, f"absent-{p.k}", absent=True) for p in absent_bonus]
    if len(players) < BONUS_WINNERS:
        if _boxes(events):  # the randomisers' check has already asked for both bonus winners
            raise GameRefused("The boxes open once both bonus winners are known (TH r105).")
        if final:
            raise GameRefused("The draw has not given both bonus randomisers: record them before Finish (TH r104).")
        return {}
    boxes, blanks = box_counts(board)
    layout = _layout(events, [w.symbol for w in players], boxes, blanks)
    opened = [(e["k"], e["box"]) for e in _boxes(events)]
    if not final:
        for count, opening in enumerate(opened):
            if refusal := engine.opening_refusal(
                winners=players, layout=layout, opened=opened[:count], opening=opening
            ):
                raise GameRefused(refusal)
        return {}
    by_k = {p.k: p.pk for p in [*bonus_picks, *absent_bonus]}
    specs = engine.symbol_boxes_lines(
        winners=players, layout=layout, opened=opened, boxes=boxes, amounts=bonus_amounts(board)
    )
    return {by_k[spec.data["pick"]]: [spec] for spec in specs}


# --- The page -----------------------------------------------------------------------------------


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    given = {e["slot"] for e in events if "slot" in e}
    opened = {e["box"] for e in _boxes(events)}
    return {
        "choices": [label for s in _podium_slots(board) if (label := _podium_label(s)) not in given],
        "bonus_left": len(_bonus_events(events)) < BONUS_WINNERS,
        "symbols": [e["bonus"] for e in _bonus_events(events)],
        "boxes": [n for n in range(1, (board.setting("boxes") or 0) + 1) if n not in opened],
        "boxes_open": bool(opened),
        "bonus_known": len(_bonus_events(events)) == BONUS_WINNERS,
    }


def turn_words(event: dict) -> str:
    if "slot" in event:
        return f"podium {event['slot']}"
    if "bonus" in event:
        return f"the bonus feature, symbol {event['bonus']}"
    if event.get("declines"):
        return "declines the bonus game"
    return f"box {event['box']}: {event['shows']}"


CONDUCTED = Conducted(
    games=frozenset({BoardGame.SYMBOL_BOXES}),
    template="prizes/conducting/_symbol_boxes.html",
    event_clean=event_clean,
    turn_refusal=turn_refusal,
    waiting=waiting,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
)
