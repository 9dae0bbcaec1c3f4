"""Boards without a stage game, "By the order of the picks" (the Wednesday and Saturday cash
draws, the car draws' finalist places, Royal Flush's bins): Finish gives winner n the board's
n-th prize with nothing recorded on stage, places carried into their later draw."""

import pytest

from core.errors import DomainError
from core.roles import PROMOTIONS_MANAGER
from draws.tests.builders import MANAGER
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, PrizeLine
from prizes.services import SlotDef
from prizes.tests.test_conduct import draw_of, lines_of, on_stage  # noqa: F401

pytestmark = pytest.mark.django_db

CASH = [SlotDef("Winner 1", 500_000), SlotDef("Winner 2", 300_000), SlotDef("Winner 3", 100_000)]


def test_each_winner_takes_the_prize_of_their_place_in_the_pick_order(reference_data):
    draw, (first, second, third) = draw_of(3, BoardGame.PLACE, CASH)
    stored = game_finish(actor=MANAGER, pick_id=third.pk)
    assert [lines_of(p) for p in (first, second, third)] == [
        [("cash", 500_000, "board")],
        [("cash", 300_000, "board")],
        [("cash", 100_000, "board")],
    ]
    assert [line.data["order"] for line in stored] == [1, 2, 3]
    with pytest.raises(DomainError, match="finished and its prizes recorded"):
        game_finish(actor=MANAGER, pick_id=first.pk)
    assert PrizeLine.objects.filter(draw=draw).count() == 3


def test_nothing_is_recorded_on_stage_for_such_a_board(reference_data):
    _draw, (first, _second) = draw_of(2, BoardGame.PLACE, CASH[:2])
    with pytest.raises(DomainError, match="the prizes follow the order of the picks"):
        game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "Winner 2"})


def test_finish_waits_for_the_last_winner(reference_data):
    _draw, (first,) = draw_of(2, BoardGame.PLACE, CASH[:2], complete=False)
    with pytest.raises(DomainError, match="once the draw has all its winners"):
        game_finish(actor=MANAGER, pick_id=first.pk)
    assert not PrizeLine.objects.exists()


def test_a_board_with_fewer_prizes_than_winners_is_refused_in_words(reference_data):
    _draw, (first, _second, _third) = draw_of(3, BoardGame.PLACE, CASH[:2])
    with pytest.raises(DomainError, match="The prize board has 2 prizes for 3 winners: add the missing prizes"):
        game_finish(actor=MANAGER, pick_id=first.pk)
    assert not PrizeLine.objects.exists()


def test_the_run_page_shows_the_order_and_finishes_with_one_click(reference_data, client_for):
    draw, (first, second) = draw_of(2, BoardGame.PLACE, CASH[:2])
    client = client_for(PROMOTIONS_MANAGER)
    page = client.get(f"/draws/{draw.pk}/").content.decode()
    assert page.count("By the order of the picks") >= 2  # the game's name and each winner's row
    page = client.post(f"/prizes/draws/{draw.pk}/game/finish/", {"pick": first.pk}, follow=True).content.decode()
    assert "2 prize lines recorded" in page
    assert lines_of(second) == [("cash", 300_000, "board")]
