"""Turn Up the Heat's 21h30 share-out of 20 December (TH r135-r141, A18; prizes/conducting/
share_out.py): the safe never cracked, Finish pays the five winners equal SHARE_OUT lines and
records the safe's share-out entry (PRIZES.md §5 example 17: "TH 21h30 20 Dec after 10 uncracked
9pm draws | 5 x R60,000", i.e. R20,000 + n x R4,000 each); a crack refuses the draw's Start."""

import datetime as dt

import pytest
import time_machine

from core.errors import DomainError
from core.roles import PROMOTIONS_MANAGER
from draws.engine import draw_start
from draws.tests.builders import MANAGER, SAST, closed_draw
from members.models import Member
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, PrizeLine, Progressive
from prizes.progressives import progressive_value
from prizes.services import SlotDef, board_create
from prizes.tests.conftest import record_next_winner
from prizes.tests.test_conduct import lines_of
from promotions.models import Promotion
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

PODIUMS = [SlotDef(f"Podium {i}", 500_000 + i * 100_000) for i in range(1, 6)]  # r124: R5,000-R10,000, cfg
# Ten Saturday 9pm draws, the last on 20 December (r135: the share-out is at 21h30 that day).
NIGHTS = [dt.datetime(2025, 10, 18, 21, 0, tzinfo=SAST) + dt.timedelta(weeks=n) for n in range(10)]
SHARE_AT = dt.datetime(2025, 12, 20, 21, 30, tzinfo=SAST)


@pytest.fixture
def turn_up_the_heat(reference_data):
    """TH's 9pm series (one winner a night, to keep it short) with the digit safe, and the 21h30
    share-out series of five winners (r138) that shares it."""
    nine_pm = make_series()
    Promotion.objects.filter(pk=nine_pm.promotion_id).update(code="grc-turn-up-the-heat")
    nine_pm.code, nine_pm.winners_per_draw = "sat-cash-2100", 1
    nine_pm.save()
    board_create(actor=MANAGER, series=nine_pm, game=BoardGame.SAFE, slots=PODIUMS)
    share = make_series()  # a new "test-promo": moved into TH, so its add-ons apply (r140-r141)
    share.promotion_id, share.code, share.winners_per_draw = nine_pm.promotion_id, "sat-safe-share-2130", 5
    share.save()
    board_create(actor=MANAGER, series=share, game=BoardGame.SHARE_OUT, slots=[])
    safe = Progressive.objects.create(
        promotion_id=nine_pm.promotion_id,
        series=nine_pm,
        share_series=share,
        code="th-safe",
        name="Digit safe",
        base_cents=10_000_000,  # r126 "a Base value of R100, 000"
        increment_cents=2_000_000,  # r126 "increase by R20, 000 per cash draw if not won"
    )
    return nine_pm, share, safe


def started(series, at: dt.datetime, winners: int):
    with time_machine.travel(at + dt.timedelta(minutes=1), tick=False):
        draw, _ = closed_draw(series, at, [3, 40, 7, 50, 9, 11][: winners + 1])
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
        picks = [record_next_winner(draw) for _ in range(winners)]
    return draw, picks


def nine_pm_night(series, at: dt.datetime, outcome: str = "kept", *, finish: bool = True):
    draw, (winner,) = started(series, at, 1)
    with time_machine.travel(at + dt.timedelta(minutes=5), tick=False):
        game_event_record(actor=MANAGER, pick_id=winner.pk, event={"slot": "1"})
        game_event_record(actor=MANAGER, pick_id=winner.pk, event={"safe": outcome})
        if finish:
            game_finish(actor=MANAGER, pick_id=winner.pk)
    return draw, winner


def finish_share_out(picks):
    with time_machine.travel(SHARE_AT + dt.timedelta(minutes=10), tick=False):
        return game_finish(actor=MANAGER, pick_id=picks[0].pk)


def test_example_17_ten_uncracked_nights_share_r300000_as_5_x_r60000(turn_up_the_heat, client_for):
    """§5 #17: 10 uncracked 9pm draws (20 Dec's included, A18) -> R100,000 + 10 x R20,000 =
    R300,000 -> 5 x R60,000 (R20,000 + n x R4,000 each); one winner on the app also gets TH r140's
    R500. Finished from the run page."""
    nine_pm, share, safe = turn_up_the_heat
    for at in NIGHTS:
        nine_pm_night(nine_pm, at, "not_cracked" if at.day == 1 else "kept")  # an attempt still grows it (A17)
    assert progressive_value(safe) == 30_000_000
    draw, picks = started(share, SHARE_AT, 5)
    Member.objects.filter(pk=picks[2].member_id).update(app_registered_on=dt.date(2025, 10, 1))
    client = client_for(PROMOTIONS_MANAGER)
    with time_machine.travel(SHARE_AT + dt.timedelta(minutes=10), tick=False):
        page = client.get(f"/draws/{draw.pk}/").content.decode()
        assert f'id="game-finish-{share.prize_boards.get().pk}"' in page  # nothing to record: Finish
        page = client.post(f"/prizes/draws/{draw.pk}/game/finish/", {"pick": picks[0].pk}, follow=True)
    assert "6 prize lines recorded" in page.content.decode(), [str(m) for m in page.context["messages"]]
    for pick in picks:
        assert lines_of(pick)[0] == ("cash", 6_000_000, "share_out")
    assert lines_of(picks[2])[1:] == [("cash", 50_000, "add_on")]  # r140: R500 if on the app
    assert PrizeLine.objects.get(pick=picks[0]).words == (
        "Share of Digit safe: R 60,000.00 (one of 5 equal shares of R 300,000.00)"
    )
    entry = safe.entries.get(kind="share_out")
    assert (entry.draw_id, entry.change_cents, entry.balance_cents) == (draw.pk, -30_000_000, 0)
    assert entry.data == {"each_cents": 6_000_000, "picks": [p.pk for p in picks]}


def test_finish_waits_for_20_decembers_9pm_draw_to_add_its_r20000(turn_up_the_heat):
    """A18: the share includes the 20 December 9pm increment: while that game is not finished
    the safe has not grown, so the share-out is not finished either."""
    nine_pm, share, _safe = turn_up_the_heat
    last_night, winner = nine_pm_night(nine_pm, NIGHTS[-1], finish=False)
    _draw, picks = started(share, SHARE_AT, 5)
    with pytest.raises(DomainError, match=f"Finish {last_night.name} first: its R20,000 goes into Digit safe"):
        finish_share_out(picks)
    assert not PrizeLine.objects.filter(source="share_out").exists()
    with time_machine.travel(SHARE_AT + dt.timedelta(minutes=5), tick=False):
        game_finish(actor=MANAGER, pick_id=winner.pk)
    finish_share_out(picks)
    assert lines_of(picks[0]) == [("cash", 2_400_000, "share_out")]  # R120,000 / 5 = R20,000 + 1 x R4,000


def test_nothing_is_recorded_on_stage_for_the_share_out(turn_up_the_heat):
    _, share, _ = turn_up_the_heat
    _draw, picks = started(share, SHARE_AT, 5)
    with pytest.raises(DomainError, match="Nothing is played on stage for the share-out"):
        game_event_record(actor=MANAGER, pick_id=picks[0].pk, event={"slot": "1"})


def test_a_cracked_safe_refuses_the_share_out_draws_start(turn_up_the_heat):
    """r135 "only if never cracked" (A17: any crack cancels the 21h30)."""
    nine_pm, share, safe = turn_up_the_heat
    cracked_night, _ = nine_pm_night(nine_pm, NIGHTS[0], "cracked")
    nine_pm_night(nine_pm, NIGHTS[-1])  # grown again since: still no share-out
    with time_machine.travel(SHARE_AT + dt.timedelta(minutes=1), tick=False):
        draw, _ = closed_draw(share, SHARE_AT, [3, 40, 7, 50, 9, 11])
        with pytest.raises(DomainError, match=f"Digit safe was cracked at {cracked_night.name}: there is no share-out"):
            draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    assert not safe.entries.filter(kind="share_out").exists()


def test_a_crack_recorded_after_the_start_refuses_the_finish(turn_up_the_heat):
    """A 9pm game finished late with a crack: the share-out already under way is not paid."""
    nine_pm, share, safe = turn_up_the_heat
    last_night, winner = nine_pm_night(nine_pm, NIGHTS[-1], "cracked", finish=False)
    _draw, picks = started(share, SHARE_AT, 5)
    with time_machine.travel(SHARE_AT + dt.timedelta(minutes=5), tick=False):
        game_finish(actor=MANAGER, pick_id=winner.pk)
    with pytest.raises(DomainError, match=f"cracked at {last_night.name}: there is no share-out"):
        finish_share_out(picks)
    assert not PrizeLine.objects.filter(source="share_out").exists()
    assert not safe.entries.filter(kind="share_out").exists()
