"""Roulette-Xtra conducted from the run page (FL r86-r94, A10; prizes/conducting/roulette.py):
the card's podium, then up to 10 spins from what the winner holds, then the stop; the prize is
the balance (PRIZES.md §5 examples 10 and 11)."""

import pytest

from core.errors import DomainError
from draws.tests.builders import MANAGER
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, PrizeLine
from prizes.services import SlotDef
from prizes.tests.test_conduct import draw_of, lines_of, on_stage  # noqa: F401

pytestmark = pytest.mark.django_db

# FL r90: the podiums' amounts are not in the seed (cfg); r91: x2…x10, which number has which is
# not given either (A10): number 17 pays x3 as in example 10, the others x2.
PODIUMS = [SlotDef(f"Podium {i}", amount) for i, amount in enumerate((500_000, 600_000, 700_000, 800_000, 900_000), 1)]
WHEEL = {f"multiplier_{n}": 3 if n == 17 else 2 for n in range(37)}


def roulette_draw(winners: int = 2, **kwargs):
    return draw_of(winners, BoardGame.ROULETTE, PODIUMS, settings=WHEEL, **kwargs)


def spin(pick, number: int, stake: str, result: int):
    return game_event_record(
        actor=MANAGER, pick_id=pick.pk, event={"number": str(number), "stake": stake, "result": str(result)}
    )


def test_example_10_a_hit_on_17_at_x3_pays_the_podium_plus_r2000(reference_data):
    """§5 #10: podium P, R1,000 on 17 (x3) hits, stops: P + R2,000 (A10: B - s + s*m)."""
    _draw, (first, second) = roulette_draw()
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "1"})
    spin(first, 17, "1,000", 17)
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"stop": "1"})
    with pytest.raises(DomainError, match="has stopped: their prize is what they hold"):
        spin(first, 17, "200", 3)
    game_event_record(actor=MANAGER, pick_id=second.pk, event={"slot": "2"})
    game_event_record(actor=MANAGER, pick_id=second.pk, event={"stop": "1"})  # keeps the podium
    game_finish(actor=MANAGER, pick_id=first.pk)
    assert lines_of(first) == [("cash", 500_000 + 200_000, "game")]
    assert PrizeLine.objects.get(pick=first).words == ("Roulette: podium R 5,000.00, 1 spin, stopped at R 7,000.00")
    assert lines_of(second) == [("cash", 600_000, "game")]


def test_example_11_ten_misses_of_r200_then_the_11th_spin_is_refused(reference_data):
    """§5 #11: P >= R2,000, 10 x R200 miss: P - R2,000; an 11th spin (r94) and a R150 stake
    (r93) are refused."""
    _draw, (first,) = roulette_draw(1)
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "3"})
    with pytest.raises(DomainError, match=r"A bet is at least R 200.00 \(FL r93\), not R 150.00"):
        spin(first, 5, "150", 6)
    for _ in range(10):
        spin(first, 5, "200", 6)
    with pytest.raises(DomainError, match=r"at most 10 spins \(FL r94\)"):
        spin(first, 5, "200", 6)
    game_finish(actor=MANAGER, pick_id=first.pk)  # ten spins end the turn: no stop needed
    assert lines_of(first) == [("cash", 700_000 - 200_000, "game")]


def test_spins_follow_the_podium_and_never_stake_more_than_the_winner_holds(reference_data):
    _draw, (first,) = roulette_draw(1)
    with pytest.raises(DomainError, match=f"Record the podium pick {first.k} opened first"):
        spin(first, 5, "200", 6)
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "1"})
    with pytest.raises(DomainError, match=f"Pick {first.k} opened a podium already"):
        game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "2"})
    with pytest.raises(DomainError, match=r"holds R 5,000.00: a bet of R 5,000.01 is more than that"):
        spin(first, 5, "5000.01", 6)
    with pytest.raises(DomainError, match="Where the ball landed is a number from 0 to 36, not x"):
        game_event_record(actor=MANAGER, pick_id=first.pk, event={"number": "5", "stake": "200", "result": "x"})
    with pytest.raises(DomainError, match="The wheel stops on a number from 0 to 36, not 37"):
        spin(first, 5, "200", 37)
    with pytest.raises(DomainError, match="Type the stake in rand"):
        game_event_record(actor=MANAGER, pick_id=first.pk, event={"number": "5", "stake": "", "result": "6"})


def test_finish_waits_until_every_winner_has_stopped(reference_data):
    _draw, (first, second) = roulette_draw()
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "1"})
    game_event_record(actor=MANAGER, pick_id=second.pk, event={"slot": "2"})
    game_event_record(actor=MANAGER, pick_id=second.pk, event={"stop": "1"})
    with pytest.raises(DomainError, match=f"Record pick {first.k}'s turn first"):
        game_finish(actor=MANAGER, pick_id=first.pk)
    assert not PrizeLine.objects.exists()


def test_a_stricter_board_limit_is_kept(reference_data):
    _draw, (first,) = draw_of(1, BoardGame.ROULETTE, PODIUMS, settings={**WHEEL, "min_stake_cents": 50_000})
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "1"})
    with pytest.raises(DomainError, match=r"A bet on this board is at least R 500.00, not R 200.00"):
        spin(first, 5, "200", 6)


def test_the_conductor_plays_roulette_from_the_run_page(reference_data, client_for):
    from core.roles import PROMOTIONS_MANAGER

    draw, (first,) = roulette_draw(1)
    client = client_for(PROMOTIONS_MANAGER)
    event_url = f"/prizes/draws/{draw.pk}/game/event/"
    assert f'id="podium-record-{first.k}"' in client.get(f"/draws/{draw.pk}/").content.decode()
    client.post(event_url, {"pick": first.pk, "slot": "4"})
    page = client.post(
        event_url, {"pick": first.pk, "number": "17", "stake": "R 1,000", "result": "17"}, follow=True
    ).content.decode()
    assert "Holds R 10,000.00 after 1 of 10 spins" in page
    page = client.post(
        event_url, {"pick": first.pk, "number": "17", "stake": "200", "result": "1", "stop": "1"}, follow=True
    ).content.decode()
    assert "Podium 4; R 1,000.00 on 17, the ball on 17; stopped" in page
    page = client.post(f"/prizes/draws/{draw.pk}/game/finish/", {"pick": first.pk}, follow=True).content.decode()
    assert "1 prize line recorded" in page
    assert lines_of(first) == [("cash", 1_000_000, "game")]
