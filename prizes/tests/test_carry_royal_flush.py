"""The Royal Flush finalist chain (issue 14, item 6; RF r56, r66-r70, PRIZES.md A14): the month's
bin winners' receipts make the manual finalist draw, two wild cards come from bins drawn by hand
on 24 November, and the Grand Finale at Montecasino picks among the finalists carried there. The
tests on the wild cards of 24 November share that night: test_carry_royal_flush_november.py."""

import datetime as dt

import pytest
import time_machine

from draws.engine import draw_key_serial, draw_start
from draws.entry_sources import carried_entries
from draws.models import Channel, Draw, DrawPick, DrawStatus, PickOutcome
from draws.seeds import grc_royal_flush
from draws.services import draws_close_due
from draws.tests.builders import MANAGER, pin_seed, sast
from prizes.conduct import game_finish
from prizes.lines import LineKind
from prizes.models import BoardSlot, PrizeLine
from prizes.tests.test_carry import activate, assert_verifies, load, players, present, slots_of
from prizes.wild_card import wild_card_bin_record

pytestmark = pytest.mark.django_db

BIN_HOURS = (14, 15, 16, 17, 18)
MONTH_ENDS = ((9, 29), (10, 27), (11, 24))  # the last Sundays (the seed's reading of r55, r67)


def ace(count: int, month: int, points: int = 300) -> list:
    """Members with `points` earned in the month (300 points an entry, the seed's reading of r55)."""
    return players(count, "ACE", points, sast(2024, month, 10, 12, 0))


def owners(draw: Draw) -> dict[int, int]:
    """serial -> member of a frozen draw."""
    return {s: a.member_id for a in draw.activations.all() for s in range(a.first_serial, a.last_serial + 1)}


def run_bin(find, month: int, day: int, hour: int, members, *, losers=()) -> list[DrawPick]:
    """A month-end bin with `members`: its 3 winners (none of `losers`) each get their board's
    lines, the every-winner receipt into the finalist draw included (r56)."""
    draw = find("month-end-bins", 2024, month, day, hour, 0)
    activate(draw, members, sast(2024, month, day, hour - 1, 0))
    draws_close_due(now=draw.tickets_close_at)
    draw.refresh_from_db()
    serial_of = owners(draw)
    barred = {m.pk for m in losers}
    pin_seed(draw, lambda s: len({serial_of[x] for x in s}) == 3 and not {serial_of[x] for x in s} & barred)
    with time_machine.travel(draw.scheduled_at, tick=False):
        assert draw_start(actor=MANAGER, draw_id=draw.pk)
        while (pick := DrawPick.objects.filter(draw=draw, outcome="").first()) is not None:
            present(draw, pick)
    winners = list(DrawPick.objects.filter(draw=draw, outcome=PickOutcome.PRESENT).order_by("seq"))
    assert len(winners) == 3
    # "By the order of the picks": the conductor's Finish stores every winner's lines.
    with time_machine.travel(draw.scheduled_at + dt.timedelta(minutes=10), tick=False):
        game_finish(actor=MANAGER, pick_id=winners[0].pk)
    return winners


def run_manual(draw: Draw, serials: list[int] | None = None, *, member=None) -> list[DrawPick]:
    """Start a manual draw a minute after its time and key the paper tickets drawn (or `member`'s
    first), each winner present."""
    with time_machine.travel(draw.scheduled_at + dt.timedelta(minutes=1), tick=False):
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="R. Witness")
        if member is not None:
            serials = [draw.activations.get(member=member).first_serial]
        for serial in serials:
            present(draw, draw_key_serial(actor=MANAGER, draw_id=draw.pk, serial=str(serial)))
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN
    return list(draw.picks.filter(outcome=PickOutcome.PRESENT).order_by("seq"))


def give_place(draw: Draw, winner: DrawPick) -> PrizeLine:
    """The finalist draw's one winner: Finish stores the place (by the order of the picks)."""
    (line,) = game_finish(actor=MANAGER, pick_id=winner.pk)
    assert line.kind == LineKind.PLACE
    return line


def run_electronic_at(draw: Draw) -> list[DrawPick]:
    with time_machine.travel(draw.scheduled_at, tick=False):
        draws_close_due(now=draw.tickets_close_at)
        assert draw_start(actor=MANAGER, draw_id=draw.pk)
        while (pick := DrawPick.objects.filter(draw=draw, outcome="").first()) is not None:
            present(draw, pick)
    draw.refresh_from_db()
    return list(draw.picks.filter(outcome=PickOutcome.PRESENT).order_by("seq"))


def entrants(draw: Draw) -> dict[int, int]:
    """member -> tickets of a frozen draw; every entry carried."""
    acts = list(draw.activations.all())
    assert {a.channel for a in acts} == {Channel.CARRIED}
    return {a.member_id: a.tickets for a in acts}


# --- r56: the month's bin winners' receipts ----------------------------------------------------


def test_the_bins_board_gives_every_winner_one_receipt_in_the_finalist_draw(seed):
    load(seed, grc_royal_flush)
    receipt = BoardSlot.objects.get(board__series__code="month-end-bins", every_winner=True)
    assert (receipt.kind, receipt.count, receipt.target_series.code, receipt.rule) == (
        LineKind.ENTRIES,
        1,
        "month-end-finalist",
        "r56",
    )
    assert receipt.value_words() == "1 entry into Month-end Grand Finale finalist draw"


def test_a_two_bin_winner_has_two_receipts_and_the_finalist_draw_has_no_other_entrants(seed):
    find = load(seed, grc_royal_flush)
    twice, *others = ace(5, 9)
    first = run_bin(find, 9, 29, 14, [twice, *others[:2]])
    second = run_bin(find, 9, 29, 15, [twice, *others[2:]])
    finalist = find("month-end-finalist", 2024, 9, 29, 18, 15)
    # No tickets of its own (period "none"): only the receipts, frozen at its Start, not at the tick.
    assert carried_entries(finalist).only
    draws_close_due(now=finalist.tickets_close_at)
    assert Draw.objects.get(pk=finalist.pk).entries_frozen_at is None
    (winner,) = run_manual(finalist, [6])
    assert entrants(finalist) == {twice.pk: 2, **{o.pk: 1 for o in others}}
    assert finalist.tickets_total == 6 and finalist.win_once == "draw"  # all won a bin today
    assert winner.member_id == owners(finalist)[6]
    why = finalist.activations.get(member=twice).breakdown["carried"]
    assert [(w["draw"], w["kind"]) for w in why] == [(first[0].draw_id, "entries"), (second[0].draw_id, "entries")]
    assert_verifies(finalist)


def test_the_saturday_2130_cash_draw_still_takes_its_own_tickets_with_the_carried_entries(seed):
    find = load(seed, grc_royal_flush)
    cash = find("sat-cash-2130", 2024, 11, 16, 21, 30)
    assert carried_entries(cash) is None  # nothing carried yet: its own tickets, as any draw
    own = ace(2, 11, points=900)
    activate(cash, own, sast(2024, 11, 16, 12, 0))
    assert draws_close_due(now=cash.tickets_close_at) >= 1  # the tick freezes it: not a finalist draw
    cash.refresh_from_db()
    assert {a.channel for a in cash.activations.all()} == {Channel.EHOST}


# --- r66-r68, A14: the wild cards --------------------------------------------------------------


# --- r70: the Grand Finale at Montecasino ------------------------------------------------------


def test_three_month_ends_and_two_wild_cards_make_the_five_grand_finale_entrants(seed):
    find = load(seed, grc_royal_flush)
    finalists = []
    for month, day in MONTH_ENDS:
        run_bin(find, month, day, 14, ace(3, month))
        if month == 11:  # the wild cards' bins, each with one loser
            wild_bins = {n: run_bin(find, 11, 24, hour, ace(4, 11)) for n, hour in ((2, 15), (5, 18))}
        finalist_draw = find("month-end-finalist", 2024, month, day, 18, 15)
        (finalist,) = run_manual(finalist_draw, [2])
        line = give_place(finalist_draw, finalist)
        finalists.append(finalist.member_id)
        assert_verifies(finalist_draw)
    grand_finale = find("grand-finale", 2024, 12, 1, 16, 0)
    assert grand_finale.property.code == "MC" and line.data["carried_into"] == grand_finale.pk  # across properties
    for number, minute in ((2, 30), (5, 35)):
        wild = find("wild-card", 2024, 11, 24, 18, minute)
        wild_card_bin_record(actor=MANAGER, draw_id=wild.pk, number=number)
        (winner,) = run_electronic_at(wild)
        assert winner.member_id not in {w.member_id for w in wild_bins[number]}
        give_place(wild, winner)
        finalists.append(winner.member_id)
    assert len(set(finalists)) == 5
    winners = run_manual(grand_finale, [5, 4, 3, 2, 1])
    assert entrants(grand_finale) == dict.fromkeys(finalists, 1)
    assert [w.member_id for w in winners] == finalists[::-1]  # serials in the order the places were won
    assert_verifies(grand_finale)
    # The 5 winners take the finale cards in pick order (r70.4): the board's game.
    assert [s.label for s in slots_of(grand_finale)] == ["Card A", "Card K", "Card Q", "Card J", "Card 10"]
