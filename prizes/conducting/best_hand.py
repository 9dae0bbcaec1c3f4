"""Fast Lane's Saturday 3pm Best Hand (FL r79-r85, PRIZES.md A9; prizes/games/best_hand.py): the
two community cards, one event for the whole game (recorded with any winner's pick, the field
`community` says so), and each winner's three cards; at Finish the hands are ranked and paid by
the board's five place amounts, equal hands sharing their places' prizes when the board says so.
Every card is dealt once; with a deck set on the board (A9, setting "deck"), only its cards.
"""

from core.errors import DomainError
from prizes.conducting import Conducted
from prizes.games.best_hand import (
    CARDS_PER_WINNER,
    COMMUNITY_CARDS,
    best_hand_lines,
    deck_refusal,
    parse_card,
)
from prizes.lines import GameRefused, LineSpec
from prizes.models import BoardGame, PrizeBoard


def _cards(text: str, how_many: int, what: str) -> list[str]:
    """Cards as the engine writes them ("Ks", "10h"); DomainError when unreadable or too few."""
    texts = str(text or "").replace(",", " ").split()
    if not texts:
        raise DomainError(f"Write {what}, e.g. Ks 10h.", code="event_blank")
    try:
        cards = [str(parse_card(t)) for t in texts]
    except GameRefused as refused:
        raise DomainError(str(refused), code="event_unreadable") from None
    if len(cards) != how_many:
        raise DomainError(f"Write {what}: {how_many} cards, {len(cards)} were written.", code="event_unreadable")
    return cards


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    if str(raw.get("community") or "").strip():
        return {"community": _cards(raw["community"], COMMUNITY_CARDS, "the two community cards (FL r83)")}
    return {"cards": _cards(raw.get("cards"), CARDS_PER_WINNER, "the winner's three cards (FL r84)")}


def _dealt(events: list[dict]) -> tuple[list[str] | None, dict[int, list[str]]]:
    community = next((e["community"] for e in events if "community" in e), None)
    return community, {e["pick"]: e["cards"] for e in events if "cards" in e}


def turn_refusal(events: list[dict], pick) -> str | None:
    """A winner's three cards are recorded once; the community cards once, with any pick."""
    community, hands = _dealt(events)
    if pick.pk in hands and community is not None:
        return f"Pick {pick.k}'s cards are already recorded."
    return None


def waiting(events: list[dict], winners: list):
    _community, hands = _dealt(events)
    return next((p for p in winners if p.pk not in hands), None)


def _refusal(events: list[dict], deck) -> str | None:
    """What cannot have happened in the events so far: a card twice, a card not in the deck."""
    if sum("community" in e for e in events) > 1:
        return "The community cards are already recorded."
    picks = [e["pick"] for e in events if "cards" in e]
    if len(picks) != len(set(picks)):
        return "This winner's three cards are already recorded."
    seen = [card for e in events for card in e.get("community", e.get("cards", []))]
    twice = sorted({card for card in seen if seen.count(card) > 1})
    if twice:
        return f"{', '.join(twice)} {'was' if len(twice) == 1 else 'were'} recorded twice: each card is dealt once."
    if deck:
        if problem := deck_refusal(deck):
            return problem
        in_deck = {str(parse_card(card)) for card in str(deck).replace(",", " ").split()}
        outside = [card for card in seen if card not in in_deck]
        if outside:
            return f"{', '.join(outside)} {'is' if len(outside) == 1 else 'are'} not in the Best Hand deck of 25 cards."
    return None


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    if problem := _refusal(events, board.setting("deck")):
        raise GameRefused(problem)
    community, hands = _dealt(events)
    if not final:
        return {}  # the places are known once every hand is dealt
    if community is None:
        raise GameRefused("Record the two community cards first (FL r83).")
    amounts = [slot.amount_cents for slot in board.slots.all() if not slot.every_winner]
    specs = best_hand_lines(
        community=community,
        hands={p.pk: hands[p.pk] for p in winners if p.pk in hands},  # in pick order: it breaks unsplit ties
        place_amounts=amounts,
        split_ties=bool(board.setting("split_ties")),
    )
    return {pick_id: [spec] for pick_id, spec in specs.items()}


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    community, hands = _dealt(events)
    return {"community": community, "dealt": list(hands)}


def turn_words(event: dict) -> str:
    if "community" in event:
        return f"community cards {' '.join(event['community'])}"
    return f"cards {' '.join(event['cards'])}"


CONDUCTED = Conducted(
    games=frozenset({BoardGame.BEST_HAND}),
    template="prizes/conducting/_best_hand.html",
    event_clean=event_clean,
    turn_refusal=turn_refusal,
    waiting=waiting,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
)
