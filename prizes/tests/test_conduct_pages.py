"""The conductor's panel on the draw's run page and the game on the stage screen (issue 14,
items 2 and 8): a manager records and finishes; the desk and the auditor are refused; the stage
shows the balls and the prize, by pick number, never an ID number."""

import re

import pytest

from core.roles import AUDITOR, PROMOTIONS_MANAGER, REWARDS_DESK
from draws.stage import stage_state
from prizes.models import GamePlay, PrizeLine
from prizes.tests.test_conduct import REVEALS, draw_of, on_stage, vault_draw  # noqa: F401

pytestmark = pytest.mark.django_db


def test_the_manager_records_the_balls_and_finishes_from_the_run_page(reference_data, client_for):
    draw, (first, second, third) = vault_draw()
    client = client_for(PROMOTIONS_MANAGER)
    page = client.get(f"/draws/{draw.pk}/").content.decode()
    assert 'id="ball-pink-1"' in page and "2 white and 1 pink balls left in the vault" in page
    event_url, finish_url = f"/prizes/draws/{draw.pk}/game/event/", f"/prizes/draws/{draw.pk}/game/finish/"
    client.post(event_url, {"pick": first.pk, "ball": "pink"})
    page = client.post(event_url, {"pick": second.pk, "ball": "pink"}, follow=True).content.decode()
    assert "The pink ball was already drawn by winner 1" in page  # the refusal, in words
    client.post(event_url, {"pick": second.pk, "ball": "white"})
    client.post(event_url, {"pick": third.pk, "ball": "white"})
    page = client.post(finish_url, {"pick": first.pk}, follow=True).content.decode()
    assert "3 prize lines recorded" in page
    assert "Vault: pink ball, Queen jackpot of 30 Jul 2026: R 50,000.00" in page
    assert PrizeLine.objects.filter(draw=draw).count() == 3


@pytest.mark.parametrize("role", [REWARDS_DESK, AUDITOR])
def test_the_desk_and_the_auditor_cannot_record_a_game(reference_data, client_for, role):
    draw, (first, _, _) = vault_draw()
    client = client_for(role)
    assert client.post(f"/prizes/draws/{draw.pk}/game/event/", {"pick": first.pk, "ball": "pink"}).status_code == 403
    assert client.post(f"/prizes/draws/{draw.pk}/game/finish/", {"pick": first.pk}).status_code == 403
    assert not GamePlay.objects.exists()


def test_the_stage_shows_the_balls_then_the_prize_without_an_id_number(reference_data, client_for):
    from draws.tests.builders import MANAGER
    from prizes.conduct import game_event_record, game_finish

    draw, picks = vault_draw()
    for pick, ball in zip(picks, ("white", "pink", "white"), strict=True):
        game_event_record(actor=MANAGER, pick_id=pick.pk, event={"ball": ball})
    k = [pick.k for pick in picks]  # an automatic redraw may skip a number
    assert stage_state(draw).game == [f"Pick {k[0]}: white ball", f"Pick {k[1]}: pink ball", f"Pick {k[2]}: white ball"]
    game_finish(actor=MANAGER, pick_id=picks[0].pk)
    page = client_for(PROMOTIONS_MANAGER).get(f"/draws/{draw.pk}/stage/state/").content.decode()
    assert f"Pick {k[1]}: pink ball. Won: Vault: pink ball, Queen jackpot of 30 Jul 2026: R 50,000.00" in page
    assert not re.search(r"\b\d{13}\b", page)  # no South African ID number on the big screen
    for pick in picks:
        assert pick.member.id_number not in page
