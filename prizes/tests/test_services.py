"""Prize lines stored and corrected, and boards saved (prizes.services): only a winner's lines,
only once the draw has started; a correction is a reversing line by a manager with a reason;
a board's money must fit its total (FL r41, TH r56); every change audited."""

import re

import pytest

from core.errors import DomainError
from core.models import AuditEvent
from draws.models import DrawPick, DrawStatus
from draws.tests.builders import MANAGER
from prizes.lines import LineKind, LineSource
from prizes.models import BoardGame, PrizeLine
from prizes.services import SlotDef, board_create, board_save, prize_line_reverse, prize_lines_store
from prizes.tests.conftest import cash

pytestmark = pytest.mark.django_db


def test_a_winners_lines_are_stored_with_the_game_outcome_and_audited(running):
    draw, winner = running
    [line] = prize_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[cash(800_000, ball="pink")])
    assert (line.member_id, line.kind, line.amount_cents, line.source) == (winner.member_id, "cash", 800_000, "board")
    assert line.data == {"ball": "pink"}
    event = AuditEvent.objects.get(action="prize.lines_stored")
    assert event.data["pick"] == winner.k and event.data["lines"][0]["amount_cents"] == 800_000


def test_only_a_winner_wins(running):
    draw, _ = running
    awaiting = DrawPick.objects.get(draw=draw, outcome="")
    with pytest.raises(DomainError, match="is not a winner"):
        prize_lines_store(actor=MANAGER, draw=draw, pick=awaiting, specs=[cash(100)])
    assert not PrizeLine.objects.exists()


def test_lines_wait_for_the_start_of_the_draw(reference_data):
    from draws.tests.builders import closed_draw
    from prizes.tests.conftest import DRAW_AT
    from promotions.tests.factories import make_series

    draw, _ = closed_draw(make_series(), DRAW_AT, [3])
    assert draw.status == DrawStatus.CLOSED
    with pytest.raises(DomainError, match="once the draw has started"):
        prize_lines_store(actor=MANAGER, draw=draw, pick=DrawPick(pk=0), specs=[cash(100)])


def test_a_complete_draws_last_winner_still_gets_their_prize(complete):
    draw, _, last = complete  # the last winner plays after the pick completed the draw
    assert prize_lines_store(actor=MANAGER, draw=draw, pick=last, specs=[cash(300_000)])


def test_a_reversal_is_not_stored_as_a_prize(running):
    draw, winner = running
    spec = cash(0)
    reversal = type(spec)(LineKind.CASH, -100, LineSource.REVERSAL, "x")
    with pytest.raises(DomainError, match="correction is made from the prize record"):
        prize_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[reversal])


def test_a_manager_corrects_a_line_with_a_reversing_line_once(complete, manager_actor):
    draw, winner, _ = complete
    [line] = prize_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[cash(800_000)])
    reversal = prize_line_reverse(actor=manager_actor, line_id=line.pk, reason="Wrong podium read out.")
    assert (reversal.amount_cents, reversal.source, reversal.reverses_id) == (-800_000, "reversal", line.pk)
    assert (reversal.reason, reversal.created_by) == ("Wrong podium read out.", manager_actor.label)
    line.refresh_from_db()
    assert line.amount_cents == 800_000  # the line itself never changes
    event = AuditEvent.objects.get(action="prize.line_reversed")
    assert (event.data["reason"], event.data["draw"], event.actor_label) == (
        "Wrong podium read out.",
        draw.pk,
        manager_actor.label,
    )
    with pytest.raises(DomainError, match="already been corrected"):
        prize_line_reverse(actor=manager_actor, line_id=line.pk, reason="Again.")
    with pytest.raises(DomainError, match="itself a correction"):
        prize_line_reverse(actor=manager_actor, line_id=reversal.pk, reason="Undo.")


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_correction_needs_its_reason(complete, manager_actor, reason):
    draw, winner, _ = complete
    [line] = prize_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[cash(800_000)])
    with pytest.raises(DomainError, match="Give the reason"):
        prize_line_reverse(actor=manager_actor, line_id=line.pk, reason=reason)
    assert PrizeLine.objects.count() == 1


def test_only_a_promotions_manager_corrects(complete, auditor_actor):
    draw, winner, _ = complete
    [line] = prize_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[cash(800_000)])
    for actor in (auditor_actor, MANAGER):  # an auditor, and the system (no person to answer for it)
        with pytest.raises(DomainError, match="Only a promotions manager"):
            prize_line_reverse(actor=actor, line_id=line.pk, reason="Wrong.")
    assert PrizeLine.objects.count() == 1


def test_a_manager_of_another_property_does_not_correct(complete, user_for):
    from core.audit import Actor
    from core.roles import PROMOTIONS_MANAGER

    draw, winner, _ = complete
    [line] = prize_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[cash(800_000)])
    elsewhere = Actor.for_user(user_for(PROMOTIONS_MANAGER, properties=["MC"]))
    with pytest.raises(DomainError, match="by its own team"):
        prize_line_reverse(actor=elsewhere, line_id=line.pk, reason="Wrong.")


# --- Boards ----------------------------------------------------------------------------------


@pytest.fixture
def podiums(reference_data):
    from promotions.tests.factories import make_series

    series = make_series()
    board = board_create(
        actor=MANAGER,
        series=series,
        game=BoardGame.PODIUM,
        slots=[SlotDef(f"Podium {i}", None, rule="r41") for i in range(1, 6)],
        total_cents=2_000_000,
    )
    return board


def slot_ids(board):
    return list(board.slots.values_list("pk", flat=True))


def test_a_board_is_saved_and_audited_with_its_changes(podiums):
    ids = slot_ids(podiums)
    board_save(actor=MANAGER, board_id=podiums.pk, slots={ids[0]: {"amount_cents": 800_000}})
    assert podiums.slots.get(pk=ids[0]).amount_cents == 800_000
    event = AuditEvent.objects.get(action="prize.board_saved")
    assert event.data["changes"] == {"Podium 1: amount": [None, 800_000]}


def test_podiums_may_not_pass_the_total(podiums):
    ids = slot_ids(podiums)
    with pytest.raises(DomainError, match=re.escape("more than the board's total of R 20,000.00")):
        board_save(actor=MANAGER, board_id=podiums.pk, slots={ids[0]: {"amount_cents": 2_000_001}})
    board_save(actor=MANAGER, board_id=podiums.pk, slots={ids[0]: {"amount_cents": 2_000_000}})  # the edge: equal


def test_podiums_once_all_set_add_up_to_the_total(podiums):
    ids = slot_ids(podiums)
    short = {pk: {"amount_cents": 399_999 if i == 0 else 400_000} for i, pk in enumerate(ids)}
    with pytest.raises(DomainError, match=re.escape("add up to R 19,999.99, not the board's total of R 20,000.00")):
        board_save(actor=MANAGER, board_id=podiums.pk, slots=short)
    board_save(actor=MANAGER, board_id=podiums.pk, slots={pk: {"amount_cents": 400_000} for pk in ids})
    assert sum(podiums.slots.values_list("amount_cents", flat=True)) == 2_000_000


def test_a_board_does_not_change_while_a_draw_of_its_series_runs(running):
    draw, _ = running
    board = board_create(actor=MANAGER, series=draw.series, game=BoardGame.REVEAL, slots=[SlotDef("Reveal 1")])
    with pytest.raises(DomainError, match="A draw of this series is running"):
        board_save(actor=MANAGER, board_id=board.pk, slots={slot_ids(board)[0]: {"amount_cents": 100}})


def test_a_boards_settings_are_saved_and_a_blank_returns_to_the_default(reference_data):
    from promotions.tests.factories import make_series

    board = board_create(actor=MANAGER, series=make_series(), game=BoardGame.ROULETTE, slots=[SlotDef("Podium 1")])
    board_save(actor=MANAGER, board_id=board.pk, slots={}, settings={"max_spins": 8, "multiplier_17": 3})
    board.refresh_from_db()
    assert (board.setting("max_spins"), board.setting("multiplier_17")) == (8, 3)
    board_save(actor=MANAGER, board_id=board.pk, slots={}, settings={"max_spins": None})
    board.refresh_from_db()
    assert board.setting("max_spins") == 10  # r94's 10
