"""The pick-a-slot games: reveals, envelopes, podiums, prize cards, Grand Finale cards (GH; FL r41,
A8; TH r55-56; RF r13-14, r28-29, r70; PRIZES.md §1 "a declined winner gets the slot left over")."""

import re

import pytest

from prizes.games.reveals import (
    FL_JACK_PODIUMS_TOTAL,
    FL_QUEEN_PODIUMS_TOTAL,
    GRAND_FINALE_CARDS,
    TH_QUEEN_PODIUMS_TOTAL,
    Pick,
    Slot,
    SlotGame,
    board_refusal,
    grand_finale_lines,
    open_slots,
    podium_lines,
)
from prizes.lines import GameRefused, LineKind, LineSource


def podiums(*rands: int) -> list[Slot]:
    return [Slot(str(n), r * 100) for n, r in enumerate(rands, start=1)]


def picks(*labels: str | None) -> list[Pick]:
    return [Pick(f"W{n}", label) for n, label in enumerate(labels, start=1)]


def test_the_seed_totals_are_quoted_from_the_rules():
    assert FL_JACK_PODIUMS_TOTAL == 2_000_000  # FL r41 "R20,000 cash … to Jacks"
    assert FL_QUEEN_PODIUMS_TOTAL == 3_000_000  # FL r41 "R30 000 cash … to Queens"
    assert TH_QUEEN_PODIUMS_TOTAL == 4_000_000  # TH r56 "R40,000 Cash is up for grabs weekly"
    assert GRAND_FINALE_CARDS == ("A", "K", "Q", "J", "10")  # RF r70.5


@pytest.mark.parametrize(
    ("board", "total"),
    [
        (podiums(2_000, 3_000, 4_000, 5_000, 6_000), FL_JACK_PODIUMS_TOTAL),  # FL Thu Jack, r41, A8
        (podiums(2_000, 4_000, 6_000, 8_000, 10_000), FL_QUEEN_PODIUMS_TOTAL),  # FL Thu Queen, r41, A8
        (podiums(5_000, 5_000, 8_000, 10_000, 12_000), TH_QUEEN_PODIUMS_TOTAL),  # TH Thu Queen, r55-56
    ],
)
def test_five_podiums_pay_exactly_the_weeks_total_examples_5_and_22(board, total):
    lines = podium_lines(slots=board, picks=picks("3", "1", "5", "2", "4"), total_cents=total)

    assert sum(line.amount_cents for line in lines.values()) == total
    assert lines["W1"].amount_cents == board[2].amount_cents
    assert lines["W1"].words == "Podium 3"
    assert (lines["W1"].kind, lines["W1"].source) == (LineKind.CASH, LineSource.BOARD)
    assert lines["W1"].data == {"game": "podium", "slot": "3", "left_over": False}


@pytest.mark.parametrize(
    ("board", "total", "message"),
    [
        (
            podiums(2_000, 3_000, 4_000, 5_000, 5_000),
            FL_JACK_PODIUMS_TOTAL,
            "The 5 podiums add up to R 19,000.00 but the board's total is R 20,000.00",
        ),
        (
            podiums(5_000, 5_000, 8_000, 10_000, 12_001),
            TH_QUEEN_PODIUMS_TOTAL,
            "add up to R 40,001.00 but the board's total is R 40,000.00",
        ),
        (
            [*podiums(2_000, 3_000, 4_000, 5_000), Slot("5", 600_000, LineKind.PLAY)],
            FL_JACK_PODIUMS_TOTAL,
            "A board with a stated total holds cash podiums only",
        ),
    ],
)
def test_a_board_that_does_not_add_up_to_its_total_is_refused(board, total, message):
    assert message in board_refusal(board, game=SlotGame.PODIUM, total_cents=total)
    with pytest.raises(GameRefused, match=re.escape(message)):
        podium_lines(slots=board, picks=picks("1"), total_cents=total)


def test_a_podium_board_is_five_podiums():
    with pytest.raises(GameRefused, match=re.escape("five podiums on stage (FL r41, TH r55); the board has 4")):
        podium_lines(slots=podiums(5_000, 5_000, 5_000, 5_000), picks=picks("1"))


@pytest.mark.parametrize(
    ("board", "message"),
    [
        ([], "The board has no reveals"),
        ([Slot("1", 100), Slot("1", 200)], "Two reveals are labelled 1"),
        ([Slot(" ", 100)], "A reveal has no label"),
        ([Slot("1", -100)], "Reveal 1 needs an amount in whole cents, not below zero"),
        ([Slot("1", 100.0)], "Reveal 1 needs an amount in whole cents"),
        ([Slot("1", 100, "cheque")], "Reveal 1 has no kind of prize"),
    ],
)
def test_a_board_with_a_slot_that_cannot_be_paid_is_refused(board, message):
    assert message in board_refusal(board)
    with pytest.raises(GameRefused, match=re.escape(message)):
        open_slots(slots=board, picks=picks("1"))


REVEALS = [Slot(str(n), n * 100_000) for n in range(1, 9)]  # GH Thu 13h00: 5 winners, reveals cfg


def test_each_winner_gets_the_reveal_they_opened_in_pick_order():
    lines = open_slots(slots=REVEALS, picks=picks("8", "2", "5", "1", "7"))

    assert list(lines) == ["W1", "W2", "W3", "W4", "W5"]
    assert [line.amount_cents for line in lines.values()] == [800_000, 200_000, 500_000, 100_000, 700_000]
    assert lines["W2"].words == "Reveal 2"


@pytest.mark.parametrize(
    ("opened", "message"),
    [
        (("8", "2", "8"), "Reveal 8 was already opened in this draw"),
        (("8", "9"), "There is no reveal 9 on this board"),
        (("8", None), "Record the reveal each winner opened"),
        (tuple(str(n) for n in range(1, 10)), "9 winners but only 8 reveals"),
    ],
)
def test_an_impossible_opening_is_refused(opened, message):
    with pytest.raises(GameRefused, match=re.escape(message)):
        open_slots(slots=REVEALS, picks=picks(*opened))


def test_a_winner_opens_once_per_draw():
    with pytest.raises(GameRefused, match="A winner was recorded twice"):
        open_slots(slots=REVEALS, picks=[Pick("W1", "1"), Pick("W1", "2")])


def test_a_declined_winner_gets_the_podium_left_over_PRIZES_1():
    board = podiums(2_000, 3_000, 4_000, 5_000, 6_000)
    turns = [Pick("W1", "3"), Pick("W2", None, declined=True), Pick("W3", "1"), Pick("W4", "5"), Pick("W5", "2")]

    lines = podium_lines(slots=board, picks=turns, total_cents=FL_JACK_PODIUMS_TOTAL)

    assert list(lines) == ["W1", "W2", "W3", "W4", "W5"]  # pick order kept
    assert lines["W2"].amount_cents == 500_000  # podium 4, the one nobody chose
    assert lines["W2"].words == "Podium 4 (the one left over: the winner declined to be present)"
    assert lines["W2"].data["left_over"] is True


def test_two_declined_winners_need_the_conductor_to_say_which_podium_each_got():
    board = podiums(2_000, 3_000, 4_000, 5_000, 6_000)
    turns = [Pick("W1", "3"), Pick("W2", None, True), Pick("W3", "1"), Pick("W4", None, True), Pick("W5", "2")]
    with pytest.raises(GameRefused, match="2 podiums are left for 2 declined winner"):
        podium_lines(slots=board, picks=turns)

    turns[1], turns[3] = Pick("W2", "5", True), Pick("W4", "4", True)
    lines = podium_lines(slots=board, picks=turns)
    assert (lines["W2"].amount_cents, lines["W4"].amount_cents) == (600_000, 500_000)
    assert lines["W2"].words == "Podium 5"


def test_with_more_reveals_than_winners_a_declined_winners_reveal_is_recorded():
    turns = [Pick("W1", "3"), Pick("W2", None, declined=True)]
    with pytest.raises(GameRefused, match="7 reveals are left for 1 declined winner"):
        open_slots(slots=REVEALS, picks=turns)

    lines = open_slots(slots=REVEALS, picks=[Pick("W1", "3"), Pick("W2", "6", declined=True)])
    assert lines["W2"].amount_cents == 600_000


def test_grand_finale_cards_pay_whatever_is_behind_them_rank_is_not_size_RF_r70():
    board = [Slot("A", 1_000_000), Slot("K", 5_000_000), Slot("Q", 2_000_000), Slot("J", 500_000)]
    board.append(Slot("10", 10_000_000))  # the 10 hides the biggest prize (r70.5)

    lines = grand_finale_lines(slots=board, picks=picks("A", "10", "K", "Q", "J"))

    assert lines["W1"].amount_cents == 1_000_000
    assert lines["W2"].amount_cents == 10_000_000
    assert lines["W2"].words == "Grand Finale card 10"


@pytest.mark.parametrize("labels", [("A", "K", "Q", "J", "9"), ("A", "K", "Q", "J"), ("A", "K", "Q", "J", "10", "9")])
def test_a_grand_finale_board_is_the_cards_a_k_q_j_10(labels):
    board = [Slot(label, 100_000) for label in labels]
    message = "The Grand Finale cards are A, K, Q, J, 10, one each"
    assert message in board_refusal(board, game=SlotGame.GRAND_FINALE_CARD, labels=GRAND_FINALE_CARDS)
    with pytest.raises(GameRefused, match=message):
        grand_finale_lines(slots=board, picks=picks("A"))


def test_envelopes_and_prize_cards_are_named_as_on_the_floor():
    envelopes = open_slots(slots=REVEALS, picks=picks("4"), game=SlotGame.ENVELOPE)  # GH RAPS
    cards = open_slots(slots=REVEALS, picks=picks("2"), game=SlotGame.PRIZE_CARD)  # RF r13-14, r28-29

    assert envelopes["W1"].words == "Envelope 4"
    assert cards["W1"].words == "Prize card 2"
    assert cards["W1"].data["game"] == "prize_card"


def test_a_reveal_can_be_a_vehicle_at_its_stated_value_A5():
    board = [*REVEALS[:4], Slot("5", 36_200_000, LineKind.VEHICLE)]

    lines = open_slots(slots=board, picks=picks("5"))

    assert (lines["W1"].kind, lines["W1"].amount_cents) == (LineKind.VEHICLE, 36_200_000)


def test_the_fast_lane_car_draw_six_podiums_one_a_vehicle_of_r362k_example_15():
    """FL r64-67: six finalists, five cash podiums (cfg) and a vehicle "valued at R362k"."""
    board = [*podiums(5_000, 5_000, 5_000, 5_000, 5_000), Slot("6", 36_200_000, LineKind.VEHICLE)]

    lines = open_slots(slots=board, picks=picks("2", "6", "1", "3", "5", "4"), game=SlotGame.PODIUM)

    assert (lines["W2"].kind, lines["W2"].amount_cents, lines["W2"].words) == (LineKind.VEHICLE, 36_200_000, "Podium 6")
    assert [lines[w].kind for w in ("W1", "W3", "W4", "W5", "W6")] == [LineKind.CASH] * 5
