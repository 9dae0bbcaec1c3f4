"""The conductor records what happened on stage and the system computes the prizes (issue 14,
item 2; prizes/conduct.py): each event checked by the game's engine, refused in words when it
cannot have happened, audited; the lines stored once, whoever clicks Finish twice."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import AUDITOR, REWARDS_DESK
from draws.engine import draw_start
from draws.models import Draw, DrawPick
from draws.tests.builders import MANAGER, SAST, closed_draw
from draws.tests.factories import make_draw
from members.models import Member, Tier
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, BoardSlot, GamePlay, PrizeLine, Progressive
from prizes.services import SlotDef, board_create
from prizes.tests.conftest import record_next_winner
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

# GH r9, A2-A3: the last Thursday of July 2026, a 3-ball vault (2 white, 1 pink).
LAST_THURSDAY = dt.datetime(2026, 7, 30, 20, 0, tzinfo=SAST)


@pytest.fixture(autouse=True)
def on_stage():
    with time_machine.travel(LAST_THURSDAY + dt.timedelta(minutes=1), tick=False):
        yield


def draw_of(winners: int, game: str, slots: list[SlotDef], *, complete: bool = True, **board) -> tuple[Draw, list]:
    series = make_series()
    series.winners_per_draw = winners
    series.save()
    board_create(actor=MANAGER, series=series, game=game, slots=slots, **board)
    draw, _ = closed_draw(series, LAST_THURSDAY, [3, 40, 7, 50, 9, 11])
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    picks = [record_next_winner(draw) for _ in range(winners if complete else winners - 1)]
    draw.refresh_from_db()
    return draw, picks


REVEALS = [SlotDef(f"Reveal {i}", amount) for i, amount in enumerate((500_000, 300_000, 200_000), start=1)]
VAULT = [SlotDef("White ball: consolation", 500_000), SlotDef("Pink ball: the tier's jackpot", 5_000_000)]


def lines_of(pick: DrawPick) -> list[tuple[str, int, str]]:
    return [(line.kind, line.amount_cents, line.source) for line in PrizeLine.objects.filter(pick=pick)]


def test_reveals_opened_give_each_winner_the_slot_they_opened_once(reference_data):
    draw, (first, second) = draw_of(2, BoardGame.REVEAL, REVEALS)
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "2"})
    with pytest.raises(DomainError, match="Reveal 2 was already opened in this draw"):
        game_event_record(actor=MANAGER, pick_id=second.pk, event={"slot": "2"})
    with pytest.raises(DomainError, match="There is no reveal 9 on this board"):
        game_event_record(actor=MANAGER, pick_id=second.pk, event={"slot": "9"})
    with pytest.raises(DomainError, match="already recorded"):
        game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "3"})
    game_event_record(actor=MANAGER, pick_id=second.pk, event={"slot": "1"})
    assert [e.data["slot"] for e in AuditEvent.objects.filter(action="prize.game_event").order_by("pk")] == ["2", "1"]

    game_finish(actor=MANAGER, pick_id=first.pk)
    assert lines_of(first) == [("cash", 300_000, "board")]
    assert lines_of(second) == [("cash", 500_000, "board")]
    assert PrizeLine.objects.get(pick=second).words == "Reveal 1"
    assert GamePlay.objects.get(draw=draw).status == "finished"
    with pytest.raises(DomainError, match="finished and its prizes recorded"):
        game_finish(actor=MANAGER, pick_id=second.pk)
    with pytest.raises(DomainError, match="finished and its prizes recorded"):
        game_event_record(actor=MANAGER, pick_id=second.pk, event={"slot": "3"})
    assert PrizeLine.objects.count() == 2
    assert AuditEvent.objects.filter(action="prize.game_finished").count() == 1


def test_finish_waits_for_every_winner_and_for_the_whole_draw(reference_data):
    draw, (first,) = draw_of(2, BoardGame.REVEAL, REVEALS, complete=False)
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "1"})  # recorded while the draw runs
    with pytest.raises(DomainError, match="once the draw has all its winners"):
        game_finish(actor=MANAGER, pick_id=first.pk)
    second = record_next_winner(draw)
    with pytest.raises(DomainError, match=f"Record pick {second.k}'s turn first"):
        game_finish(actor=MANAGER, pick_id=first.pk)
    assert not PrizeLine.objects.exists()


def test_a_board_with_a_blank_amount_is_not_played(reference_data):
    _draw, (first,) = draw_of(1, BoardGame.REVEAL, REVEALS)
    BoardSlot.objects.filter(label="Reveal 1").update(amount_cents=None)  # as a board seeded with a "cfg"
    with pytest.raises(DomainError, match="set the amount of Reveal 1 first"):
        game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "2"})


@pytest.mark.parametrize("role", [REWARDS_DESK, AUDITOR])
def test_only_the_conductor_records_a_game(reference_data, user_for, role):
    _draw, (first,) = draw_of(1, BoardGame.REVEAL, REVEALS)
    with pytest.raises(DomainError, match="Only whoever runs the draw"):
        game_event_record(actor=Actor.for_user(user_for(role)), pick_id=first.pk, event={"slot": "1"})
    with pytest.raises(DomainError, match="Only whoever runs the draw"):
        game_finish(actor=Actor.for_user(user_for(role)), pick_id=first.pk)


def vault_draw(**kwargs):
    queen = Tier.objects.get(code="QUEEN")
    played = draw_of(
        3, BoardGame.VAULT, VAULT, tier=queen, draw_date=LAST_THURSDAY.date(), settings={"balls": 3}, **kwargs
    )
    Member.objects.update(tier=queen)  # the Queen draw's winners (GH thu-2000-queen)
    return played


def test_the_last_thursdays_vault_refuses_a_second_pink_and_a_third_white(reference_data):
    """GH r9, A2: 3 balls (2 white, 1 pink) drawn without replacement."""
    _draw, (first, second, third) = vault_draw()
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"ball": "white"})
    game_event_record(actor=MANAGER, pick_id=second.pk, event={"ball": "white"})
    with pytest.raises(DomainError, match="No white ball is left in the vault"):
        game_event_record(actor=MANAGER, pick_id=third.pk, event={"ball": "white"})
    game_event_record(actor=MANAGER, pick_id=third.pk, event={"ball": "pink"})
    game_finish(actor=MANAGER, pick_id=third.pk)
    assert lines_of(first) == lines_of(second) == [("cash", 500_000, "game")]
    assert lines_of(third) == [("cash", 5_000_000, "jackpot")]
    assert "Queen jackpot of 30 Jul 2026: R 50,000.00" in PrizeLine.objects.get(pick=third).words


def test_a_pink_ball_drawn_twice_is_refused(reference_data):
    draw, (first, second, _) = vault_draw()
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"ball": "pink"})
    with pytest.raises(DomainError, match="pink ball was already drawn by winner 1"):
        game_event_record(actor=MANAGER, pick_id=second.pk, event={"ball": "pink"})
    assert len(GamePlay.objects.get(draw=draw).events) == 1


def test_a_series_progressive_pays_the_pink_ball_and_goes_back_to_base(reference_data):
    """The vault's jackpot from the series' progressive when it has one (progressive_win)."""
    draw, (first, second) = vault_draw(complete=False)
    progressive = Progressive.objects.create(
        promotion=draw.series.promotion, series=draw.series, code="gh-queen", name="Queen jackpot", base_cents=100
    )
    for pick, ball in ((first, "pink"), (second, "white")):
        game_event_record(actor=MANAGER, pick_id=pick.pk, event={"ball": ball})
    third = record_next_winner(draw)
    game_event_record(actor=MANAGER, pick_id=third.pk, event={"ball": "white"})
    game_finish(actor=MANAGER, pick_id=first.pk)
    assert lines_of(first) == [("cash", 100, "jackpot")]
    assert progressive.entries.filter(kind="won", pick=first).exists()


def test_a_place_opened_on_stage_is_carried_into_the_next_draw_of_its_series(reference_data):
    """Finishing a game resolves its places (prizes.carry): the line names the later draw it is
    carried into, so that draw's freeze takes the winner as an entrant (issue 14, item 6)."""
    final_series = make_series()
    make_draw(final_series, LAST_THURSDAY - dt.timedelta(days=1))  # before: not the one
    final = make_draw(final_series, LAST_THURSDAY + dt.timedelta(days=2))
    slots = [*REVEALS[:1], SlotDef("Reveal 2", kind="place", target_series=final_series)]
    _, (first, second) = draw_of(2, BoardGame.REVEAL, slots)
    game_event_record(actor=MANAGER, pick_id=first.pk, event={"slot": "2"})
    game_event_record(actor=MANAGER, pick_id=second.pk, event={"slot": "1"})
    game_finish(actor=MANAGER, pick_id=first.pk)
    place = PrizeLine.objects.get(pick=first)
    assert (place.kind, place.data["carried_into"]) == ("place", final.pk)
    assert lines_of(second) == [("cash", 500_000, "board")]
