"""Fast Lane's 3pm Best Hand conducted from the run page (FL r79-r85, PRIZES.md A9, §5 examples 12
and 13): the community cards once for the game, each winner's three cards, places by the hand."""

import pytest

from core.errors import DomainError
from core.roles import PROMOTIONS_MANAGER
from draws.tests.builders import MANAGER
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, GamePlay, PrizeLine
from prizes.services import SlotDef, board_create, board_save
from prizes.tests.test_conduct import draw_of, lines_of, on_stage  # noqa: F401

pytestmark = pytest.mark.django_db

# FL r82: places 1-5, amounts cfg (A9): these stand for the manager's.
PLACES = [SlotDef(f"Place {n}", cents) for n, cents in enumerate((1_000_000, 500_000, 300_000, 200_000, 100_000), 1)]


FULL_PACK = [f"{rank}{suit}" for suit in "shdc" for rank in ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5")]


def deck_of(cards: str) -> str:
    """A 25-card deck (A9: a required setting) holding `cards`, made up from the pack."""
    chosen = cards.split()
    return " ".join(chosen + [c for c in FULL_PACK if c not in chosen][: 25 - len(chosen)])


def best_hand(winners: int, cards: str, **kwargs):
    """A started draw whose board deals from a deck holding `cards`."""
    settings = {"split_ties": True, "deck": deck_of(cards)}
    return draw_of(winners, BoardGame.BEST_HAND, PLACES, settings=settings, **kwargs)


def deal(pick, cards: str):
    return game_event_record(actor=MANAGER, pick_id=pick.pk, event={"cards": cards})


def community(pick, cards: str):
    return game_event_record(actor=MANAGER, pick_id=pick.pk, event={"community": cards})


def test_example_12_quads_then_full_house_two_pair_and_the_kickers_decide(reference_data):
    """§5 #12: community Ks Kh; A Kd Kc 3h, B Qh Qd Qc, C Js 10s 9s, D 4h 4d 7c, E Ah Qs 2c ->
    order A (quads), B, D, E (KK+A), C (KK+J)."""
    _draw, (a, b, c, d, e) = best_hand(5, "Ks Kh Kd Kc 3h Qh Qd Qc Js 10s 9s 4h 4d 7c Ah Qs 2c")
    community(c, "Ks Kh")  # the game's cards, recorded with any winner's pick
    for pick, cards in ((a, "Kd Kc 3h"), (b, "Qh Qd Qc"), (c, "Js 10s 9s"), (d, "4h 4d 7c"), (e, "Ah Qs 2c")):
        deal(pick, cards)
    game_finish(actor=MANAGER, pick_id=a.pk)
    assert [lines_of(p)[0][1] for p in (a, b, d, e, c)] == [1_000_000, 500_000, 300_000, 200_000, 100_000]
    assert lines_of(a) == [("cash", 1_000_000, "game")]
    assert PrizeLine.objects.get(pick=a).words == "Place 1 in Best Hand (Four of a kind, kings)"
    assert PrizeLine.objects.get(pick=c).words == "Place 5 in Best Hand (Pair of kings)"


def test_example_13_a_low_straight_beats_three_of_a_kind(reference_data):
    """§5 #13: community Ac 2d: 3h 4s 5c (A-5 straight, the ace low) vs 7s 7h 7d."""
    _draw, (first, second) = best_hand(2, "7s 7h 7d 3h 4s 5c Ac 2d")
    deal(first, "7s 7h 7d")
    deal(second, "3h 4s 5c")
    with pytest.raises(DomainError, match=r"Record the two community cards first \(FL r83\)"):
        game_finish(actor=MANAGER, pick_id=first.pk)
    community(first, "Ac 2d")
    game_finish(actor=MANAGER, pick_id=first.pk)
    assert lines_of(second) == [("cash", 1_000_000, "game")]
    assert lines_of(first) == [("cash", 500_000, "game")]
    assert PrizeLine.objects.get(pick=second).words == "Place 1 in Best Hand (Straight, five high)"


def test_equal_hands_share_their_places_prizes(reference_data):
    """A9: suits never rank; equal hands split the prizes of the places they occupy."""
    _draw, (first, second) = best_hand(2, "Ah Kd 2c 3d 7h 2d 3c 7s")
    community(first, "Ah Kd")
    deal(first, "2c 3d 7h")
    deal(second, "2d 3c 7s")
    game_finish(actor=MANAGER, pick_id=second.pk)
    assert lines_of(first) == lines_of(second) == [("cash", 750_000, "game")]  # (R10,000 + R5,000) / 2
    assert PrizeLine.objects.get(pick=first).words.startswith("Places 1 and 2 shared")


def test_impossible_cards_are_refused_in_words(reference_data):
    draw, (first, second) = best_hand(2, "Ks Kh 3d 4d 2c 5c 6d 7d")
    community(first, "Ks Kh")
    with pytest.raises(DomainError, match="The community cards are already recorded"):
        community(second, "Qs Qh")
    with pytest.raises(DomainError, match="Ks was recorded twice: each card is dealt once"):
        deal(first, "Ks 3d 4d")
    with pytest.raises(DomainError, match="“Kx” is not a card"):
        deal(first, "Kx 3d 4d")
    with pytest.raises(DomainError, match=r"the winner's three cards \(FL r84\): 3 cards, 2 were written"):
        deal(first, "3d 4d")
    deal(first, "2c 3d 4d")
    with pytest.raises(DomainError, match="already recorded"):
        deal(first, "5c 6d 7d")
    assert len(GamePlay.objects.get(draw=draw).events) == 2


def test_a_deck_set_on_the_board_refuses_a_card_outside_it(reference_data):
    """A9: the 25-card deck is the board's setting; every card dealt must be in it."""
    deck = "As Ks Qs Js 10s Ah Kh Qh Jh 10h Ad Kd Qd Jd 10d Ac Kc Qc Jc 10c 9s 9h 9d 9c 8s"
    _draw, (first,) = draw_of(1, BoardGame.BEST_HAND, PLACES, settings={"split_ties": True, "deck": deck})
    with pytest.raises(DomainError, match="2c is not in the Best Hand deck of 25 cards"):
        deal(first, "2c Ad Kd")
    with pytest.raises(DomainError, match="2h is not in the Best Hand deck of 25 cards"):
        community(first, "2h 8s")  # the community cards too
    deal(first, "9c Ad Kd")
    community(first, "8s As")


def test_the_board_refuses_a_deck_that_is_not_25_cards_once_each(reference_data):
    """The service refuses what the page refuses: a deck the conductor could not deal from."""
    from promotions.tests.factories import make_series

    board = board_create(actor=MANAGER, series=make_series(), game=BoardGame.BEST_HAND, slots=PLACES)
    with pytest.raises(DomainError, match=r"The Best Hand deck has 26 cards; FL rule 84 deals from 25\."):
        board_save(actor=MANAGER, board_id=board.pk, slots={}, settings={"deck": deck_of("As") + " 2c"})
    with pytest.raises(DomainError, match="The Best Hand deck has a card that cannot be read"):
        board_save(actor=MANAGER, board_id=board.pk, slots={}, settings={"deck": deck_of("As").replace("As", "Ax")})


def test_the_conductor_deals_from_the_run_page(reference_data, client_for):
    draw, (first, second) = best_hand(2, "Ac 2d 7s 7h 7d 3h 4s 5c")
    client = client_for(PROMOTIONS_MANAGER)
    page = client.get(f"/draws/{draw.pk}/").content.decode()
    assert 'id="community-cards"' in page and f'id="cards-{second.k}"' in page
    url = f"/prizes/draws/{draw.pk}/game/event/"
    client.post(url, {"pick": first.pk, "community": "Ac 2d"})
    client.post(url, {"pick": first.pk, "cards": "7s 7h 7d"})
    page = client.post(url, {"pick": second.pk, "cards": "3h 4s 7d"}, follow=True).content.decode()
    assert "7d was recorded twice: each card is dealt once" in page
    page = client.post(url, {"pick": second.pk, "cards": "3h 4s 5c"}, follow=True).content.decode()
    assert 'id="community-cards"' not in page and "Community cards Ac 2d; cards 7s 7h 7d" in page
    page = client.post(f"/prizes/draws/{draw.pk}/game/finish/", {"pick": first.pk}, follow=True).content.decode()
    assert "2 prize lines recorded" in page and "Place 1 in Best Hand (Straight, five high)" in page
