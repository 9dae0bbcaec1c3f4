"""`make run`'s prize demo (issue 14, item 10; prizes/demo.py): a demo copy of each seed with its
draws played yesterday evening through the conductor's services, their prize lines on the prize
record page (Royal Flush: a RAPS session's prize cards and the entries it carries into the
Saturday Night Cash draw; Turn Up the Heat: the 9pm safe as well); loading again adds nothing,
and the seeds' own promotions are left alone. The demo is loaded once for the module."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from conftest import make_user, reference_rows
from core.roles import PROMOTIONS_MANAGER
from draws.commitments import draw_verify
from draws.models import Channel, Draw, DrawStatus, RapsList
from draws.seeds import seed_definitions
from members.demo import seed_members
from prizes.demo import DEMO_GAMES, DEMO_NOTE, RF_CARDS, demo_code, load_demo_prizes
from prizes.lines import LineKind
from prizes.models import BoardGame, GamePlay, GamePlayStatus, PrizeBoard, PrizeLine, Progressive, ProgressiveEntry
from prizes.progressives import progressive_value
from promotions.models import Promotion
from testing.db import shared_rows

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2026, 12, 2, 10, 0, tzinfo=SAST)
YESTERDAY = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def module_demo(django_db_setup, django_db_blocker):
    """Loaded once for the module (the longest fixture of the suite); each test's changes are
    rolled back (testing.db.shared_rows). A test that needs the demo loaded otherwise lives in
    test_demo_prizes_app.py."""
    with shared_rows(django_db_blocker):
        with time_machine.travel(NOW, tick=False):
            reference_rows()
            manager = make_user(PROMOTIONS_MANAGER, username="manager")
            seed_members(count=300, recorder=manager)
            added = load_demo_prizes(now=NOW)
        yield manager, added


@pytest.fixture
def demo(module_demo, db):
    return module_demo


RF = "grc-royal-flush"
TH = "grc-turn-up-the-heat"
FIRST_SERIES = {}
for _game in DEMO_GAMES:
    FIRST_SERIES.setdefault(_game.seed, _game.series)


def demo_draw(seed: str, series: str = "") -> Draw:
    """The seed's demo draw of the series (by default its first game's)."""
    return Draw.objects.get(series__promotion__code=demo_code(seed), series__code=series or FIRST_SERIES[seed])


def test_each_seed_has_a_draw_played_yesterday_with_its_game_and_lines(demo):
    _, added = demo
    assert {game.seed for game in DEMO_GAMES} == {d.code for d in seed_definitions()}  # all five seeds
    assert added.draws == len(DEMO_GAMES) == Draw.objects.count() == 7  # RF and TH: two draws each
    games = 0
    for game in DEMO_GAMES:
        draw = demo_draw(game.seed, game.series)
        assert draw.status == DrawStatus.DRAWN and not draw.ended_short_reason, draw.name
        assert timezone.localdate(draw.scheduled_at) == YESTERDAY
        board = PrizeBoard.objects.get(series=draw.series)
        games += 1
        play = GamePlay.objects.get(draw=draw)
        winners = set(draw.picks.filter(outcome="present").values_list("pk", flat=True))
        assert len(winners) == draw.winners_wanted
        assert play.status == GamePlayStatus.FINISHED
        # RF's cash draw is "by the order of the picks": nothing played on stage, lines at Finish.
        played = set() if board.game == BoardGame.PLACE else winners
        assert {e["pick"] for e in play.events} == played
        assert set(PrizeLine.objects.filter(draw=draw).values_list("pick", flat=True)) == winners
    assert games == 7  # every seed's game, TH's two, RF's session and its cash draw
    assert added.lines == PrizeLine.objects.count()


def test_royal_flush_session_winners_pick_prize_cards_and_their_entries_reach_the_cash_draw(demo):
    """RF r28-r29, r34.1, A13: the Saturday 20h00 RAPS session's 15 winners, drawn from the
    uploaded floor list, each open one of the 15 prize cards (demo amounts) and get 3 entries
    into the copy's Saturday Night Cash draw at 21h30, where they are frozen as carried tickets."""
    session = demo_draw(RF, "sat-bonus-jackpot-raps")
    cash = demo_draw(RF, "sat-cash-2130")
    assert session.method == "raps" and session.scheduled_at < cash.scheduled_at
    floor = RapsList.objects.get(draw=session)
    assert floor.rows_read == 45 and floor.left_out["below_min_spend"] > 0  # a real list: some spent too little
    assert session.entries_sha256 == floor.list_sha256
    cards = PrizeLine.objects.filter(draw=session, kind=LineKind.CASH, source="board")
    assert sorted(cards.values_list("amount_cents", flat=True)) == sorted(RF_CARDS)
    entries = PrizeLine.objects.filter(draw=session, kind=LineKind.ENTRIES)
    winners = set(session.picks.filter(outcome="present").values_list("member_id", flat=True))
    assert len(winners) == 15 and set(entries.values_list("member_id", flat=True)) == winners
    assert {(line.amount_cents, line.data["carried_into"]) for line in entries} == {(3, cash.pk)}
    carried = cash.activations.filter(channel=Channel.CARRIED)
    assert {(a.member_id, a.tickets) for a in carried} == {(m, 3) for m in winners}
    assert cash.activations.exclude(channel=Channel.CARRIED).exists()  # the evening's own entrants too
    assert cash.tickets_total == sum(cash.activations.values_list("tickets", flat=True))


def test_turn_up_the_heat_9pm_safe_is_tried_not_cracked_and_grows(demo):
    """TH r123-r126, A17: the first winner forfeits R2,000 of the podium to try the safe and
    fails; the others keep theirs; the uncracked 9pm draw grows the safe by R20,000."""
    draw = demo_draw(TH, "sat-cash-2100")
    safe = Progressive.objects.get(series=draw.series)
    assert progressive_value(safe) == 100_000_00 + 20_000_00
    play = GamePlay.objects.get(draw=draw)
    assert [e["safe"] for e in play.events if "safe" in e] == ["not_cracked"] + ["kept"] * 4
    # The first winner (pick 1 may have been a redraw): the one who tried the safe.
    first = draw.picks.get(pk=next(e["pick"] for e in play.events if e.get("safe") == "not_cracked"))
    assert first == draw.picks.filter(outcome="present").order_by("seq").first()
    board = PrizeBoard.objects.get(series=draw.series)
    podium = next(e["slot"] for e in play.events if e["pick"] == first.pk and "slot" in e)
    won = board.slots.get(label=f"Podium {podium}").amount_cents - 2_000_00
    assert PrizeLine.objects.filter(pick=first, source="game", amount_cents=won).exists()


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
    for draw in Draw.objects.all():
        assert draw.name in page
    assert demo_draw(RF, "sat-bonus-jackpot-raps").name in page
    page = client.get(reverse("prizes:draw", args=[demo_draw("golden-horse-prive-powerplay").pk])).content.decode()
    assert "R 25,000.00" in page


def test_the_demo_draws_records_verify(demo):
    for game in DEMO_GAMES:
        report = draw_verify(demo_draw(game.seed, game.series))
        assert report.holds, [line for line in report.lines if not line.holds]


def test_loading_again_adds_nothing_even_a_day_later(demo):
    def counts():
        return (
            Promotion.objects.count(),
            Draw.objects.count(),
            PrizeLine.objects.count(),
            PrizeBoard.objects.count(),
            RapsList.objects.count(),
            ProgressiveEntry.objects.count(),
        )

    before = counts()
    with time_machine.travel(NOW + dt.timedelta(days=1), tick=False):
        added = load_demo_prizes(now=NOW + dt.timedelta(days=1))
    assert (added.draws, added.lines) == (0, 0)
    assert before == counts()


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
