"""Fast Lane 3pm Best Hand (FL r79-r85, PRIZES.md A9 and §5 examples 12, 13)."""

import re

import pytest

from prizes.games.best_hand import Category, best_hand_lines, deck_refusal, evaluate, parse_card, rank_hands
from prizes.lines import GameRefused, LineKind, LineSource

C = Category


def hand(text: str):
    return evaluate([parse_card(card) for card in text.split()])


# r85's list, each with its example from the seed's text, and what the stage reads out.
CATEGORIES = [
    ("As Ks Qs Js 10s", C.ROYAL_FLUSH, "Royal flush"),  # r85 example A♠ K♠ Q♠ J♠ 10♠
    ("9h 8h 7h 6h 5h", C.STRAIGHT_FLUSH, "Straight flush, nine high"),  # r85 example
    ("5d 4d 3d 2d Ad", C.STRAIGHT_FLUSH, "Straight flush, five high"),  # the ace low in a straight flush
    ("Kc Kd Kh Ks 3c", C.FOUR_OF_A_KIND, "Four of a kind, kings"),  # r85 example
    ("Qs Qh Qd 7c 7d", C.FULL_HOUSE, "Full house, queens over sevens"),  # r85 example
    ("Ac Jc 8c 4c 2c", C.FLUSH, "Flush, ace high"),  # r85 example
    ("10s 9c 8d 7h 6s", C.STRAIGHT, "Straight, ten high"),  # r85 example
    ("Ah Ks Qd Jc 10h", C.STRAIGHT, "Straight, ace high"),  # r85 "High: A K Q J 10"
    ("5s 4c 3d 2h Ah", C.STRAIGHT, "Straight, five high"),  # r85 "Low: 5 4 3 2 A"
    ("Qs Kc Ad 2h 3s", C.HIGH_CARD, "High card, ace"),  # no wrap-around: Q K A 2 3 is no straight
    ("5s 5h 5d Kc 2h", C.THREE_OF_A_KIND, "Three of a kind, fives"),  # r85 example
    ("Js Jd 4c 4h 9s", C.TWO_PAIR, "Two pair, jacks and fours"),  # r85 example
    ("As Ad 10c 7h 3s", C.PAIR, "Pair of aces"),  # r85 example
    ("Ks Jd 8c 5h 2s", C.HIGH_CARD, "High card, king"),  # r85 example
    ("6s 6h 6d 6c 2h", C.FOUR_OF_A_KIND, "Four of a kind, sixes"),
]


@pytest.mark.parametrize(("cards", "category", "words"), CATEGORIES)
def test_each_hand_of_rule_85_is_named_as_the_seed_lists_it(cards, category, words):
    assert hand(cards).category == category
    assert hand(cards).words == words


# (better, worse): every category boundary — the lowest hand of a category beats the highest of
# the one below — then the tie-breaks within a category, high to low (A9).
BEATS = [
    ("As Ks Qs Js 10s", "Ks Qs Js 10s 9s"),  # royal flush > king-high straight flush
    ("5h 4h 3h 2h Ah", "Ac Ad Ah As Kc"),  # lowest straight flush (steel wheel) > highest quads
    ("2c 2d 2h 2s 3c", "Ac Ad Ah Kc Kd"),  # lowest quads > highest full house
    ("2c 2d 2h 3c 3d", "Ah Kh Qh Jh 9h"),  # lowest full house > highest flush
    ("7d 5d 4d 3d 2d", "Ah Ks Qd Jc 10h"),  # lowest flush > highest straight
    ("5s 4c 3d 2h Ah", "Ac Ad Ah Kc Qs"),  # wheel, the lowest straight > highest trips (AAA-K-Q)
    ("2c 3d 4h 5s 6c", "As 2d 3h 4c 5d"),  # six-high straight > the wheel: the ace is low there
    ("Ah Ks Qd Jc 10h", "Ks Qd Jc 10h 9s"),  # ace-high straight, the highest > king-high
    ("2c 2d 2h 4s 3c", "Ac Ad Kh Ks Qc"),  # lowest trips > highest two pair
    ("3c 3d 2h 2s 4c", "Ac Ad Kh Qs Jc"),  # lowest two pair > highest pair
    ("2c 2d 5h 4s 3c", "Ac Kd Qh Js 9c"),  # lowest pair > highest high card
    ("2c 2d 5h 4s 3c", "Qs Kc Ad 2h 3s"),  # a wrap-around is only a high card
    ("Ks Kh Kd Kc 3h", "Ks Kh Kd Kc 2h"),  # quads: the kicker after the quads' rank
    ("3c 3d 3h 2s 2c", "2c 2d 2h As Ac"),  # full house: the trips before the pair
    ("Qs Qh Qd Kc Kd", "Qs Qh Qd Jc Jd"),  # full house, same trips: the pair
    ("Ac Qc 5c 4c 2c", "Ad Jd 10d 9d 8d"),  # flush: the second card decides
    ("Ac Qc 5c 4c 3c", "Ad Qd 5d 4d 2d"),  # flush: down to the fifth card
    ("Ks Kh 4h 4d 7c", "Ks Kh 4c 4s 3c"),  # two pair: the kicker (example 12's D)
    ("Ks Kh 2h 2d 3c", "Qs Qh Jc Js Ac"),  # two pair: the higher pair first, whatever the kicker
    ("Ks Kh 8h 8d 3c", "Ks Kh 7c 7s Ac"),  # two pair: the lower pair before the kicker
    ("Ks Kh Ah Qs 2c", "Ks Kh Js 10s 9s"),  # pair: the kickers high to low (example 12's E > C)
    ("Ks Kh Ah Qs 3c", "Ks Kh Ac Qd 2c"),  # pair: down to the last kicker
    ("Ks Jd 8c 5h 3s", "Ks Jd 8c 5h 2c"),  # high card: down to the last card
]


@pytest.mark.parametrize(("better", "worse"), BEATS)
def test_the_better_hand_ranks_above(better, worse):
    assert hand(better).key > hand(worse).key


def test_suits_never_rank_A9():
    assert hand("As Ks 7d 5c 2h").key == hand("Ah Kh 7c 5d 2s").key
    assert hand("As Ks Qs Js 10s").key == hand("Ah Kh Qh Jh 10h").key
    assert hand("9c 8d 7h 6s 5c").key == hand("9h 8s 7d 6c 5h").key


def test_at_least_thirty_hands_are_tabled():
    tabled = {cards for cards, _, _ in CATEGORIES} | {h for pair in BEATS for h in pair}
    assert len(tabled) >= 30
    # Every category appears on both sides of a boundary.
    assert {hand(h).category for pair in BEATS for h in pair} == set(Category)


# §5 example 12: community Ks Kh; A Kd Kc 3h, B Qh Qd Qc, C Js 10s 9s, D 4h 4d 7c, E Ah Qs 2c
EXAMPLE_12 = {"A": "Kd Kc 3h", "B": "Qh Qd Qc", "C": "Js 10s 9s", "D": "4h 4d 7c", "E": "Ah Qs 2c"}
PLACES = [1_000_000, 500_000, 300_000, 200_000, 100_000]  # cfg (A9): a board's five place amounts


def test_example_12_orders_quads_full_house_two_pair_then_pairs_by_kicker():
    placings = rank_hands(community=["Ks", "Kh"], hands=EXAMPLE_12)

    assert [p.winner for p in placings] == ["A", "B", "D", "E", "C"]
    assert [p.place for p in placings] == [1, 2, 3, 4, 5]
    assert [p.hand.words for p in placings] == [
        "Four of a kind, kings",
        "Full house, queens over kings",
        "Two pair, kings and fours",
        "Pair of kings",
        "Pair of kings",
    ]


def test_example_12_lines_pay_each_place_its_board_amount():
    lines = best_hand_lines(community="Ks Kh", hands=EXAMPLE_12, place_amounts=PLACES)

    assert list(lines) == ["A", "B", "D", "E", "C"]
    assert [line.amount_cents for line in lines.values()] == PLACES
    assert lines["A"].words == "Place 1 in Best Hand (Four of a kind, kings)"
    assert lines["C"].words == "Place 5 in Best Hand (Pair of kings)"
    assert {(line.kind, line.source) for line in lines.values()} == {(LineKind.CASH, LineSource.GAME)}
    assert lines["A"].data["cards"] == ["Kd", "Kc", "3h"]
    assert lines["A"].data["community"] == ["Ks", "Kh"]
    assert lines["A"].data["category"] == "four_of_a_kind"


def test_example_13_the_wheel_beats_trips():
    """§5 example 13: community Ac 2d; 3h 4s 5c (A2345, r85 "Low") vs 7s 7h 7d."""
    placings = rank_hands(community=["Ac", "2d"], hands={"trips": ["7s", "7h", "7d"], "wheel": ["3h", "4s", "5c"]})

    assert [(p.winner, p.hand.words) for p in placings] == [
        ("wheel", "Straight, five high"),
        ("trips", "Three of a kind, sevens"),
    ]


# Community Ks Kh: two winners hold the same pair-of-kings hand in different suits.
TIED = {"W1": "Ah Qs 2c", "W2": "9c 9d 3s", "W3": "Ad Qc 2s", "W4": "Js 10s 8s", "W5": "4h 4d 7c"}


def test_equal_hands_share_the_places_they_occupy():
    placings = rank_hands(community="Ks Kh", hands=TIED)

    assert [(p.winner, p.places) for p in placings] == [
        ("W2", (1,)),
        ("W5", (2,)),
        ("W1", (3, 4)),
        ("W3", (3, 4)),
        ("W4", (5,)),
    ]


def test_tied_winners_split_their_places_prizes_equally_A9():
    lines = best_hand_lines(community="Ks Kh", hands=TIED, place_amounts=PLACES)

    assert lines["W1"].amount_cents == lines["W3"].amount_cents == (300_000 + 200_000) // 2
    assert lines["W1"].words == "Places 3 and 4 shared in Best Hand (Pair of kings)"
    assert sum(line.amount_cents for line in lines.values()) == sum(PLACES)


def test_an_odd_cent_of_a_split_goes_to_the_earlier_drawn_winner():
    lines = best_hand_lines(community="Ks Kh", hands=TIED, place_amounts=[500, 400, 300, 201, 100])

    assert (lines["W1"].amount_cents, lines["W3"].amount_cents) == (251, 250)  # W1 drawn before W3
    assert sum(line.amount_cents for line in lines.values()) == 1_501


def test_three_way_tie_shares_the_remainder_cent_by_cent_in_pick_order():
    hands = {"W1": "2c 3d 4h", "W2": "2d 3h 4s", "W3": "2h 3s 4c"}  # all the wheel with Ac 5d
    lines = best_hand_lines(community="Ac 5d", hands=hands, place_amounts=[100_000, 100_000, 1])

    assert [lines[w].amount_cents for w in ("W1", "W2", "W3")] == [66_667, 66_667, 66_667]
    lines = best_hand_lines(community="Ac 5d", hands=hands, place_amounts=[100_000, 100_000, 2])
    assert [lines[w].amount_cents for w in ("W1", "W2", "W3")] == [66_668, 66_667, 66_667]


def test_without_the_split_setting_equal_hands_take_their_places_in_pick_order():
    lines = best_hand_lines(community="Ks Kh", hands=TIED, place_amounts=PLACES, split_ties=False)

    assert (lines["W1"].amount_cents, lines["W3"].amount_cents) == (300_000, 200_000)
    assert lines["W3"].words == "Place 4 in Best Hand (Pair of kings)"


@pytest.mark.parametrize(
    ("community", "hands", "message"),
    [
        ("Ks Kh", {"A": "Ks 2c 3d"}, "Ks was recorded twice"),
        ("Ks Kh", {"A": "Ac 2c 3d", "B": "Ac 2c 4c"}, "2c and Ac were recorded twice"),
        ("Ks Kh", {"A": "Ac 2c"}, "dealt three cards (FL r84); 2 were recorded"),
        ("Ks Kh Kd", {"A": "Ac 2c 3d"}, "two community cards (FL r83); 3 were recorded"),
        ("Ks Kh", {"A": "Ac 2c 1d"}, "“1d” is not a card"),
        ("Ks Kh", {"A": "Ac 2c 3x"}, "“3x” is not a card"),
        ("Ks Kh", {}, "Record each winner's three cards"),
    ],
)
def test_an_impossible_deal_is_refused(community, hands, message):
    with pytest.raises(GameRefused, match=re.escape(message)):
        rank_hands(community=community, hands=hands)


def test_cards_are_read_as_ten_or_t_in_any_case_and_with_suit_symbols():
    assert parse_card("10s") == parse_card("Ts") == parse_card("t♠") == parse_card(" 10S ")
    assert str(parse_card("ah")) == "Ah"


# A 25-card deck (cfg, A9): the tens to aces of four suits and the five of spades.
DECK = [r + s for r in ("10", "J", "Q", "K", "A") for s in "shdc"] + ["2s", "3s", "4s", "5s", "6s"]


def test_a_card_outside_the_configured_deck_is_refused():
    assert deck_refusal(DECK) is None
    rank_hands(community="Ks Kh", hands={"A": "As Ad 2s"}, deck=DECK)
    with pytest.raises(GameRefused, match="2c is not in the Best Hand deck of 25 cards"):
        rank_hands(community="Ks Kh", hands={"A": "As Ad 2c"}, deck=DECK)


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        (DECK[:-1], "has 24 cards; FL rule 84 deals from 25"),
        ([*DECK, "7s"], "has 26 cards"),
        ([*DECK[:-1], "As"], "has As more than once"),
        ([*DECK[:-1], "Zs"], "cannot be read"),
    ],
)
def test_a_deck_that_is_not_25_distinct_cards_is_refused(deck, message):
    assert message in deck_refusal(deck)
    with pytest.raises(GameRefused, match=message):
        rank_hands(community="Ks Kh", hands={"A": "As Ad 2s"}, deck=deck)


def test_more_hands_than_the_board_has_places_is_refused():
    hands = {**EXAMPLE_12, "F": "2h 3h 4h"}
    with pytest.raises(GameRefused, match="6 hands were recorded but the board pays 5 places"):
        best_hand_lines(community="Ks Kh", hands=hands, place_amounts=PLACES)


@pytest.mark.parametrize("amounts", [[1_000_000, 0, 1, 1, 1], [1_000_000, 500.0, 1, 1, 1], [-1, 1, 1, 1, 1]])
def test_a_place_without_a_whole_positive_amount_is_refused(amounts):
    with pytest.raises(GameRefused, match="whole cents above zero"):
        best_hand_lines(community="Ks Kh", hands=EXAMPLE_12, place_amounts=amounts)
