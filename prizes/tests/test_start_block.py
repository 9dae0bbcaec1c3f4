"""A draw whose prize board has a blank required setting does not start (issue 14 item 1): the
manager's Start and the scheduler's tick both refuse, in words naming the setting; filled in,
it starts. A series without a board is not held up."""

import datetime as dt
import logging

import pytest
import time_machine

from core.errors import DomainError
from draws.engine import draw_start, draws_start_due
from draws.models import Draw, DrawStatus
from draws.seeds import golden_horse_prive_powerplay, grc_fast_lane_to_fortune
from draws.services import draw_close_window
from draws.tests.builders import MANAGER, add_entries, sast
from prizes.boards import board_missing_settings
from prizes.models import BoardSlot, PrizeBoard
from prizes.seed_boards import load_seed_boards
from prizes.services import board_save

pytestmark = pytest.mark.django_db


def frozen(draw: Draw) -> Draw:
    add_entries(draw, [5, 9])
    assert draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    return Draw.objects.get(pk=draw.pk)


def fill(board: PrizeBoard, cents: int) -> None:
    BoardSlot.objects.filter(board=board, amount_cents__isnull=True).update(amount_cents=cents)


def test_a_fast_lane_thursday_jack_draw_waits_for_its_podiums(seed):
    draw = frozen(seed(grc_fast_lane_to_fortune)("thu-jack-1900", 2026, 7, 9, 19, 0))
    load_seed_boards(actor=MANAGER)
    assert board_missing_settings(draw) == [
        "Prize board of Thursday Jack Tier draw: set the amount of Podium 1, the amount of Podium 2, the amount of "
        "Podium 3, the amount of Podium 4 and the amount of Podium 5."
    ]
    with time_machine.travel(sast(2026, 7, 9, 19, 1), tick=False):
        with pytest.raises(DomainError) as refused:
            draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="T. Nkosi")
        assert "cannot start until its prizes are set" in refused.value.message
        assert "the amount of Podium 1" in refused.value.message
        assert Draw.objects.get(pk=draw.pk).status == DrawStatus.CLOSED

        fill(PrizeBoard.objects.get(series=draw.series), 400_000)  # 5 x R4,000 = R20,000 (r41)
        assert board_missing_settings(draw) == []
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="T. Nkosi")


def test_a_fast_lane_best_hand_draw_waits_for_its_deck_as_for_its_places(seed):
    """A9: the 25-card deck is a required setting: with every place set, a blank deck still
    blocks Start, in words; set, the draw starts."""
    draw = frozen(seed(grc_fast_lane_to_fortune)("sat-cash-1500", 2026, 7, 4, 15, 0))
    load_seed_boards(actor=MANAGER)
    board = PrizeBoard.objects.get(series=draw.series)
    fill(board, 200_000)
    assert board_missing_settings(draw) == [
        "Prize board of Saturday 3pm Cash draw (Best Hand wins): set the 25 cards of the Best Hand deck."
    ]
    with time_machine.travel(sast(2026, 7, 4, 15, 1), tick=False):
        with pytest.raises(DomainError, match=r"cannot start until its prizes are set: .* the 25 cards of the Best"):
            draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="T. Nkosi")
        deck = "As Ks Qs Js 10s Ah Kh Qh Jh 10h Ad Kd Qd Jd 10d Ac Kc Qc Jc 10c 9s 9h 9d 9c 8s"
        board_save(actor=MANAGER, board_id=board.pk, slots={}, settings={"deck": deck})
        assert board_missing_settings(draw) == []
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="T. Nkosi")


def test_the_tick_does_not_start_a_golden_horse_vault_draw_until_its_tier_and_date_are_set(seed, caplog):
    draw = frozen(seed(golden_horse_prive_powerplay)("thu-2000-queen", 2026, 7, 16, 20, 0))
    load_seed_boards(actor=MANAGER)
    vault = PrizeBoard.objects.get(series=draw.series, tier__code="QUEEN", draw_date=dt.date(2026, 7, 16))
    at = sast(2026, 7, 16, 20, 0, 30)
    with caplog.at_level(logging.WARNING, logger="draws.engine"):
        assert draws_start_due(now=at) == 0
    assert Draw.objects.get(pk=draw.pk).status == DrawStatus.CLOSED
    assert "Queen tier, 16 Jul 2026: set the amount of White ball: consolation" in caplog.text

    fill(PrizeBoard.objects.get(series=draw.series, tier__code="QUEEN", draw_date=dt.date(2026, 7, 23)), 1)
    assert draws_start_due(now=at) == 0  # another date's board does not count

    fill(vault, 250_000)
    assert draws_start_due(now=at) == 1
    assert Draw.objects.get(pk=draw.pk).status != DrawStatus.CLOSED


def test_a_required_game_setting_holds_the_draw_too(seed):
    draw = frozen(seed(grc_fast_lane_to_fortune)("sat-cash-1900", 2026, 7, 4, 19, 0))
    load_seed_boards(actor=MANAGER)
    board = PrizeBoard.objects.get(series=draw.series)
    fill(board, 500_000)
    [words] = board_missing_settings(draw)
    assert words.endswith("set the roulette multiplier of numbers 0 to 36 (37 numbers).")
    board.settings.update({f"multiplier_{n}": 2 + n % 9 for n in range(36)})
    board.save()
    assert board_missing_settings(draw) == [
        "Prize board of Saturday 7pm Cash draw (Roulette Xtra): set the roulette multiplier of number 36."
    ]


def test_a_series_without_a_board_starts(seed):
    draw = frozen(seed(grc_fast_lane_to_fortune)("thu-jack-1900", 2026, 7, 9, 19, 0))  # boards not loaded
    with time_machine.travel(sast(2026, 7, 9, 19, 1), tick=False):
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="T. Nkosi")
