"""A manager adds, removes and reorders a board's prizes (issue 14 item 1): audited, refused
while a draw of the series runs, and the board's total still checked (FL r41: the five Jack
podiums share R20,000)."""

import pytest
from django.urls import reverse

from core.errors import DomainError
from core.models import AuditEvent
from core.roles import AUDITOR, PROMOTIONS_MANAGER
from draws.tests.builders import MANAGER
from prizes.board_slots import board_slot_add, board_slot_move, board_slot_remove
from prizes.boards import missing_settings_of
from prizes.models import BoardSlot, PrizeBoard
from prizes.services import SlotDef, board_create

pytestmark = pytest.mark.django_db
R = 100


@pytest.fixture
def boards(module_seed_boards, db):
    """The module's seed boards, inside this test's transaction."""


def board_of(promotion: str, series: str, **kwargs) -> PrizeBoard:
    return PrizeBoard.objects.get(series__promotion__code=promotion, series__code=series, **kwargs)


def labels(board: PrizeBoard) -> list[str]:
    return list(board.slots.order_by("position").values_list("label", flat=True))


@pytest.fixture
def jack(boards) -> PrizeBoard:
    """FL r41: 5 podiums, R20,000 to Jacks weekly (the podiums' total, A8)."""
    return board_of("grc-fast-lane-to-fortune", "thu-jack-1900")


@pytest.fixture
def midday(boards) -> PrizeBoard:
    """GH r9: the Thursday midday draw's 5 reveals, no amounts given."""
    return board_of("golden-horse-prive-powerplay", "thu-1300-midday")


def test_a_manager_adds_a_reveal_at_the_end_which_the_draw_then_waits_for(midday):
    slot = board_slot_add(actor=MANAGER, board_id=midday.pk, label="Reveal 6")
    assert (slot.position, slot.amount_cents, slot.kind) == (6, None, "cash")
    assert labels(midday)[-1] == "Reveal 6"
    assert "the amount of Reveal 6" in missing_settings_of(midday)
    event = AuditEvent.objects.get(action="prize.board_slot_added")
    assert event.data["slot"] == "Reveal 6" and event.data["value"] == "Not set"
    with pytest.raises(DomainError, match="already has a prize called reveal 6"):
        board_slot_add(actor=MANAGER, board_id=midday.pk, label="reveal 6")


def test_an_added_amount_may_not_pass_the_boards_total(jack):
    BoardSlot.objects.filter(board=jack).update(amount_cents=3_000 * R)  # 5 x R3,000: R5,000 short of R20,000
    with pytest.raises(DomainError, match=r"add up to R 20,000\.01, more than the board's total of R 20,000\.00"):
        board_slot_add(actor=MANAGER, board_id=jack.pk, label="Podium 6", amount_cents=5_000 * R + 1)
    slot = board_slot_add(actor=MANAGER, board_id=jack.pk, label="Podium 6", amount_cents=5_000 * R)
    assert slot.position == 6 and missing_settings_of(jack) == []


def test_removing_a_prize_closes_the_gap_and_keeps_the_total(jack):
    BoardSlot.objects.filter(board=jack).update(amount_cents=4_000 * R)  # 5 x R4,000 = R20,000 (r41)
    podium_3 = jack.slots.get(label="Podium 3")
    with pytest.raises(DomainError, match=r"Without Podium 3 \(R 4,000\.00\) the prizes would not add up"):
        board_slot_remove(actor=MANAGER, board_id=jack.pk, slot_id=podium_3.pk)
    assert jack.slots.count() == 5
    # Podium 4 still to be set: the other four need not add up yet, so Podium 3 may go.
    BoardSlot.objects.filter(board=jack, label="Podium 4").update(amount_cents=None)
    board_slot_remove(actor=MANAGER, board_id=jack.pk, slot_id=podium_3.pk)
    assert list(jack.slots.values_list("label", "position")) == [
        ("Podium 1", 1),
        ("Podium 2", 2),
        ("Podium 4", 3),
        ("Podium 5", 4),
    ]
    assert AuditEvent.objects.get(action="prize.board_slot_removed").data["slot"] == "Podium 3"


def test_a_prize_moves_up_and_down_but_not_off_the_board(midday):
    _reveal_1, reveal_2 = midday.slots.order_by("position")[:2]
    board_slot_move(actor=MANAGER, board_id=midday.pk, slot_id=reveal_2.pk, up=True)
    assert labels(midday)[:2] == ["Reveal 2", "Reveal 1"]
    assert AuditEvent.objects.get(action="prize.board_slot_moved").data == {
        "board": str(midday),
        "slot": "Reveal 2",
        "from": 2,
        "to": 1,
        "swapped_with": "Reveal 1",
    }
    with pytest.raises(DomainError, match="Reveal 2 is already first"):
        board_slot_move(actor=MANAGER, board_id=midday.pk, slot_id=reveal_2.pk, up=True)
    last = midday.slots.order_by("position").last()
    with pytest.raises(DomainError, match="Reveal 5 is already last"):
        board_slot_move(actor=MANAGER, board_id=midday.pk, slot_id=last.pk, up=False)


def test_nothing_changes_on_a_board_while_a_draw_of_its_series_runs(running):
    draw, _winner = running
    board = board_create(actor=MANAGER, series=draw.series, game="reveal", slots=[SlotDef("Reveal 1", 100 * R)] * 2)
    slot = board.slots.first()
    for change in (
        lambda: board_slot_add(actor=MANAGER, board_id=board.pk, label="Reveal 6"),
        lambda: board_slot_remove(actor=MANAGER, board_id=board.pk, slot_id=slot.pk),
        lambda: board_slot_move(actor=MANAGER, board_id=board.pk, slot_id=slot.pk, up=False),
    ):
        with pytest.raises(DomainError, match="A draw of this series is running"):
            change()
    assert board.slots.count() == 2 and not AuditEvent.objects.filter(action__startswith="prize.board_slot").exists()


def test_the_vaults_balls_and_a_boards_last_prize_stay(boards):
    vault = board_of("golden-horse-prive-powerplay", "thu-2000-queen", tier__code="QUEEN", draw_date="2026-07-16")
    with pytest.raises(DomainError, match="pink and white ball prizes stay"):
        board_slot_remove(actor=MANAGER, board_id=vault.pk, slot_id=vault.slots.get(group="pink").pk)
    finalist = board_of("grc-royal-flush", "month-end-finalist")
    with pytest.raises(DomainError, match="at least one prize"):
        board_slot_remove(actor=MANAGER, board_id=finalist.pk, slot_id=finalist.slots.get().pk)


def test_a_place_names_a_later_draw_of_the_same_promotion(boards):
    car = board_of("grc-fast-lane-to-fortune", "sat-car-2100")
    other = board_of("grc-turn-up-the-heat", "sat-car-final").series
    with pytest.raises(DomainError, match="later draw of the same promotion"):
        board_slot_add(actor=MANAGER, board_id=car.pk, label="Car draw place 3", kind="place", target_series=other)
    final = board_of("grc-fast-lane-to-fortune", "sat-car-final").series
    slot = board_slot_add(actor=MANAGER, board_id=car.pk, label="Car draw place 3", kind="place", target_series=final)
    assert (slot.amount_cents, slot.target_series_id, slot.missing()) == (0, final.pk, None)


def test_the_board_page_adds_removes_and_reorders(midday, client_for):
    manager = client_for(PROMOTIONS_MANAGER)
    page = manager.get(reverse("prizes:board", args=[midday.pk])).content.decode()
    assert reverse("prizes:board_slot_add", args=[midday.pk]) in page
    reveal_1 = midday.slots.get(label="Reveal 1")
    assert f'value="remove:{reveal_1.pk}"' in page and f'value="down:{reveal_1.pk}"' in page
    add = reverse("prizes:board_slot_add", args=[midday.pk])
    refused = manager.post(add, {"label": "Reveal 6", "kind": "cash", "amount": "five"})
    assert "Type an amount in rand" in refused.content.decode()
    assert manager.post(add, {"label": "Reveal 6", "kind": "cash", "amount": "R 1,500.00"}).status_code == 302
    assert midday.slots.get(label="Reveal 6").amount_cents == 1_500 * R
    change = reverse("prizes:board_slot_change", args=[midday.pk])
    manager.post(change, {"action": f"down:{reveal_1.pk}"})
    assert labels(midday)[:2] == ["Reveal 2", "Reveal 1"]
    answer = manager.post(change, {"action": f"remove:{reveal_1.pk}"}, follow=True)
    assert "Prize removed from the board." in answer.content.decode()
    assert labels(midday) == ["Reveal 2", "Reveal 3", "Reveal 4", "Reveal 5", "Reveal 6"]
    assert "Choose a prize of the board" in manager.post(change, {}, follow=True).content.decode()
    assert client_for(AUDITOR).post(change, {"action": f"remove:{reveal_1.pk}"}).status_code == 403
    assert client_for(AUDITOR).get(add).status_code == 403
