"""The prize pages: a board filled in through plain fields (managers; auditors read), the
prize record of a draw with its corrections, the totals and the CSV; the draw page and Tonight
name a board's missing settings."""

import csv
import io

import pytest
from django.urls import reverse

from core.roles import PROMOTIONS_MANAGER
from draws.tests.builders import MANAGER
from prizes.models import BoardGame, PrizeLine
from prizes.services import SlotDef, board_create, prize_lines_store
from prizes.tests.conftest import cash

pytestmark = pytest.mark.django_db


@pytest.fixture
def podiums(running):
    draw, _ = running
    return board_create(
        actor=MANAGER,
        series=draw.series,
        game=BoardGame.PODIUM,
        slots=[SlotDef("Podium 1", None, rule="r41"), SlotDef("Podium 2", 500_000, rule="r41")],
    )


@pytest.fixture
def idle_board(reference_data):
    from promotions.tests.factories import make_series

    return board_create(
        actor=MANAGER,
        series=make_series(),
        game=BoardGame.ROULETTE,
        slots=[SlotDef("Podium 1", None), SlotDef("Podium 2", 500_000)],
        total_cents=1_000_000,
    )


def test_a_manager_fills_in_a_board_in_rand(manager, idle_board):
    url = reverse("prizes:board", kwargs={"board_id": idle_board.pk})
    page = manager.get(url)
    assert "Still to set before a draw can start:" in page.content.decode()
    first, second = idle_board.slots.all()
    data = {
        f"slot_{first.pk}_amount": "R 5,000.00",
        f"slot_{first.pk}_kind": "cash",
        f"slot_{second.pk}_amount": "5000",
        f"slot_{second.pk}_kind": "play",
        "setting_min_stake_cents": "200",
        "setting_max_spins": "10",
        **{f"setting_multiplier_{n}": "2" for n in range(37)},
        "total": "10 000",
    }
    page = manager.post(url, data, follow=True)
    assert "saved" in page.content.decode()
    assert list(idle_board.slots.values_list("amount_cents", "kind")) == [(500_000, "cash"), (500_000, "play")]
    assert "Still to set" not in page.content.decode()


def test_a_board_that_does_not_add_up_is_refused_on_the_page(manager, idle_board):
    first, second = idle_board.slots.all()
    data = {f"slot_{first.pk}_amount": "6000", f"slot_{first.pk}_kind": "cash", f"slot_{second.pk}_kind": "cash"}
    data |= {f"slot_{second.pk}_amount": "5000", "total": "10000"}
    page = manager.post(reverse("prizes:board", kwargs={"board_id": idle_board.pk}), data)
    assert "more than the board&#x27;s total of R 10,000.00" in page.content.decode()
    assert first.__class__.objects.get(pk=first.pk).amount_cents is None


@pytest.mark.parametrize("amount", ["-5", "12.345", "five"])
def test_a_slip_in_an_amount_is_refused(manager, idle_board, amount):
    first, _ = idle_board.slots.all()
    page = manager.post(
        reverse("prizes:board", kwargs={"board_id": idle_board.pk}),
        {f"slot_{first.pk}_amount": amount, f"slot_{first.pk}_kind": "cash"},
    )
    assert page.status_code == 200 and "invalid-feedback" in page.content.decode()
    assert first.__class__.objects.get(pk=first.pk).amount_cents is None


def test_an_auditor_reads_a_board_and_may_not_change_it(auditor, idle_board):
    url = reverse("prizes:board", kwargs={"board_id": idle_board.pk})
    page = auditor.get(url)
    assert "board-form" not in page.content.decode() and "R 5,000.00" in page.content.decode()
    assert auditor.post(url, {}).status_code == 403


def test_the_board_is_not_offered_while_its_draw_runs(manager, podiums):
    page = manager.get(reverse("prizes:board", kwargs={"board_id": podiums.pk}))
    assert "board-form" not in page.content.decode()
    assert "A draw of this series is running" in page.content.decode()


def test_the_draw_page_and_tonight_name_the_missing_settings(manager, reference_data):
    import time_machine

    from draws.tests.builders import sast
    from draws.tests.factories import make_draw
    from promotions.tests.factories import make_series

    series = make_series(windows=[{"day": 0, "open": "00:00", "close_before": 5}])
    draw = make_draw(series, sast(2026, 3, 4, 21, 0))
    board_create(actor=MANAGER, series=series, game=BoardGame.REVEAL, slots=[SlotDef("Reveal 1")])
    with time_machine.travel(sast(2026, 3, 4, 18, 0), tick=False):
        page = manager.get(reverse("draws:detail", kwargs={"draw_id": draw.pk})).content.decode()
        assert "Prizes not set:" in page and "set the amount of Reveal 1" in page
        tonight = manager.get(reverse("draws:tonight")).content.decode()
        assert "set the amount of Reveal 1" in tonight


def test_the_prize_record_of_a_draw_and_its_correction(manager, complete):
    draw, winner, _ = complete
    [line] = prize_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[cash(800_000, ball="pink")])
    page = manager.get(reverse("prizes:draw", kwargs={"draw_id": draw.pk})).content.decode()
    assert "R 8,000.00" in page and "ball: pink" in page
    assert reverse("prizes:reverse", kwargs={"line_id": line.pk}) in page
    done = manager.post(
        reverse("prizes:reverse", kwargs={"line_id": line.pk}), {"reason": "Podium misread."}, follow=True
    )
    text = done.content.decode()
    assert "Reason: Podium misread." in text and "-R 8,000.00" in text
    assert PrizeLine.objects.get(reverses=line).amount_cents == -800_000


def test_the_record_totals_and_csv(client_for, complete):
    from core.roles import AUDITOR

    draw, first, second = complete
    prize_lines_store(actor=MANAGER, draw=draw, pick=first, specs=[cash(800_000)])
    prize_lines_store(actor=MANAGER, draw=draw, pick=second, specs=[cash(300_000, "Podium 1")])
    auditor = client_for(AUDITOR)
    page = auditor.get(reverse("prizes:record")).content.decode()
    assert "R 11,000.00" in page  # the night's, the promotion's, the property's and the draw's totals
    rows = list(csv.reader(io.StringIO(auditor.get(reverse("prizes:record_csv")).content.decode())))
    assert rows[0][:3] == ["draw", "draw time", "night"]
    assert [(r[5], r[10], r[11]) for r in rows[1:]] == [
        (str(first.k), "8000", "Podium 3"),
        (str(second.k), "3000", "Podium 1"),
    ]


def test_the_series_page_links_to_its_boards(client_for, podiums):
    page = client_for(PROMOTIONS_MANAGER).get(
        reverse("promotions:detail", kwargs={"promotion_id": podiums.series.promotion_id})
    )
    assert reverse("prizes:series_boards", kwargs={"series_id": podiums.series_id}) in page.content.decode()


DECK = "As Ks Qs Js 10s Ah Kh Qh Jh 10h Ad Kd Qd Jd 10d Ac Kc Qc Jc 10c 9s 9h 9d 9c 8s"


def make_board(game: str, slots: list[SlotDef], **kwargs):
    from promotions.tests.factories import make_series

    return board_create(actor=MANAGER, series=make_series(), game=game, slots=slots, **kwargs)


def board_post(client, board, **settings):
    data = {f"slot_{slot.pk}_amount": str(slot.amount_cents // 100) for slot in board.slots.all()}
    data |= {f"slot_{slot.pk}_kind": "cash" for slot in board.slots.all()}
    data |= {f"setting_{key}": value for key, value in settings.items()}
    return client.post(reverse("prizes:board", kwargs={"board_id": board.pk}), data, follow=True)


def test_the_best_hand_deck_is_typed_as_cards_checked_saved_and_audited(manager, reference_data):
    """A9: the deck is plain text on the board page, refused with the engine's words, kept as
    the engine writes the cards."""
    from core.models import AuditEvent

    board = make_board(BoardGame.BEST_HAND, [SlotDef("Place 1", 500_000)], settings={"split_ties": True})
    url = reverse("prizes:board", kwargs={"board_id": board.pk})
    page = manager.get(url).content.decode()
    assert "Still to set before a draw can start:</strong> the 25 cards of the Best Hand deck" in page
    assert 'name="setting_deck"' in page and "FL rule 84 deals each winner three cards" in page
    page = board_post(manager, board, split_ties="on", deck=DECK.rsplit(" ", 1)[0]).content.decode()
    assert "The Best Hand deck has 24 cards; FL rule 84 deals from 25." in page
    page = board_post(manager, board, split_ties="on", deck=DECK.replace("8s", "Ks")).content.decode()
    assert "The Best Hand deck has Ks more than once" in page
    board.refresh_from_db()
    assert board.setting("deck") is None
    typed = DECK.upper().replace(" ", ", ", 3)  # as a clerk may type it: capitals, some commas
    page = board_post(manager, board, split_ties="on", deck=typed).content.decode()
    assert "saved" in page and "Still to set" not in page
    board.refresh_from_db()
    assert board.setting("deck") == DECK
    saved = AuditEvent.objects.filter(action="prize.board_saved").last()
    assert saved.data["changes"]["deck"] == [None, DECK]


def test_an_auditor_reads_the_games_settings(auditor, reference_data):
    board = make_board(BoardGame.BEST_HAND, [SlotDef("Place 1", 500_000)], settings={"split_ties": True, "deck": DECK})
    page = auditor.get(reverse("prizes:board", kwargs={"board_id": board.pk})).content.decode()
    assert "board-form" not in page and 'id="board-settings"' in page
    assert "The 25 cards of the Best Hand deck" in page and DECK in page and "FL rule 84" in page
    blank = make_board(BoardGame.BEST_HAND, [SlotDef("Place 1", 500_000)])
    page = auditor.get(reverse("prizes:board", kwargs={"board_id": blank.pk})).content.decode()
    assert "Not set" in page


def test_the_safes_forfeit_is_a_rand_amount_on_the_board(manager, reference_data):
    board = make_board(BoardGame.SAFE, [SlotDef("Podium 1", 500_000)])
    page = manager.get(reverse("prizes:board", kwargs={"board_id": board.pk})).content.decode()
    assert 'name="setting_forfeit_cents" value="2000.00"' in page and "TH rule 125" in page
    assert "saved" in board_post(manager, board, forfeit_cents="R 3,000").content.decode()
    board.refresh_from_db()
    assert board.setting("forfeit_cents") == 300_000
    board_post(manager, board, forfeit_cents="")  # emptied: back to r125's R2,000
    board.refresh_from_db()
    assert board.setting("forfeit_cents") == 200_000


def test_the_symbol_boxes_and_blanks_must_fit_three_of_each_symbol(manager, reference_data):
    board = make_board(BoardGame.SYMBOL_BOXES, [SlotDef("Podium 1", 500_000)], settings={"boxes": 12})
    page = board_post(manager, board, boxes="14", blank_boxes="6").content.decode()
    assert "6 blank boxes make 12 boxes, not 14" in page
    board.refresh_from_db()
    assert board.setting("boxes") == 12
    assert "saved" in board_post(manager, board, boxes="14", blank_boxes="8").content.decode()
    board.refresh_from_db()
    assert (board.setting("boxes"), board.setting("blank_boxes")) == (14, 8)


def test_a_boards_own_required_setting_is_a_plain_field_on_its_page(manager, reference_data):
    """TH A20: "car draw qualifiers per draw" is asked for on the board that has it (blank: still
    to set), saved from a number field; another board of the same game does not show it."""
    from promotions.tests.factories import make_series

    board = board_create(
        actor=MANAGER,
        series=make_series(),
        game=BoardGame.PADDLE,
        slots=[SlotDef("Reveal 1", 100_000)],
        settings={"reveals": 1, "car_draw_qualifiers": None},
    )
    other = board_create(actor=MANAGER, series=make_series(), game=BoardGame.PADDLE, slots=[SlotDef("Reveal 1", 1)])
    url = reverse("prizes:board", kwargs={"board_id": board.pk})
    page = manager.get(url).content.decode()
    assert 'name="setting_car_draw_qualifiers"' in page and "car draw qualifiers per draw" in page
    assert (
        'name="setting_car_draw_qualifiers"'
        not in manager.get(reverse("prizes:board", kwargs={"board_id": other.pk})).content.decode()
    )
    (slot,) = board.slots.all()
    data = {f"slot_{slot.pk}_amount": "1000", f"slot_{slot.pk}_kind": "cash", "setting_reveals": "1"}
    page = manager.post(url, {**data, "setting_car_draw_qualifiers": "2"}, follow=True).content.decode()
    assert "saved" in page and "Still to set" not in page
    board.refresh_from_db()
    assert board.settings["car_draw_qualifiers"] == 2
