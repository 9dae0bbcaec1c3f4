"""Roll into Riches conducted from the run page (FL r95-r108, A11; prizes/conducting/
roll_into_riches.py): the randomiser's reveal, keep or forfeit, the die once, a reveal of the
rolled zone; reveal 19 pays the series' progressive and puts it back to base (PRIZES.md §5
examples 6-9)."""

import dataclasses
import datetime as dt

import pytest

from core.errors import DomainError
from draws.tests.builders import MANAGER
from members.models import Member
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, PrizeLine, Progressive
from prizes.progressives import progressive_value
from prizes.seed_boards import rir_slots
from prizes.tests.test_conduct import draw_of, lines_of, on_stage  # noqa: F401
from promotions.models import DrawSeries, Promotion

pytestmark = pytest.mark.django_db

# r98: the five randomiser reveals are not in the seed (cfg); the die board is r108's example.
FIRST = (300_000, 400_000, 500_000, 600_000, 700_000)
BOARD = [dataclasses.replace(slot, amount_cents=FIRST[i]) if i < 5 else slot for i, slot in enumerate(rir_slots())]


def rir_draw(winners: int, **kwargs):
    draw, picks = draw_of(winners, BoardGame.ROLL_INTO_RICHES, BOARD, **kwargs)
    # The FL 9pm series' codes, so its add-on applies (r116: R200 if on the app).
    Promotion.objects.filter(pk=draw.series.promotion_id).update(code="grc-fast-lane-to-fortune")
    DrawSeries.objects.filter(pk=draw.series_id).update(code="sat-cash-2100")
    return draw, picks


def play(pick, *events: dict):
    for event in events:
        game_event_record(actor=MANAGER, pick_id=pick.pk, event={k: str(v) for k, v in event.items()})


def progressive_of(draw, increment_cents: int = 0) -> Progressive:
    return Progressive.objects.create(
        promotion_id=draw.series.promotion_id,
        series=draw.series,
        code="fl-progressive-reveal",
        name="R20,000 progressive reveal",
        base_cents=2_000_000,  # r107 "A R20 000 progressive Jackpot"
        increment_cents=increment_cents,
    )


def test_examples_6_to_9_keep_forfeit_the_progressive_and_the_bonus_reveal(reference_data):
    draw, (w1, w2, w3, w4) = rir_draw(4)
    progressive = progressive_of(draw)
    Member.objects.filter(pk=w1.member_id).update(app_registered_on=dt.date(2026, 1, 5))
    play(w1, {"randomiser": 2}, {"choice": "keep"})  # #6: keeps V (R4,000), app: + R200
    play(w2, {"randomiser": 1}, {"choice": "forfeit"}, {"die": 1}, {"reveal": 1})  # #7: R2,000
    play(w3, {"randomiser": 3}, {"choice": "forfeit"}, {"die": 6}, {"reveal": 19})  # #8: the progressive
    play(w4, {"randomiser": 4}, {"choice": "forfeit"}, {"die": 6}, {"reveal": 20})  # #9: the Bonus Reveal
    game_finish(actor=MANAGER, pick_id=w1.pk)
    assert lines_of(w1) == [("cash", 400_000, "game"), ("cash", 20_000, "add_on")]
    assert lines_of(w2) == [("cash", 200_000, "game")]
    assert lines_of(w3) == [("cash", 2_000_000, "jackpot")]
    assert lines_of(w4) == [("cash", 2_500_000, "game")]
    assert PrizeLine.objects.get(pick=w4).words == (
        "Roll into Riches: forfeited R 6,000.00, rolled 6, reveal 20, the Bonus Reveal: R 25,000.00"
    )
    # The jackpot's line says what happened on stage, then the jackpot that paid it.
    jackpot = PrizeLine.objects.get(pick=w3)
    assert jackpot.words == (
        "Roll into Riches: forfeited R 5,000.00, rolled 6, reveal 19, the progressive jackpot: R 20,000.00; "
        "paid from R20,000 progressive reveal: R 20,000.00"
    )
    assert (jackpot.data["die"], jackpot.data["reveal"], jackpot.data["progressive"]) == (
        6,
        19,
        "fl-progressive-reveal",
    )
    assert progressive.entries.filter(kind="won", pick=w3).exists()
    assert progressive_value(progressive) == 2_000_000  # reset to base after the win (A11)


def test_the_die_is_rolled_once_and_names_the_zone(reference_data):
    _draw, (w1, w2) = rir_draw(2)
    with pytest.raises(DomainError, match=f"Record the randomiser pick {w1.k} chose first"):
        play(w1, {"die": 3})
    play(w1, {"randomiser": 1})
    with pytest.raises(DomainError, match=f"Randomiser 1 was chosen by pick {w1.k}: each once"):
        play(w2, {"randomiser": 1})
    with pytest.raises(DomainError, match="There are 5 randomisers, 1 to 5; not 6"):
        play(w2, {"randomiser": 6})
    with pytest.raises(DomainError, match=f"whether pick {w1.k} keeps the reveal or forfeits it first"):
        play(w1, {"die": 3})
    play(w1, {"choice": "forfeit"})
    with pytest.raises(DomainError, match="A die shows 1 to 6, not 7"):
        play(w1, {"die": 7})
    play(w1, {"die": 1})
    with pytest.raises(DomainError, match=r"The die is rolled once \(A11\)"):
        play(w1, {"die": 4})
    with pytest.raises(DomainError, match="The die shows 1: the winner opens one of reveals 1 to 3, not reveal 19"):
        play(w1, {"reveal": 19})
    play(w1, {"reveal": 3})
    with pytest.raises(DomainError, match=f"Pick {w1.k}'s turn is over"):
        play(w1, {"reveal": 2})
    play(w2, {"randomiser": 5}, {"choice": "keep"})
    with pytest.raises(DomainError, match=f"Pick {w2.k}'s turn is over"):
        play(w2, {"choice": "forfeit"})


def test_finish_waits_for_the_reveal_after_a_forfeit(reference_data):
    _draw, (w1,) = rir_draw(1)
    play(w1, {"randomiser": 1}, {"choice": "forfeit"}, {"die": 2})
    with pytest.raises(DomainError, match=f"Record pick {w1.k}'s turn first"):
        game_finish(actor=MANAGER, pick_id=w1.pk)
    assert not PrizeLine.objects.exists()


def test_a_draw_without_the_progressive_won_grows_it_by_its_increment(reference_data):
    """A11: the growth is not in the seed (R0 by default); a manager's increment is added when the
    9pm draw closes with reveal 19 not opened."""
    draw, (w1,) = rir_draw(1)
    progressive = progressive_of(draw, increment_cents=100_000)
    play(w1, {"randomiser": 1}, {"choice": "keep"})
    game_finish(actor=MANAGER, pick_id=w1.pk)
    assert progressive_value(progressive) == 2_100_000
    assert progressive.entries.get().kind == "grow"


def test_the_conductor_plays_roll_into_riches_from_the_run_page(reference_data, client_for):
    from core.roles import PROMOTIONS_MANAGER

    draw, (w1,) = rir_draw(1)
    client = client_for(PROMOTIONS_MANAGER)
    url = f"/prizes/draws/{draw.pk}/game/event/"
    assert f'id="randomiser-record-{w1.k}"' in client.get(f"/draws/{draw.pk}/").content.decode()
    client.post(url, {"pick": w1.pk, "randomiser": "2"})
    page = client.post(url, {"pick": w1.pk, "choice": "forfeit"}, follow=True).content.decode()
    assert f'id="rir-die-5-{w1.k}"' in page
    page = client.post(url, {"pick": w1.pk, "die": "5"}, follow=True).content.decode()
    assert '<option value="15">Reveal 15</option>' in page and '<option value="18">' not in page
    client.post(url, {"pick": w1.pk, "reveal": "16"})
    page = client.post(f"/prizes/draws/{draw.pk}/game/finish/", {"pick": w1.pk}, follow=True).content.decode()
    assert "Randomiser 2; forfeits the reveal to roll the die; rolled 5; opened reveal 16" in page
    assert lines_of(w1) == [("cash", 1_500_000, "game")]
