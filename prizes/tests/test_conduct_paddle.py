"""Turn Up the Heat's 7pm paddle conducted from the run page (TH r112-r117, PRIZES.md §5 example
20): the paddle, then the reveals one by one, a stop; the prize is the last reveal opened."""

import pytest

from core.errors import DomainError
from core.roles import PROMOTIONS_MANAGER
from draws.tests.builders import MANAGER
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, PrizeLine
from prizes.services import SlotDef
from prizes.tests.test_conduct import draw_of, lines_of, on_stage  # noqa: F401

pytestmark = pytest.mark.django_db

# TH r116: 25 reveals, amounts cfg: Reveal n stands for R1,000 x n here.
REVEALS = [SlotDef(f"Reveal {n}", n * 100_000, rule="r116") for n in range(1, 26)]


def paddle_draw(winners: int, **kwargs):
    return draw_of(winners, BoardGame.PADDLE, REVEALS, settings={"reveals": 25}, **kwargs)


def play(pick, **event):
    return game_event_record(actor=MANAGER, pick_id=pick.pk, event={k: str(v) for k, v in event.items()})


def test_example_20_paddle_2_opens_a_then_b_and_wins_b_even_if_a_is_more(reference_data):
    """§5 #20: paddle 2, opens a then b -> b, even if a > b (r115, r117: never summed)."""
    _draw, (first, second) = paddle_draw(2)
    with pytest.raises(DomainError, match=r"Pick \d+ picks a paddle first \(TH r113\)"):
        play(first, reveal=20)
    with pytest.raises(DomainError, match=r"There is no paddle 5: the paddles hold 2, 3 or 4 \(TH r113\)"):
        play(first, paddle=5)
    play(first, paddle=2)
    with pytest.raises(DomainError, match=r"plays first: the winners come on stage in the order they were drawn"):
        play(second, paddle=3)
    play(first, reveal=20)
    play(first, reveal=3)
    with pytest.raises(DomainError, match=r"turn is over: the last reveal opened is the prize \(TH r115\)"):
        play(first, reveal=4)
    play(second, paddle=4)
    with pytest.raises(DomainError, match="Reveal 20 was already opened in this draw"):
        play(second, reveal=20)
    play(second, reveal=7)
    with pytest.raises(DomainError, match=f"Record pick {second.k}'s turn first"):
        game_finish(actor=MANAGER, pick_id=first.pk)  # paddle 4: three chances left and no stop
    play(second, stop=1)
    game_finish(actor=MANAGER, pick_id=first.pk)
    assert lines_of(first) == [("cash", 300_000, "board")]  # b = reveal 3, not 20 nor 23
    assert PrizeLine.objects.get(pick=first).words == "Reveal 3, the last of 2 opened with paddle 2"
    assert lines_of(second) == [("cash", 700_000, "board")]


def test_a_winner_stops_only_after_opening_a_reveal(reference_data):
    _draw, (first,) = paddle_draw(1)
    play(first, paddle=3)
    with pytest.raises(DomainError, match=r"Open a reveal before stopping"):
        play(first, stop=1)
    with pytest.raises(DomainError, match="Choose the paddle picked or the reveal opened"):
        play(first)


def test_the_conductor_plays_the_paddle_from_the_run_page(reference_data, client_for):
    draw, (first,) = paddle_draw(1)
    client = client_for(PROMOTIONS_MANAGER)
    url = f"/prizes/draws/{draw.pk}/game/event/"
    page = client.get(f"/draws/{draw.pk}/").content.decode()
    assert f'id="paddle-2-{first.k}"' in page and f'id="reveal-{first.k}"' not in page
    page = client.post(url, {"pick": first.pk, "paddle": "2"}, follow=True).content.decode()
    assert f'id="reveal-{first.k}"' in page and f'id="paddle-stop-{first.k}"' not in page
    page = client.post(url, {"pick": first.pk, "reveal": "9"}, follow=True).content.decode()
    assert f'id="paddle-stop-{first.k}"' in page
    client.post(url, {"pick": first.pk, "reveal": "1", "stop": "1"})  # Stop posts the select too
    page = client.post(f"/prizes/draws/{draw.pk}/game/finish/", {"pick": first.pk}, follow=True).content.decode()
    assert "Paddle 2; opened reveal 9; stopped" in page
    assert "Reveal 9, the last of 1 opened with paddle 2" in page
