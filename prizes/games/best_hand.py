"""Fast Lane to Fortune, Saturday 3pm Best Hand (FL r79-r85, PRIZES.md A9).

Five winners are each dealt three cards "from the 25 Cards" (r84) and two community cards are
laid out (r83); each winner's hand is their three cards plus the two community cards. Hands rank
as r85 lists them: royal flush, straight flush, four of a kind, full house, flush, straight (the
ace high, A K Q J 10, or low, 5 4 3 2 A; a straight never wraps round the ace), three of a kind,
two pair, pair, high card. Within a category the significant ranks decide, high to low (the
quads' rank, then the kicker; the trips', then the pair's…); suits never rank (A9).

The 25-card deck is not defined by the seed: it is a setting (A9); given, every card must be in
it. Equal hands split the prizes of the places they occupy (A9 setting `split_ties`): the sum of
those places is shared equally, and the odd cents the division leaves go one each to the tied
winners in pick order (the earliest drawn first), so the board's total is paid exactly. With
`split_ties=False` equal hands take their places in pick order instead.
"""

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum

from prizes.lines import GameRefused, LineKind, LineSource, LineSpec

DECK_SIZE = 25  # FL r84 "From the 25 Cards"
CARDS_PER_WINNER = 3  # FL r84
COMMUNITY_CARDS = 2  # FL r83

_RANKS = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10, "T": 10}
_RANKS |= {"J": 11, "Q": 12, "K": 13, "A": 14}
_SUITS = {"s": "s", "h": "h", "d": "d", "c": "c", "♠": "s", "♥": "h", "♦": "d", "♣": "c"}
_RANK_TEXT = {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}
_ONE = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
_ONE |= {10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace"}


def _many(rank: int) -> str:
    return "sixes" if rank == 6 else _ONE[rank] + "s"


@dataclass(frozen=True)
class Card:
    rank: int  # 2..14, the ace 14
    suit: str  # s h d c

    def __str__(self) -> str:
        return _RANK_TEXT.get(self.rank, str(self.rank)) + self.suit


def parse_card(text: str) -> Card:
    """ "Ks", "10s", "Ts", "ah" or "K♠" as a card; anything else is refused."""
    cleaned = str(text).strip()
    rank, suit = cleaned[:-1].upper(), _SUITS.get(cleaned[-1:].lower())
    if rank not in _RANKS or suit is None:
        raise GameRefused(
            f"“{text}” is not a card: write its rank (2-10, J, Q, K, A) then its suit (s, h, d, c), e.g. Ks or 10h."
        )
    return Card(_RANKS[rank], suit)


def _cards(texts: Sequence[str] | str) -> list[Card]:
    """Cards from a list of texts or one text "Kd Kc 3h"."""
    return [parse_card(text) for text in (texts.split() if isinstance(texts, str) else texts)]


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


class Category(IntEnum):
    HIGH_CARD = 1
    PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9
    ROYAL_FLUSH = 10


@dataclass(frozen=True)
class Hand:
    category: Category
    ranks: tuple[int, ...]  # the significant ranks, high to low: the tie-break after the category
    cards: tuple[Card, ...]

    @property
    def key(self) -> tuple:
        return (self.category, self.ranks)

    @property
    def words(self) -> str:
        r = self.ranks
        return {
            Category.ROYAL_FLUSH: lambda: "Royal flush",
            Category.STRAIGHT_FLUSH: lambda: f"Straight flush, {_ONE[r[0]]} high",
            Category.FOUR_OF_A_KIND: lambda: f"Four of a kind, {_many(r[0])}",
            Category.FULL_HOUSE: lambda: f"Full house, {_many(r[0])} over {_many(r[1])}",
            Category.FLUSH: lambda: f"Flush, {_ONE[r[0]]} high",
            Category.STRAIGHT: lambda: f"Straight, {_ONE[r[0]]} high",
            Category.THREE_OF_A_KIND: lambda: f"Three of a kind, {_many(r[0])}",
            Category.TWO_PAIR: lambda: f"Two pair, {_many(r[0])} and {_many(r[1])}",
            Category.PAIR: lambda: f"Pair of {_many(r[0])}",
            Category.HIGH_CARD: lambda: f"High card, {_ONE[r[0]]}",
        }[self.category]()


def _straight_top(ranks: set[int]) -> int | None:
    """The top card of a straight in five distinct ranks: 5 for the wheel A2345 (the ace low),
    14 for 10JQKA; None otherwise (Q K A 2 3 does not wrap round)."""
    if len(ranks) != 5:
        return None
    if max(ranks) - min(ranks) == 4:
        return max(ranks)
    if ranks == {14, 2, 3, 4, 5}:
        return 5
    return None


def evaluate(cards: Sequence[Card]) -> Hand:
    """The category and tie-break of five cards."""
    counts = Counter(card.rank for card in cards)
    # By count, then rank: the quads' (trips', pairs') ranks come first, the kickers high to low.
    grouped = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    ranks = tuple(rank for rank, _ in grouped)
    shape = sorted(counts.values(), reverse=True)
    flush = len({card.suit for card in cards}) == 1
    top = _straight_top(set(counts))
    if top is not None and flush:
        category = Category.ROYAL_FLUSH if top == 14 else Category.STRAIGHT_FLUSH
        ranks = (top,)
    elif shape == [4, 1]:
        category = Category.FOUR_OF_A_KIND
    elif shape == [3, 2]:
        category = Category.FULL_HOUSE
    elif flush:
        category = Category.FLUSH
    elif top is not None:
        category, ranks = Category.STRAIGHT, (top,)
    elif shape == [3, 1, 1]:
        category = Category.THREE_OF_A_KIND
    elif shape == [2, 2, 1]:
        category = Category.TWO_PAIR
    elif shape == [2, 1, 1, 1]:
        category = Category.PAIR
    else:
        category = Category.HIGH_CARD
    return Hand(category, ranks, tuple(cards))


def deck_refusal(deck: Sequence[str] | str) -> str | None:
    """Why a configured deck cannot be used (the board form shows it), or None: 25 readable
    cards, none twice (FL r84, A9)."""
    try:
        cards = _cards(deck)
    except GameRefused as refused:
        return f"The Best Hand deck has a card that cannot be read: {refused}"
    twice = sorted({str(card) for card in cards if cards.count(card) > 1})
    if twice:
        return f"The Best Hand deck has {_listed(twice)} more than once: each card is in it once."
    if len(cards) != DECK_SIZE:
        return f"The Best Hand deck has {len(cards)} cards; FL rule 84 deals from {DECK_SIZE}."
    return None


@dataclass(frozen=True)
class Placing:
    winner: Hashable
    hand: Hand
    places: tuple[int, ...]  # the places this winner's tie group occupies (one place if no tie)

    @property
    def place(self) -> int:
        return self.places[0]


def _parse_hands(community, hands, deck) -> tuple[list[Card], dict[Hashable, list[Card]]]:
    community = _cards(community)
    if len(community) != COMMUNITY_CARDS:
        raise GameRefused(f"Best Hand has two community cards (FL r83); {len(community)} were recorded.")
    if not hands:
        raise GameRefused("Record each winner's three cards.")
    dealt = {winner: _cards(cards) for winner, cards in hands.items()}
    for cards in dealt.values():
        if len(cards) != CARDS_PER_WINNER:
            raise GameRefused(
                f"Each Best Hand winner is dealt three cards (FL r84); {len(cards)} were recorded for one winner."
            )
    seen = community + [card for cards in dealt.values() for card in cards]
    twice = sorted({str(card) for card in seen if seen.count(card) > 1})
    if twice:
        verb = "was" if len(twice) == 1 else "were"
        raise GameRefused(f"{_listed(twice)} {verb} recorded twice: each card is dealt once. Check the cards.")
    if deck is not None:
        if problem := deck_refusal(deck):
            raise GameRefused(problem)
        in_deck = set(_cards(deck))
        outside = [str(card) for card in seen if card not in in_deck]
        if outside:
            verb = "is" if len(outside) == 1 else "are"
            raise GameRefused(f"{_listed(outside)} {verb} not in the Best Hand deck of 25 cards. Check the cards.")
    return community, dealt


def rank_hands(
    *,
    community: Sequence[str],
    hands: Mapping[Hashable, Sequence[str]],
    deck: Sequence[str] | None = None,
    split_ties: bool = True,
) -> list[Placing]:
    """Each winner's place, best hand first. `hands` maps each winner to their three cards, in
    pick order (that order breaks ties only when `split_ties` is off). Equal hands share the
    places they occupy: two equal second-best hands are both placed 2-3."""
    board, dealt = _parse_hands(community, hands, deck)
    evaluated = {winner: evaluate(cards + board) for winner, cards in dealt.items()}
    # sorted() is stable: equal hands stay in pick order.
    order = sorted(evaluated, key=lambda winner: evaluated[winner].key, reverse=True)
    placings, place = [], 1
    while place <= len(order):
        group = [w for w in order[place - 1 :] if evaluated[w].key == evaluated[order[place - 1]].key]
        if not split_ties:
            group = group[:1]
        places = tuple(range(place, place + len(group)))
        placings += [Placing(winner, evaluated[winner], places) for winner in group]
        place += len(group)
    return placings


def _places_words(places: tuple[int, ...]) -> str:
    if len(places) == 1:
        return f"Place {places[0]}"
    return f"Places {', '.join(map(str, places[:-1]))} and {places[-1]} shared"


def best_hand_lines(
    *,
    community: Sequence[str],
    hands: Mapping[Hashable, Sequence[str]],
    place_amounts: Sequence[int],
    deck: Sequence[str] | None = None,
    split_ties: bool = True,
) -> dict[Hashable, LineSpec]:
    """Each winner's prize line, best hand first, from the board's place amounts (places 1-5,
    cfg: FL r82, A9)."""
    if any(not isinstance(a, int) or isinstance(a, bool) or a <= 0 for a in place_amounts):
        raise GameRefused("Each Best Hand place needs its prize on the board, in whole cents above zero.")
    if len(hands) > len(place_amounts):
        raise GameRefused(
            f"{len(hands)} hands were recorded but the board pays {len(place_amounts)} places (FL r82: five winners)."
        )
    placings = rank_hands(community=community, hands=hands, deck=deck, split_ties=split_ties)
    community_cards = [str(card) for card in _cards(community)]
    lines: dict[Hashable, LineSpec] = {}
    for index, placing in enumerate(placings):
        group = [p for p in placings if p.places == placing.places]
        pool = sum(place_amounts[place - 1] for place in placing.places)
        share, odd_cents = divmod(pool, len(group))
        position = group.index(placing)  # in pick order within the group
        lines[placing.winner] = LineSpec(
            kind=LineKind.CASH,
            amount_cents=share + (1 if position < odd_cents else 0),
            source=LineSource.GAME,
            words=f"{_places_words(placing.places)} in Best Hand ({placing.hand.words})",
            data={
                "game": "best_hand",
                "places": list(placing.places),
                "order": index + 1,
                "category": placing.hand.category.name.lower(),
                "hand": placing.hand.words,
                "cards": [str(card) for card in _cards(hands[placing.winner])],
                "community": community_cards,
            },
        )
    return lines
