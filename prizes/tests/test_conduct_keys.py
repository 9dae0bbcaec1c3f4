"""The stage game's focus and keys on the run page (SCREENS.md rule 5): the winner whose turn it
is holds the focus (data-focus-turn), the vault's balls show and take W and K on that row only,
and Finish takes the focus once every turn is in (data-focus-after; static/js/run_follow.js)."""

import re

import pytest

from core.roles import PROMOTIONS_MANAGER
from prizes.conduct import game_event_record
from prizes.tests.test_conduct import on_stage, vault_draw  # noqa: F401

pytestmark = pytest.mark.django_db


def _row(page: str, k: int) -> str:
    return re.search(rf'<tr id="game-pick-{k}">.*?</tr>', page, re.S).group(0)


def test_the_turn_is_the_first_winner_without_a_ball_and_only_it_takes_w_and_k(reference_data, client_for):
    """GH r9, A1: in pick order each winner draws one ball; winner 1 drew, so winner 2 is next."""
    from draws.tests.builders import MANAGER

    draw, (first, second, third) = vault_draw()
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"ball": "white"})
    page = client_for(PROMOTIONS_MANAGER).get(f"/draws/{draw.pk}/").content.decode()
    assert "data-focus-turn" not in _row(page, first.k)
    turn = _row(page, second.k)
    assert "data-focus-turn" in turn and "data-stage-keys" in turn
    assert 'data-key="W"><kbd>W</kbd> White ball' in turn and 'data-key="K"><kbd>K</kbd> Pink ball' in turn
    later = _row(page, third.k)
    assert f'id="ball-white-{third.k}"' in later and "data-key" not in later and "data-focus-turn" not in later
    assert "data-focus-after" not in page  # Finish waits for winner 3's ball


def test_finish_takes_the_focus_once_every_ball_is_drawn(reference_data, client_for):
    from draws.tests.builders import MANAGER

    draw, picks = vault_draw()
    for pick, ball in zip(picks, ("white", "pink", "white"), strict=True):
        game_event_record(actor=MANAGER, pick_id=pick.pk, event={"ball": ball})
    page = client_for(PROMOTIONS_MANAGER).get(f"/draws/{draw.pk}/").content.decode()
    assert "data-focus-turn" not in page and "data-key=" not in page.split('id="game"')[1]
    assert re.search(r'id="game-finish-\d+" data-focus-after>', page)
