"""The digit safe conducted from the run page (TH r120-r126, A17; prizes/conducting/safe.py): the
podium, then keep it or forfeit R2,000 to try the safe; a crack pays the safe (the series'
progressive) and puts it back to R100,000; a 9pm draw finishing uncracked grows it by R20,000
(PRIZES.md §5 example 16)."""

import datetime as dt

import pytest
import time_machine

from core.errors import DomainError
from draws.engine import draw_start
from draws.tests.builders import MANAGER, SAST, closed_draw
from members.models import Member
from prizes import services
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, GamePlay, PrizeLine, Progressive
from prizes.progressives import progressive_value
from prizes.services import SlotDef, board_create
from prizes.tests.conftest import record_next_winner
from prizes.tests.test_conduct import lines_of
from promotions.models import Promotion
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

# r124: podiums of R5,000 to R10,000 (the amounts are cfg).
AMOUNTS = (500_000, 600_000, 800_000, 900_000, 1_000_000)
PODIUMS = [SlotDef(f"Podium {i}", amount) for i, amount in enumerate(AMOUNTS, 1)]
SATURDAYS = [dt.datetime(2025, 11, day, 21, 0, tzinfo=SAST) for day in (1, 8, 15)]


@pytest.fixture
def nine_pm(reference_data):
    """TH's Saturday 9pm series (its codes, so its add-ons apply: r128-r129) with the safe."""
    series = make_series()
    Promotion.objects.filter(pk=series.promotion_id).update(code="grc-turn-up-the-heat")
    series.code, series.winners_per_draw = "sat-cash-2100", 2
    series.save()
    board_create(actor=MANAGER, series=series, game=BoardGame.SAFE, slots=PODIUMS)
    progressive = Progressive.objects.create(
        promotion_id=series.promotion_id,
        series=series,
        code="th-safe",
        name="Digit safe",
        base_cents=10_000_000,  # r126 "a Base value of R100, 000"
        increment_cents=2_000_000,  # r126 "increase by R20, 000 per cash draw if not won"
    )
    return series, progressive


def on_stage(series, at: dt.datetime):
    """The 9pm draw of `at`, started, its two winners recorded; the clock a minute after."""
    travel = time_machine.travel(at + dt.timedelta(minutes=1), tick=False)
    travel.start()
    draw, _ = closed_draw(series, at, [3, 40, 7, 50])
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    picks = [record_next_winner(draw) for _ in range(2)]
    return travel, draw, picks


def play(pick, *events: dict):
    for event in events:
        game_event_record(actor=MANAGER, pick_id=pick.pk, event=event)


def test_example_16_two_uncracked_nights_then_a_crack_pays_r140000_and_resets(nine_pm, client_for):
    """§5 #16: 2 uncracked before -> safe R140,000; podium R8,000; cracks; app + pT:
    R6,000 + R140,000 + R500 + +Play R500; safe -> R100,000."""
    series, progressive = nine_pm
    for at, outcomes in zip(SATURDAYS[:2], (("kept", "not_cracked"), ("not_cracked", "kept")), strict=True):
        travel, _draw, (w1, w2) = on_stage(series, at)
        play(w1, {"slot": "1"}, {"safe": outcomes[0]})
        play(w2, {"slot": "2"}, {"safe": outcomes[1]})
        game_finish(actor=MANAGER, pick_id=w1.pk)
        travel.stop()
    assert progressive_value(progressive) == 14_000_000  # A17: +R20,000 per 9pm draw closing uncracked

    travel, _draw, (w1, w2) = on_stage(series, SATURDAYS[2])
    Member.objects.filter(pk=w2.member_id).update(
        app_registered_on=dt.date(2025, 10, 1), playtsogo_active_since=dt.date(2025, 10, 1)
    )
    play(w1, {"slot": "5"}, {"safe": "kept"})
    play(w2, {"slot": "3"}, {"safe": "cracked"})
    game_finish(actor=MANAGER, pick_id=w1.pk)
    travel.stop()
    assert lines_of(w2) == [
        ("cash", 600_000, "game"),  # R8,000 - R2,000 forfeited
        ("cash", 14_000_000, "jackpot"),
        ("cash", 50_000, "add_on"),
        ("play", 50_000, "add_on"),
    ]
    assert lines_of(w1) == [("cash", 1_000_000, "board")]
    # The jackpot's line keeps what happened on stage before the jackpot that paid it.
    jackpot = PrizeLine.objects.get(pick=w2, source="jackpot")
    assert jackpot.words == "Safe cracked: R 140,000.00; paid from Digit safe: R 140,000.00"
    assert (jackpot.data["cracked"], jackpot.data["progressive"]) == (True, "th-safe")
    from core.roles import AUDITOR

    record = client_for(AUDITOR).get(f"/prizes/draws/{_draw.pk}/").content.decode()  # the prize record page
    assert "Safe cracked: R 140,000.00; paid from Digit safe: R 140,000.00" in record
    assert progressive_value(progressive) == 10_000_000  # back to base after the crack
    assert not progressive.entries.filter(kind="grow", draw=_draw).exists()  # a cracked night does not grow


def test_one_crack_a_night_and_podiums_within_r5000_to_r10000(nine_pm):
    series, _ = nine_pm
    travel, _draw, (w1, w2) = on_stage(series, SATURDAYS[0])
    try:
        with pytest.raises(DomainError, match=f"Record the podium pick {w1.k} opened first"):
            play(w1, {"safe": "cracked"})
        play(w1, {"slot": "1"}, {"safe": "cracked"})
        with pytest.raises(DomainError, match=f"Pick {w1.k}'s turn is over"):
            play(w1, {"safe": "kept"})
        play(w2, {"slot": "2"})
        with pytest.raises(DomainError, match="cracked the safe tonight: it is empty until next Saturday's 9pm draw"):
            play(w2, {"safe": "not_cracked"})
        with pytest.raises(DomainError, match="keeps the podium, or tries the safe"):
            play(w2, {"safe": "maybe"})
        with pytest.raises(DomainError, match=f"Record pick {w2.k}'s turn first"):
            game_finish(actor=MANAGER, pick_id=w1.pk)
        play(w2, {"safe": "kept"})
    finally:
        travel.stop()


def test_a_podium_out_of_the_seeds_range_is_refused(nine_pm):
    series, _ = nine_pm
    series.prize_boards.get().slots.filter(label="Podium 1").update(amount_cents=400_000)
    travel, _draw, (w1, _w2) = on_stage(series, SATURDAYS[0])
    try:
        with pytest.raises(DomainError, match=r"A 9pm podium holds R 5,000.00 to R 10,000.00 \(TH r124\)"):
            play(w1, {"slot": "1"})
    finally:
        travel.stop()


def test_the_conductor_plays_the_safe_from_the_run_page(nine_pm, client_for):
    from core.roles import PROMOTIONS_MANAGER

    series, progressive = nine_pm
    travel, draw, (w1, w2) = on_stage(series, SATURDAYS[0])
    try:
        client = client_for(PROMOTIONS_MANAGER)
        url = f"/prizes/draws/{draw.pk}/game/event/"
        client.post(url, {"pick": w1.pk, "slot": "4"})
        page = client.post(url, {"pick": w1.pk, "safe": "not_cracked"}, follow=True).content.decode()
        assert "Podium 4; forfeits R 2,000.00, tries the safe: not cracked" in page
        client.post(url, {"pick": w2.pk, "slot": "2"})
        client.post(url, {"pick": w2.pk, "safe": "kept"})
        page = client.post(f"/prizes/draws/{draw.pk}/game/finish/", {"pick": w1.pk}, follow=True).content.decode()
        assert "2 prize lines recorded" in page
    finally:
        travel.stop()
    assert lines_of(w1) == [("cash", 700_000, "game")]
    assert PrizeLine.objects.get(pick=w1).words.endswith("R 7,000.00, not cracked")
    assert progressive_value(progressive) == 12_000_000


def test_the_forfeit_is_the_boards_setting(nine_pm):
    """r125's R2,000 is the board's default: a manager's R3,000 is what a try costs (words too)."""
    series, _ = nine_pm
    board = series.prize_boards.get()
    services.board_save(actor=MANAGER, board_id=board.pk, slots={}, settings={"forfeit_cents": 300_000})
    travel, _draw, (w1, w2) = on_stage(series, SATURDAYS[0])
    try:
        play(w1, {"slot": "3"}, {"safe": "not_cracked"})  # R8,000
        play(w2, {"slot": "1"}, {"safe": "kept"})
        game_finish(actor=MANAGER, pick_id=w1.pk)
    finally:
        travel.stop()
    assert lines_of(w1) == [("cash", 500_000, "game")]  # R8,000 - R3,000
    line = PrizeLine.objects.get(pick=w1)
    assert line.words == "9pm podium R 8,000.00 less R 3,000.00 to try the safe: R 5,000.00, not cracked"
    assert line.data["forfeit_cents"] == 300_000
    assert lines_of(w2) == [("cash", 500_000, "board")]


def test_a_forfeit_above_the_podium_is_refused(nine_pm):
    """A forfeit set above the podium opened cannot be taken from it: refused before it is kept."""
    series, _ = nine_pm
    board = series.prize_boards.get()
    services.board_save(actor=MANAGER, board_id=board.pk, slots={}, settings={"forfeit_cents": 600_001})
    travel, draw, (w1, w2) = on_stage(series, SATURDAYS[0])
    try:
        play(w1, {"slot": "2"})  # R6,000
        with pytest.raises(DomainError, match=r"forfeits R 6,000.01, more than the podium's R 6,000.00"):
            play(w1, {"safe": "cracked"})
        play(w2, {"slot": "3"}, {"safe": "not_cracked"})  # R8,000: the forfeit fits
    finally:
        travel.stop()
    forfeits = [e.get("forfeit_cents") for e in GamePlay.objects.get(draw=draw).events]
    assert forfeits == [None, None, 600_001]
