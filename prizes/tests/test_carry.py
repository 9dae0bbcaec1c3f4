"""Finalists and carry-overs (issue 14, item 6; PRIZES.md §5 examples 14, 21, 23; A7, A13, A20):
places and entries won in one draw become entrants of the later draw, frozen into its entry
list so that its exported record verifies like any other."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from core.errors import DomainError
from draws.engine import draw_end_short, draw_key_serial, draw_start, pick_outcome_record
from draws.entry_sources import carried_entries
from draws.models import Channel, Draw, DrawPick, DrawStatus, PickOutcome
from draws.raps import raps_list_upload
from draws.record import draw_record_files
from draws.seeds import grc_fast_lane_to_fortune, grc_royal_flush, grc_turn_up_the_heat
from draws.services import activation_create, draws_close_due
from draws.tests.builders import MANAGER, pin_seed, sast
from draws.tests.factories import make_draw
from draws.verification import verify_record, verify_records
from members.models import Property, Tier
from members.tests.factories import MemberFactory, PointsEntryFactory
from prizes.addons import WinnerFlags, addon_lines
from prizes.carry import carry_lines_store, carry_spec, place_lines_resolve
from prizes.lines import LineKind, LineSource, LineSpec
from prizes.models import BoardSlot, PrizeBoard, PrizeLine
from prizes.seed_boards import load_seed_boards
from prizes.services import prize_line_reverse

pytestmark = pytest.mark.django_db


def load(seed, module):
    """The seed promotion with its boards, every blank amount filled (the Start waits for them)."""
    find = seed(module)
    load_seed_boards(actor=Actor.system("test"))
    slots = BoardSlot.objects.filter(board__series__promotion__code=module.PROMOTION.code)
    slots.filter(amount_cents__isnull=True).exclude(kind__in=(LineKind.PLACE, LineKind.ENTRIES)).update(
        amount_cents=100_000
    )
    slots.filter(kind=LineKind.ENTRIES, count__isnull=True).update(count=3)  # RF r34.1: cfg (A13)
    for board in PrizeBoard.objects.filter(series__promotion__code=module.PROMOTION.code):
        if "car_draw_qualifiers" in board.settings:  # TH A20: cfg; none unless a test says so
            board.settings["car_draw_qualifiers"] = 0
            board.save(update_fields=["settings"])
    return find


def players(count: int, tier: str, points: int, earned_at: dt.datetime, **kwargs) -> list:
    grc = Property.objects.get(code="GRC")
    made = []
    for _ in range(count):
        member = MemberFactory(tier=Tier.objects.get(code=tier), home_property=grc, **kwargs)
        PointsEntryFactory(member=member, points=points, earned_at=earned_at, property=grc)
        made.append(member)
    return made


def activate(draw: Draw, members, at: dt.datetime) -> None:
    with time_machine.travel(at, tick=False):
        for member in members:
            activation_create(
                actor=Actor.system("ehost"), draw_id=draw.pk, card_number=member.card_number, channel="ehost"
            )


def present(draw: Draw, pick: DrawPick) -> None:
    pick_outcome_record(actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome="present", id_type_seen="sa_id")


def run_electronic(draw: Draw) -> list[DrawPick]:
    """Start at its time and confirm every pick present; the winners in confirmed order."""
    with time_machine.travel(draw.scheduled_at, tick=False):
        draws_close_due(now=draw.tickets_close_at)
        assert draw_start(actor=MANAGER, draw_id=draw.pk)
        while (pick := DrawPick.objects.filter(draw=draw, outcome="").first()) is not None:
            present(draw, pick)
    return list(DrawPick.objects.filter(draw=draw, outcome=PickOutcome.PRESENT).order_by("seq"))


def slots_of(draw: Draw) -> list[BoardSlot]:
    return list(BoardSlot.objects.filter(board__series=draw.series).order_by("position"))


def board_spec(slot: BoardSlot) -> LineSpec:
    if slot.kind in (LineKind.PLACE, LineKind.ENTRIES):
        return carry_spec(slot)
    return LineSpec(LineKind(slot.kind), slot.amount_cents, LineSource.BOARD, slot.label)


def assert_verifies(draw: Draw) -> None:
    files = draw_record_files(draw)
    report = verify_record(files.json, files.entries)
    assert report.holds, report.text()


def test_fast_lane_car_saturday_six_places_make_the_car_draw_which_freezes_them_alone_and_verifies(seed):
    """Example 14 (FL r59-r61, A7): 29 Aug 2026, 3pm and 7pm: 3 cash + 2 places (the 4th and 5th
    confirmed winners); 9pm: 2 places. The car draw (r64-r67) picks only among the six."""
    find = load(seed, grc_fast_lane_to_fortune)
    earned = sast(2026, 8, 10, 12, 0)
    finalists = []
    for series, hour, wanted in (("sat-car-1500-1900", 15, 5), ("sat-car-1500-1900", 19, 5), ("sat-car-2100", 21, 2)):
        draw = find(series, 2026, 8, 29, hour, 0)
        activate(draw, players(wanted + 1, "JACK", 2_000, earned), sast(2026, 8, 29, hour - 1, 0))
        winners = run_electronic(draw)
        assert len(winners) == wanted
        slots = slots_of(draw)
        for winner, slot in zip(winners, slots, strict=True):
            carry_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[board_spec(slot)])
        placed = [w.member_id for w, s in zip(winners, slots, strict=True) if s.kind == LineKind.PLACE]
        assert placed == ([w.member_id for w in winners[3:]] if wanted == 5 else [w.member_id for w in winners])
        finalists += placed
    car = find("sat-car-final", 2026, 8, 29, 21, 15)
    line = PrizeLine.objects.filter(kind=LineKind.PLACE).first()
    assert line.data["carried_into"] == car.pk and "Car draw (six finalists)" in line.words
    # The tick at 21h15 leaves it open: a place recorded late by the 9pm draw still counts.
    assert draws_close_due(now=car.tickets_close_at) == 0
    assert Draw.objects.get(pk=car.pk).status == DrawStatus.SCHEDULED
    with time_machine.travel(car.scheduled_at + dt.timedelta(minutes=1), tick=False):
        assert draw_start(actor=MANAGER, draw_id=car.pk, witness_name="F. Witness")
        car.refresh_from_db()
        entries = list(car.activations.order_by("first_serial"))
        assert [a.member_id for a in entries] == finalists and len(set(finalists)) == 6
        assert {a.channel for a in entries} == {Channel.CARRIED} and car.tickets_total == 6
        assert car.win_once == "draw"  # the finalists all won today: rule 118's once a day is theirs already
        for serial in (6, 2, 4, 1, 3, 5):  # the manual bin of six finalists' places
            present(car, draw_key_serial(actor=MANAGER, draw_id=car.pk, serial=str(serial)))
    car.refresh_from_db()
    assert car.status == DrawStatus.DRAWN
    assert set(car.picks.filter(outcome=PickOutcome.PRESENT).values_list("member_id", flat=True)) == set(finalists)
    assert_verifies(car)


def test_a_place_reversed_before_the_freeze_carries_nobody(seed, manager_actor):
    find = load(seed, grc_fast_lane_to_fortune)
    draw = find("sat-car-2100", 2026, 8, 29, 21, 0)
    activate(draw, players(3, "JACK", 2_000, sast(2026, 8, 10, 12, 0)), sast(2026, 8, 29, 20, 0))
    winners = run_electronic(draw)
    for winner, slot in zip(winners, slots_of(draw), strict=True):
        carry_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[board_spec(slot)])
    first = PrizeLine.objects.get(pick=winners[0])
    prize_line_reverse(actor=manager_actor, line_id=first.pk, reason="Not a JACK member on the night: place withdrawn")
    car = find("sat-car-final", 2026, 8, 29, 21, 15)
    carried = carried_entries(car)
    assert carried.only and [e.member_id for e in carried.entries] == [winners[1].member_id]
    Draw.objects.filter(pk=car.pk).update(tickets_close_at=sast(2026, 8, 29, 21, 14))
    with time_machine.travel(car.scheduled_at, tick=False):
        BoardSlot.objects.filter(board__series=car.series).update(amount_cents=100_000)
        assert draw_start(actor=MANAGER, draw_id=car.pk, witness_name="F. Witness")
    car.refresh_from_db()
    assert list(car.activations.values_list("member_id", flat=True)) == [winners[1].member_id]
    # Once frozen, the finalists are fixed: a place can no longer reach this draw.
    with pytest.raises(DomainError, match="were frozen"):
        place_lines_resolve(draw=draw, pick=winners[0], specs=[board_spec(slots_of(draw)[0])])


def test_turn_up_the_heat_second_place_in_the_same_car_draw_becomes_r5000_cash(seed):
    """Example 21 (TH r69-r70, A20): a place won on 8 Nov, qualifies again on 22 Nov, on the app:
    R5,000 (a conversion, the 22 Nov draw's prize) + R500 add-on; one place in the 29 Nov car draw."""
    find = load(seed, grc_turn_up_the_heat)
    patron = players(1, "JACK", 5_000, sast(2025, 10, 1, 12, 0), app_registered_on=dt.date(2025, 1, 1))[0]
    car_series = find("sat-car-final", 2025, 11, 29, 21, 15).series
    place = LineSpec(LineKind.PLACE, 0, LineSource.BOARD, "Car draw place", {"target_series": car_series.pk})
    stored = []
    for day in (8, 22):
        draw = find("sat-cash-1900", 2025, 11, day, 19, 0)
        activate(draw, [patron], sast(2025, 11, day, 18, 0))
        (winner,) = run_electronic(draw)
        stored.append(carry_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[place]))
    car = find("sat-car-final", 2025, 11, 29, 21, 15)
    assert [(line.kind, line.source, line.data["carried_into"]) for line in stored[0]] == [
        (LineKind.PLACE, LineSource.BOARD, car.pk)
    ]
    (conversion,) = stored[1]
    assert (conversion.kind, conversion.amount_cents, conversion.source) == (LineKind.CASH, 500_000, "conversion")
    assert conversion.draw == find("sat-cash-1900", 2025, 11, 22, 19, 0)  # A20: that draw's prize
    assert "carried_into" not in conversion.data and "one place per patron" in conversion.words
    spec = LineSpec(LineKind(conversion.kind), conversion.amount_cents, LineSource(conversion.source), "")
    addons = addon_lines(
        promotion_code="grc-turn-up-the-heat",
        series_code="sat-cash-1900",
        flags=WinnerFlags.of(patron),
        verified_at=sast(2025, 11, 22, 19, 5),
        prize_lines=[spec],
    )
    assert [a.amount_cents for a in addons if a.kind == LineKind.CASH] == [50_000]  # TH r128: R500 on the app
    carried = carried_entries(car)
    assert carried.only and [(e.member_id, e.tickets) for e in carried.entries] == [(patron.pk, 1)]


def test_a_second_place_without_a_conversion_is_refused_in_words(seed):
    find = load(seed, grc_fast_lane_to_fortune)
    draw = find("sat-car-2100", 2026, 8, 29, 21, 0)
    activate(draw, players(2, "JACK", 2_000, sast(2026, 8, 10, 12, 0)), sast(2026, 8, 29, 20, 0))
    winner = run_electronic(draw)[0]
    two = [board_spec(s) for s in slots_of(draw)]
    with pytest.raises(DomainError, match="already holds a place in Car draw"):
        carry_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=two)
    assert not PrizeLine.objects.exists()


def _raps_winners(session: Draw, members) -> list[DrawPick]:
    rows = "card_number,device_type,device_id,spend\n" + "".join(
        f"{m.card_number},slot,S{i:02d},500.00\n" for i, m in enumerate(members)
    )
    draws_close_due(now=session.tickets_close_at)
    with time_machine.travel(session.scheduled_at + dt.timedelta(minutes=55), tick=False):
        raps_list_upload(
            actor=MANAGER,
            draw_id=session.pk,
            file_name="active.csv",
            text=rows,
            min_spend_cents=10_000,
            excluded_devices=[],
            slot_quota=15,
            table_quota=0,
        )
        assert draw_start(actor=MANAGER, draw_id=session.pk, witness_name="R. Witness")
        while (pick := DrawPick.objects.filter(draw=session, outcome="").first()) is not None:
            present(session, pick)
    return list(DrawPick.objects.filter(draw=session, outcome=PickOutcome.PRESENT).order_by("seq"))


def test_royal_flush_raps_winner_entries_join_saturdays_2130_and_do_not_redraw_the_winner(seed):
    """Example 23 (RF r34.1, A13): a bonus-session winner's prize card and E entries into that
    week's Saturday Night Cash draw (the one on or after the session); rule 36's once per day is
    the cash draws' only, so the 21h30 does not redraw them. Control: a same-day win in a draw
    that is not a bonus session (a bin scheduled that Saturday) still redraws."""
    find = load(seed, grc_royal_flush)
    earned = sast(2024, 11, 14, 12, 0)
    session = find("sat-bonus-jackpot-raps", 2024, 11, 16, 20, 0)
    floor = players(15, "ACE", 600, earned)
    winners = _raps_winners(session, floor)
    raps_slots = slots_of(session)
    entries_slot = next(s for s in raps_slots if s.kind == LineKind.ENTRIES)
    for winner, card in zip(winners[:2], raps_slots, strict=False):
        carry_lines_store(actor=MANAGER, draw=session, pick=winner, specs=[board_spec(card), carry_spec(entries_slot)])
    raps_winner = winners[0].member
    cash = find("sat-cash-2130", 2024, 11, 16, 21, 30)
    line = PrizeLine.objects.get(pick=winners[0], kind=LineKind.ENTRIES)
    assert (line.amount_cents, line.data["carried_into"]) == (3, cash.pk)

    # A control winner: a same-day draw of the promotion that is not a bonus session.
    bin_draw = make_draw(find("month-end-bins", 2024, 11, 24, 14, 0).series, sast(2024, 11, 16, 14, 0))
    bin_winner = players(1, "ACE", 600, earned)[0]
    activate(bin_draw, [bin_winner], sast(2024, 11, 16, 9, 0))
    assert [w.member for w in run_electronic(bin_draw)] == [bin_winner]
    with time_machine.travel(bin_draw.scheduled_at + dt.timedelta(minutes=5), tick=False):
        draw_end_short(actor=MANAGER, draw_id=bin_draw.pk, reason="One entrant in this bin.")

    others = players(4, "ACE", 600, earned)
    activate(cash, [raps_winner, bin_winner, *others], sast(2024, 11, 16, 12, 0))
    own = {a.member_id: a for a in cash.activations.all()}
    assert draws_close_due(now=cash.tickets_close_at) >= 1
    cash.refresh_from_db()
    ranges = {
        (a.member_id, a.channel): (a.first_serial, a.last_serial) for a in cash.activations.order_by("first_serial")
    }
    # The carried entries come after the tickets activated that day, one range per winner.
    assert ranges[(raps_winner.pk, Channel.CARRIED)] == (cash.tickets_total - 5, cash.tickets_total - 3)
    assert ranges[(winners[1].member_id, Channel.CARRIED)][1] == cash.tickets_total
    assert cash.tickets_total == sum(a.tickets for a in own.values()) + 2 * 3
    lo, hi = ranges[(raps_winner.pk, Channel.CARRIED)]
    b_lo, b_hi = ranges[(bin_winner.pk, Channel.EHOST)]
    pin_seed(cash, lambda s: lo <= s[0] <= hi and b_lo <= s[1] <= b_hi, picks=2)
    with time_machine.travel(cash.scheduled_at, tick=False):
        assert draw_start(actor=MANAGER, draw_id=cash.pk)
        first = DrawPick.objects.get(draw=cash, k=1)
        assert (first.member, first.outcome) == (raps_winner, "")  # drawn with a carried entry, not redrawn
        present(cash, first)
        second = DrawPick.objects.get(draw=cash, k=2)
        assert (second.member, second.outcome) == (bin_winner, PickOutcome.REDRAW_WON_IN_SCOPE)  # rule 36
        while (pick := DrawPick.objects.filter(draw=cash, outcome="").first()) is not None:
            present(cash, pick)
    cash.refresh_from_db()
    assert_verifies(cash)
    # Checked together, as an auditor checks a promotion's records: the session's win is outside
    # the cash draw's once per day, the bin's win justifies its redraw.
    files = [draw_record_files(Draw.objects.get(pk=d.pk)) for d in (session, bin_draw, cash)]
    reports = verify_records([(f.json, f.entries) for f in files])
    assert all(r.holds for r in reports), "\n".join(r.text() for r in reports)
