"""Every seed runs (issue 8, item 7): for each seed promotion, a draw of each method it uses goes
from activations (or an uploaded active-player list) to a complete record that verifies from
its exported files alone."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from draws.engine import draw_key_serial, draw_start, draws_start_due, pick_outcome_record
from draws.models import Draw, DrawPick, DrawStatus, PickOutcome, RapsPool
from draws.raps import raps_list_upload
from draws.record import draw_record_files
from draws.seeds import (
    emnotweni_daytime_playtime,
    golden_horse_prive_powerplay,
    grc_royal_flush,
    grc_turn_up_the_heat,
)
from draws.services import activation_create, draws_close_due
from draws.tests.builders import MANAGER, pin_seed, sast
from draws.verification import verify_record
from members.models import Property, Tier
from members.tests.factories import MemberFactory, PointsEntryFactory

pytestmark = pytest.mark.django_db


def players(count: int, tier: str, home: str, points: int, earned_at: dt.datetime, **kwargs) -> list:
    made = []
    for _ in range(count):
        member = MemberFactory(
            tier=Tier.objects.get(code=tier), home_property=Property.objects.get(code=home), **kwargs
        )
        PointsEntryFactory(member=member, points=points, earned_at=earned_at, property=Property.objects.get(code=home))
        made.append(member)
    return made


def activate_all(draw: Draw, members, at: dt.datetime) -> None:
    with time_machine.travel(at, tick=False):
        for member in members:
            activation_create(
                actor=Actor.system("ehost"), draw_id=draw.pk, card_number=member.card_number, channel="ehost"
            )


def close(draw: Draw) -> Draw:
    assert draws_close_due(now=draw.tickets_close_at) >= 1
    draw.refresh_from_db()
    assert draw.status == DrawStatus.CLOSED
    return draw


def awaiting(draw: Draw) -> DrawPick | None:
    return DrawPick.objects.filter(draw=draw, outcome="").first()


def run_to_the_end(draw: Draw, *, no_show_first: bool = True) -> Draw:
    """Mark the first pick a no-show, then every pick present until the draw completes."""
    first = True
    while (pick := awaiting(draw)) is not None:
        outcome = PickOutcome.NO_SHOW if first and no_show_first else PickOutcome.PRESENT
        # A no-show is recorded once the winner's 90 seconds from the pick have passed.
        now = pick.picked_at + dt.timedelta(seconds=90) if outcome == PickOutcome.NO_SHOW else None
        seen = "sa_id" if outcome == PickOutcome.PRESENT else ""
        pick_outcome_record(
            actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=outcome, id_type_seen=seen, now=now
        )
        first = False
    draw.refresh_from_db()
    return draw


def assert_verifies(draw: Draw) -> None:
    files = draw_record_files(draw)
    report = verify_record(files.json, files.entries)
    assert report.holds, report.text()
    assert draw.status == DrawStatus.DRAWN and draw.revealed_seed() == draw.seed_hex


def test_turn_up_the_heat_thursday_queen_electronic_runs_by_the_tick_and_verifies(seed):
    draw = seed(grc_turn_up_the_heat)("thu-queen-cash", 2025, 10, 16, 20, 0)
    queens = players(8, "QUEEN", "GRC", 300, sast(2025, 10, 10, 12, 0))
    activate_all(draw, queens, sast(2025, 10, 16, 19, 0))
    close(draw)
    with time_machine.travel(draw.scheduled_at, tick=False):
        assert draws_start_due() >= 1  # the beat tick at 20h00 (and the season's earlier draws, empty)
        assert Draw.objects.get(pk=draw.pk).started_by == "system:tick"
        draw = run_to_the_end(draw)
    winners = draw.picks.filter(outcome=PickOutcome.PRESENT)
    assert winners.count() == 5 and draw.picks.filter(outcome=PickOutcome.NO_SHOW).count() == 1
    assert_verifies(draw)


def test_daytime_playtime_manual_bin_takes_keyed_serials_redraws_a_winners_second_ticket_and_verifies(seed):
    draw = seed(emnotweni_daytime_playtime)("wed-1400-manual", 2025, 9, 10, 14, 0)
    senior = players(1, "JACK", "EMN", 100, sast(2025, 9, 5, 12, 0), date_of_birth=dt.date(1960, 1, 1))
    entrants = senior + players(4, "JACK", "EMN", 100, sast(2025, 9, 5, 12, 0))
    activate_all(draw, entrants, sast(2025, 9, 10, 12, 30))
    close(draw)
    tickets = {a.member_id: a for a in draw.activations.all()}
    assert tickets[senior[0].pk].tickets == 4  # active at Emnotweni (1) and aged 50 or more (3)
    with time_machine.travel(draw.scheduled_at + dt.timedelta(minutes=1), tick=False):
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="E. Witness")

        def key(serial: int) -> DrawPick:
            return draw_key_serial(actor=MANAGER, draw_id=draw.pk, serial=str(serial))

        first = key(tickets[senior[0].pk].first_serial)
        pick_outcome_record(
            actor=MANAGER, draw_id=draw.pk, pick_id=first.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
        )
        # The same winner's second ticket out of the bin: rule 12, redrawn at once.
        assert key(tickets[senior[0].pk].last_serial).outcome == PickOutcome.REDRAW_ALREADY_WINNER
        for member in entrants[1:3]:
            pick = key(tickets[member.pk].first_serial)
            pick_outcome_record(
                actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
            )
    draw.refresh_from_db()
    assert draw.picks.filter(outcome=PickOutcome.PRESENT).count() == 3 and draw.picks.count() == 4
    assert_verifies(draw)


def raps_csv(rows) -> str:
    return "card_number,device_type,device_id,spend\n" + "".join(f"{c},{t},{d},{s}\n" for c, t, d, s in rows)


def test_golden_horse_raps_session_draws_six_from_slots_and_four_from_tables(seed):
    draw = seed(golden_horse_prive_powerplay)("sat-bonus-jackpot-raps", 2026, 7, 4, 18, 0)
    tiers = list(draw.series.eligible_tiers.values_list("code", flat=True))
    slot_players = players(9, tiers[-1], "GH", 10, sast(2026, 7, 1, 12, 0))
    table_players = players(6, tiers[-1], "GH", 10, sast(2026, 7, 1, 12, 0))
    rows = [(m.card_number, "slot", f"S{i:02d}", "500.00") for i, m in enumerate(slot_players)]
    rows += [(m.card_number, "table", f"BJ{i}", "800") for i, m in enumerate(table_players)]
    rows.append((slot_players[0].card_number, "slot", "S99", "20.00"))  # below the minimum spend
    close(draw)
    with time_machine.travel(draw.scheduled_at + dt.timedelta(minutes=55), tick=False):
        raps = raps_list_upload(
            actor=MANAGER,
            draw_id=draw.pk,
            file_name="active.csv",
            text=raps_csv(rows),
            min_spend_cents=10_000,
            excluded_devices=["slot:S08"],
            slot_quota=6,
            table_quota=4,
        )
        assert raps.entries.filter(pool=RapsPool.SLOT).count() == 8  # S08 excluded, S99 under R 100.00
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="G. Witness")
        draw = run_to_the_end(draw)
    won = draw.picks.filter(outcome=PickOutcome.PRESENT)
    assert won.filter(pool=RapsPool.SLOT).count() == 6 and won.filter(pool=RapsPool.TABLE).count() == 4
    assert_verifies(draw)


def test_royal_flush_month_end_bins_let_a_member_win_once_per_bin(seed):
    find = seed(grc_royal_flush)
    two_pm, three_pm = find("month-end-bins", 2024, 9, 29, 14, 0), find("month-end-bins", 2024, 9, 29, 15, 0)
    entrants = players(4, "ACE", "GRC", 600, sast(2024, 9, 10, 12, 0))
    activate_all(two_pm, entrants, sast(2024, 9, 29, 9, 0))
    activate_all(three_pm, entrants, sast(2024, 9, 29, 9, 0))
    close(two_pm)
    close(three_pm)
    with time_machine.travel(two_pm.scheduled_at, tick=False):
        pin_seed(two_pm, lambda serials: serials[0] <= 2)  # the first entrant's two tickets
        assert draw_start(actor=MANAGER, draw_id=two_pm.pk)
        two_pm = run_to_the_end(two_pm, no_show_first=False)
    first_winner = two_pm.picks.filter(outcome=PickOutcome.PRESENT).order_by("seq").first().member
    assert first_winner == entrants[0]
    with time_machine.travel(three_pm.scheduled_at, tick=False):
        pin_seed(three_pm, lambda serials: serials[0] <= 2)  # drawn first again in the next bin
        assert draw_start(actor=MANAGER, draw_id=three_pm.pk)
        pick = awaiting(three_pm)
        assert pick.member == first_winner and pick.k == 1  # a winner again: rule 50, once per bin
        three_pm = run_to_the_end(three_pm, no_show_first=False)
    assert not three_pm.picks.filter(outcome=PickOutcome.REDRAW_WON_IN_SCOPE).exists()
    assert_verifies(two_pm)
    assert_verifies(three_pm)


def test_turn_up_the_heat_saturday_3pm_winner_drawn_again_at_7pm_is_redrawn(seed):
    find = seed(grc_turn_up_the_heat)
    three, seven = find("sat-cash-1500", 2025, 10, 4, 15, 0), find("sat-cash-1900", 2025, 10, 4, 19, 0)
    entrants = players(12, "JACK", "GRC", 500, sast(2025, 10, 1, 12, 0))  # 6 win at 3pm, 5 of 6 at 7pm
    activate_all(three, entrants, sast(2025, 10, 4, 9, 0))
    activate_all(seven, entrants, sast(2025, 10, 4, 9, 0))
    close(three)
    close(seven)
    with time_machine.travel(three.scheduled_at, tick=False):
        assert draws_start_due() >= 1
        three = run_to_the_end(three, no_show_first=False)
    winners_at_3 = set(three.picks.filter(outcome=PickOutcome.PRESENT).values_list("member_id", flat=True))
    winner_ranges = [(a.first_serial, a.last_serial) for a in seven.activations.filter(member_id__in=winners_at_3)]
    pin_seed(seven, lambda serials: any(lo <= serials[0] <= hi for lo, hi in winner_ranges))
    with time_machine.travel(seven.scheduled_at, tick=False):
        assert draws_start_due() >= 1
        picks = list(seven.picks.all())
        assert picks[0].outcome == PickOutcome.REDRAW_WON_IN_SCOPE and picks[0].member_id in winners_at_3
        assert "3pm" in picks[0].reason and "once per promotional day" in picks[0].reason
        seven = run_to_the_end(seven, no_show_first=False)
    assert not set(seven.picks.filter(outcome=PickOutcome.PRESENT).values_list("member_id", flat=True)) & winners_at_3
    assert_verifies(seven)
