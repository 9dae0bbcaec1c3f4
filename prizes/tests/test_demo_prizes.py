"""`make run`'s prize demo (issue 14, item 10; prizes/demo.py): a demo copy of each seed with a
draw played yesterday evening through the conductor's services, its prize lines on the prize
record page; loading again adds nothing, and the seeds' own promotions are left alone."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from core.roles import PROMOTIONS_MANAGER
from draws.commitments import draw_verify
from draws.models import Draw, DrawStatus
from members.demo import seed_members
from members.models import Member
from prizes.demo import DEMO_GAMES, DEMO_NOTE, demo_code, load_demo_prizes
from prizes.models import GamePlay, GamePlayStatus, PrizeBoard, PrizeLine, ProgressiveEntry
from promotions.models import Promotion

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2026, 12, 2, 10, 0, tzinfo=SAST)
YESTERDAY = dt.date(2026, 12, 1)


@pytest.fixture
def demo(reference_data, user_for):
    with time_machine.travel(NOW, tick=False):
        manager = user_for(PROMOTIONS_MANAGER, username="manager")
        seed_members(count=300, recorder=manager)
        added = load_demo_prizes(now=NOW)
        yield manager, added


def demo_draw(seed: str) -> Draw:
    return Draw.objects.get(series__promotion__code=demo_code(seed))


def test_each_seed_has_a_draw_played_yesterday_with_its_game_and_lines(demo):
    _, added = demo
    assert added.draws == len(DEMO_GAMES) == 4  # GH, FL, TH and DT (RF: a RAPS session, see DEMO_GAMES)
    for game in DEMO_GAMES:
        draw = demo_draw(game.seed)
        assert draw.status == DrawStatus.DRAWN and not draw.ended_short_reason, draw.name
        assert timezone.localdate(draw.scheduled_at) == YESTERDAY
        assert draw.series.code == game.series
        play = GamePlay.objects.get(draw=draw)
        assert play.status == GamePlayStatus.FINISHED and len(play.events) == draw.winners_wanted
        assert PrizeLine.objects.filter(draw=draw).values("pick").distinct().count() == draw.winners_wanted
    assert added.lines == PrizeLine.objects.count()


def test_the_golden_horse_vault_pays_the_queen_jackpot_set_for_the_draw(demo):
    """GH r9, A2-A4: a last Thursday's 3 balls for the 3 Queens, so one of them draws the pink
    ball and takes the R25,000 the manager set for the draw; the others R2,000 each."""
    draw = demo_draw("golden-horse-prive-powerplay")
    board = PrizeBoard.objects.get(series=draw.series)
    assert board.draw_date == YESTERDAY and board.setting("balls") == 3
    amounts = sorted(PrizeLine.objects.filter(draw=draw).values_list("amount_cents", flat=True))
    assert amounts == [2_000_00, 2_000_00, 25_000_00]
    kinds = list(ProgressiveEntry.objects.filter(draw=draw).order_by("pk").values_list("kind", flat=True))
    assert kinds[:2] == ["set", "won"]


def test_the_podium_boards_carry_demo_amounts_adding_up_to_the_seeds_totals(demo):
    """FL r41, A8 (R20,000 for Jacks) and TH r55-56 (R40,000 for Queens): the blanks are filled,
    the board's notes say they are demo amounts, the five winners take the five podiums."""
    for seed, total in (("grc-fast-lane-to-fortune", 20_000_00), ("grc-turn-up-the-heat", 40_000_00)):
        draw = demo_draw(seed)
        board = PrizeBoard.objects.get(series=draw.series)
        assert board.total_cents == total == sum(s.amount_cents for s in board.slots.all())
        assert DEMO_NOTE in board.notes
        # the app add-ons (a demo member may be on the app) are lines of their own
        podiums = PrizeLine.objects.filter(draw=draw, source="board").values_list("amount_cents", flat=True)
        assert sorted(podiums) == sorted(s.amount_cents for s in board.slots.all())


def test_the_prize_record_page_lists_every_demo_draw(demo, client):
    manager, _ = demo
    client.force_login(manager)
    page = client.get(reverse("prizes:record")).content.decode()
    for game in DEMO_GAMES:
        assert demo_draw(game.seed).name in page
    page = client.get(reverse("prizes:draw", args=[demo_draw("golden-horse-prive-powerplay").pk])).content.decode()
    assert "R 25,000.00" in page


def test_the_demo_draws_records_verify(demo):
    for game in DEMO_GAMES:
        report = draw_verify(demo_draw(game.seed))
        assert report.holds, [line for line in report.lines if not line.holds]


def test_loading_again_adds_nothing_even_a_day_later(demo):
    counts = (Promotion.objects.count(), Draw.objects.count(), PrizeLine.objects.count(), PrizeBoard.objects.count())
    with time_machine.travel(NOW + dt.timedelta(days=1), tick=False):
        added = load_demo_prizes(now=NOW + dt.timedelta(days=1))
    assert (added.draws, added.lines) == (0, 0)
    assert counts == (
        Promotion.objects.count(),
        Draw.objects.count(),
        PrizeLine.objects.count(),
        PrizeBoard.objects.count(),
    )


def test_the_seeds_own_promotions_are_left_alone(demo):
    """The demo draws belong to demo copies: a seed's calendar keeps its own dates."""
    for game in DEMO_GAMES:
        copy = Promotion.objects.get(code=demo_code(game.seed))
        assert copy.name.startswith("Demo copy: ") and copy.ends_on == YESTERDAY
        assert not Promotion.objects.filter(code=game.seed).exists()  # never created by the demo


def test_daytime_playtime_pays_its_card_scores_in_order(demo):
    """DT r10.1, A21: the highest score R3,000, then R2,000 and R1,000 (the seed's amounts)."""
    draw = demo_draw("emnotweni-daytime-playtime")
    play = GamePlay.objects.get(draw=draw)
    by_score = sorted(play.events, key=lambda e: -int(e["score"]))
    paid = {line.pick_id: line.amount_cents for line in PrizeLine.objects.filter(draw=draw)}
    assert [paid[e["pick"]] for e in by_score] == [300_000, 200_000, 100_000]


@pytest.fixture
def demo_on_the_app(reference_data, user_for):
    """The demo with every member on the app since before the demo day (members/demo.py gives
    the flag to some at random)."""
    with time_machine.travel(NOW, tick=False):
        manager = user_for(PROMOTIONS_MANAGER, username="manager")
        seed_members(count=300, recorder=manager)
        Member.objects.update(app_registered_on=dt.date(2026, 1, 1), playtsogo_active_since=None)
        load_demo_prizes(now=NOW)


def test_the_demo_copies_winners_on_the_app_get_their_seeds_add_ons(demo_on_the_app):
    """FL r116 (R200) and TH r64 (R500, Thursday Queens) reach the demo copies' winners; GH's
    only add-on is Thursday midday's (A6), DT gives entries instead (r8): none there."""
    for seed, amount in (("grc-fast-lane-to-fortune", 200_00), ("grc-turn-up-the-heat", 500_00)):
        draw = demo_draw(seed)
        addons = PrizeLine.objects.filter(draw=draw, source="add_on")
        assert sorted(addons.values_list("pick", flat=True)) == sorted(
            draw.picks.filter(outcome="present").values_list("pk", flat=True)
        )
        assert set(addons.values_list("amount_cents", flat=True)) == {amount}
    for seed in ("golden-horse-prive-powerplay", "emnotweni-daytime-playtime"):
        assert not PrizeLine.objects.filter(draw=demo_draw(seed), source="add_on").exists()
