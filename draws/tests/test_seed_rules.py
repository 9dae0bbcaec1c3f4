"""Each seed promotion's earning rules, against the loaded seed definitions: members and points
are made, then the allocation breakdown and the activation inside the ticket window are checked."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from core.errors import DomainError
from draws.allocation import member_allocation
from draws.models import Activation, Channel, Draw
from draws.seeds import (
    emnotweni_daytime_playtime,
    golden_horse_prive_powerplay,
    grc_fast_lane_to_fortune,
    grc_royal_flush,
    grc_turn_up_the_heat,
)
from draws.services import activation_create
from draws.tests.builders import sast
from members.models import Property, Tier
from members.tests.factories import MemberFactory, PointsEntryFactory

pytestmark = pytest.mark.django_db


def member(tier: str, home: str = "GRC", **kwargs):
    return MemberFactory(tier=Tier.objects.get(code=tier), home_property=Property.objects.get(code=home), **kwargs)


def points(who, amount: int, at: dt.datetime, prop: str = "GRC"):
    return PointsEntryFactory(member=who, points=amount, earned_at=at, property=Property.objects.get(code=prop))


def breakdown(draw: Draw, who, at: dt.datetime | None = None) -> dict:
    standing = member_allocation(draw, who, at=at or draw.scheduled_at - dt.timedelta(hours=1))
    assert not standing.refusals, standing.refusals
    return standing.allocation.as_dict()


def activate(draw: Draw, who, channel: str = Channel.EHOST) -> Activation:
    return activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number=who.card_number, channel=channel)


# --- Turn Up the Heat --------------------------------------------------------------------------


def test_turn_up_the_heat_thursday_queen_10_free_plus_1_per_100_points_month_to_date(seed):
    draw = seed(grc_turn_up_the_heat)
    october = draw("thu-queen-cash", 2025, 10, 16, 20, 0)
    queen = member("QUEEN")
    points(queen, 400, sast(2025, 9, 30, 21, 0))  # September: does not roll over
    points(queen, 500, sast(2025, 10, 1, 7, 59, 59))  # before 08h00 on the 1st
    points(queen, 250, sast(2025, 10, 1, 8, 0))
    points(queen, 300, sast(2025, 10, 10, 12, 0))
    points(queen, 80, sast(2025, 10, 16, 18, 59))
    points(queen, 700, sast(2025, 10, 16, 20, 0))  # at the draw's start
    points(queen, 900, sast(2025, 10, 12, 12, 0), prop="GH")  # another property

    assert breakdown(october, queen) == {
        "points": 630,
        "earned": 6,
        "free": 10,
        "bonus": 0,
        "capped": 0,
        "tickets": 16,
    }
    with time_machine.travel(sast(2025, 10, 16, 19, 0), tick=False):
        activation = activate(october, queen)
    assert (activation.tickets, activation.first_serial, activation.last_serial) == (16, 1, 16)

    # November starts again from 08h00 on 1 November: October's points do not roll over.
    november = draw("thu-queen-cash", 2025, 11, 6, 20, 0)
    assert breakdown(november, queen)["tickets"] == 10
    points(queen, 150, sast(2025, 11, 2, 10, 0))
    assert breakdown(november, queen) == {
        "points": 150,
        "earned": 1,
        "free": 10,
        "bonus": 0,
        "capped": 0,
        "tickets": 11,
    }


def test_turn_up_the_heat_moved_queen_draw_sells_on_sunday_morning(seed):
    moved = seed(grc_turn_up_the_heat)("thu-queen-cash", 2025, 10, 26, 13, 0)
    queen = member("QUEEN")
    points(queen, 420, sast(2025, 10, 20, 11, 0))
    with time_machine.travel(sast(2025, 10, 23, 19, 0), tick=False), pytest.raises(DomainError) as refused:
        activate(moved, queen)  # the old Thursday evening
    assert refused.value.code == "window_closed"
    assert "Sun 26 Oct 2025 08:00" in refused.value.message
    with time_machine.travel(sast(2025, 10, 26, 12, 54, 59), tick=False):
        assert activate(moved, queen).tickets == 14


def test_a_ten_member_gets_nothing_from_the_queen_draw_with_the_reason(seed):
    draw = seed(grc_turn_up_the_heat)("thu-queen-cash", 2025, 10, 16, 20, 0)
    ten = member("TEN")
    points(ten, 5000, sast(2025, 10, 10, 12, 0))
    standing = member_allocation(draw, ten, at=sast(2025, 10, 16, 10, 0))
    assert standing.tickets == 0
    assert standing.refusals == ["This draw is for Queen members; this member is Ten."]
    with time_machine.travel(sast(2025, 10, 16, 10, 0), tick=False), pytest.raises(DomainError) as refused:
        activate(draw, ten)
    assert refused.value.code == "not_eligible"
    assert "this member is Ten" in refused.value.message


@pytest.mark.parametrize(
    ("moment", "accepted"),
    [((7, 59, 59), False), ((8, 0, 0), True), ((12, 54, 59), True), ((12, 55, 0), False)],
)
def test_turn_up_the_heat_wednesday_1300_window_edges(seed, moment, accepted):
    draw = seed(grc_turn_up_the_heat)("wed-1300-cash", 2025, 10, 15, 13, 0)
    jack = member("JACK")
    points(jack, 550, sast(2025, 10, 13, 15, 0))
    with time_machine.travel(sast(2025, 10, 15, *moment), tick=False):
        if accepted:
            assert activate(draw, jack).tickets == 5
        else:
            with pytest.raises(DomainError) as refused:
                activate(draw, jack)
            assert refused.value.code == "window_closed"
            assert not Activation.objects.exists()


def test_turn_up_the_heat_car_draws_count_points_from_27_september_plus_complimentary(seed):
    draw = seed(grc_turn_up_the_heat)
    ace = member("ACE")
    points(ace, 999, sast(2025, 9, 27, 7, 0))  # before 08h00 on 27 September
    points(ace, 1250, sast(2025, 9, 28, 12, 0))
    points(ace, 800, sast(2025, 11, 2, 12, 0))
    assert breakdown(draw("sat-car-finalists", 2025, 10, 25, 15, 0), ace) == {
        "points": 1250,
        "earned": 12,
        "free": 50,
        "bonus": 0,
        "capped": 0,
        "tickets": 62,
    }
    # The car draws count from 27 September to each draw: November includes October's points.
    assert breakdown(draw("sat-car-finalists", 2025, 11, 29, 21, 0), ace)["tickets"] == 20 + 50


# --- Royal Flush ---------------------------------------------------------------------------------


def test_royal_flush_saturday_2130_cash_draw_300_points_per_entry(seed):
    draw = seed(grc_royal_flush)("sat-cash-2130", 2024, 10, 19, 21, 30)
    king = member("KING")
    points(king, 1000, sast(2024, 10, 15, 14, 0))
    points(king, 2000, sast(2024, 10, 9, 14, 0))  # more than 7 days before
    assert breakdown(draw, king) == {"points": 1000, "earned": 3, "free": 0, "bonus": 0, "capped": 0, "tickets": 3}
    with time_machine.travel(sast(2024, 10, 19, 21, 24, 59), tick=False):
        assert activate(draw, king).tickets == 3
    other = member("TEN")
    points(other, 600, sast(2024, 10, 18, 14, 0))
    with time_machine.travel(sast(2024, 10, 19, 21, 25), tick=False), pytest.raises(DomainError) as refused:
        activate(draw, other)
    assert refused.value.code == "window_closed"


def test_royal_flush_raps_session_refuses_activation(seed):
    session = seed(grc_royal_flush)("sat-bonus-jackpot-raps", 2024, 10, 19, 18, 0)
    assert session.method == "raps"
    player = member("ACE")
    points(player, 5000, sast(2024, 10, 19, 12, 0))
    with time_machine.travel(sast(2024, 10, 19, 17, 0), tick=False), pytest.raises(DomainError) as refused:
        activate(session, player)
    assert refused.value.code == "raps_session"
    assert "RAPS" in refused.value.message


def test_royal_flush_month_end_bins_count_the_month_only(seed):
    draw = seed(grc_royal_flush)
    queen = member("QUEEN")
    points(queen, 3000, sast(2024, 9, 20, 12, 0))  # September
    points(queen, 1500, sast(2024, 10, 1, 9, 0))
    for hour in (14, 18):
        assert breakdown(draw("month-end-bins", 2024, 10, 27, hour, 0), queen)["tickets"] == 5


# --- Fast Lane to Fortune ---------------------------------------------------------------------


def test_fast_lane_wednesday_equal_opportunity_200_each_whatever_the_points(seed):
    draw = seed(grc_fast_lane_to_fortune)("wed-1300-equal", 2026, 7, 15, 13, 0)
    idle = member("TEN")
    busy = member("ACE")
    points(busy, 50_000, sast(2026, 7, 14, 12, 0))
    visitor = member("JACK", home="GH")
    points(visitor, 100, sast(2026, 7, 12, 12, 0))
    stranger = member("JACK", home="GH")
    for who in (idle, busy, visitor):
        assert breakdown(draw, who)["tickets"] == 200
    assert member_allocation(draw, stranger, at=sast(2026, 7, 15, 10, 0)).refusals == [
        "Not a Gold Reef City member and no points earned there in the earning period."
    ]
    with time_machine.travel(sast(2026, 7, 15, 10, 0), tick=False):
        assert activate(draw, busy).tickets == 200
        assert activate(draw, idle).first_serial == 201


def test_fast_lane_thursday_jack_3_free_plus_100_points_per_ticket_capped_at_20(seed):
    draw = seed(grc_fast_lane_to_fortune)
    jack_draw = draw("thu-jack-1900", 2026, 8, 13, 19, 0)
    big = member("JACK")
    points(big, 9000, sast(2026, 7, 31, 12, 0))  # July: does not count in August
    points(big, 5000, sast(2026, 8, 3, 12, 0))
    small = member("JACK")
    points(small, 1000, sast(2026, 8, 12, 12, 0))
    assert breakdown(jack_draw, big) == {
        "points": 5000,
        "earned": 50,
        "free": 3,
        "bonus": 0,
        "capped": 33,
        "tickets": 20,
    }
    assert breakdown(jack_draw, small)["tickets"] == 13
    queen = member("QUEEN")
    points(queen, 5000, sast(2026, 8, 3, 12, 0))
    assert breakdown(draw("thu-queen-2000", 2026, 8, 13, 20, 0), queen)["tickets"] == 30
    with time_machine.travel(sast(2026, 8, 13, 18, 44, 59), tick=False):
        assert activate(jack_draw, big).tickets == 20
    with time_machine.travel(sast(2026, 8, 13, 18, 45), tick=False), pytest.raises(DomainError) as refused:
        activate(jack_draw, small)
    assert refused.value.code == "window_closed"


@pytest.mark.parametrize(
    ("moment", "tickets"),
    [
        ((2026, 7, 17, 20, 59, 59), None),
        ((2026, 7, 17, 21, 0, 0), 50),  # Friday: Ace 50
        ((2026, 7, 17, 23, 59, 59), 50),
        ((2026, 7, 18, 0, 0, 0), None),
        ((2026, 7, 18, 8, 0, 0), 30),  # Saturday: Ace 30
        ((2026, 7, 18, 20, 44, 59), 30),
        ((2026, 7, 18, 20, 45, 0), None),
    ],
)
def test_fast_lane_saturday_cash_free_tickets_by_printing_day(seed, moment, tickets):
    draw = seed(grc_fast_lane_to_fortune)("sat-cash-2100", 2026, 7, 18, 21, 0)
    ace = member("ACE")
    with time_machine.travel(sast(*moment), tick=False):
        if tickets is None:
            with pytest.raises(DomainError) as refused:
                activate(draw, ace)
            assert refused.value.code == "window_closed"
        else:
            activation = activate(draw, ace, channel=Channel.DESK)  # rule 75: the VIP desk prints for Aces
            assert activation.tickets == tickets
            assert activation.breakdown["free"] == tickets


# --- Golden Horse Prive Powerplay --------------------------------------------------------------


def test_golden_horse_car_draw_capped_at_4000_tickets(seed):
    draw = seed(golden_horse_prive_powerplay)("car-draw", 2026, 9, 12, 20, 0)
    whale = member("ACE", home="GH")
    points(whale, 15_000_000, sast(2026, 8, 1, 12, 0), prop="GH")
    points(whale, 900_000, sast(2026, 7, 1, 23, 0), prop="GH")  # before 2 July
    points(whale, 900_000, sast(2026, 9, 12, 10, 0), prop="GH")  # after Friday 11 September
    assert breakdown(draw, whale) == {
        "points": 15_000_000,
        "earned": 5000,
        "free": 0,
        "bonus": 0,
        "capped": 1000,
        "tickets": 4000,
    }
    regular = member("TEN", home="GH")
    points(regular, 31_000, sast(2026, 9, 11, 23, 59), prop="GH")
    assert breakdown(draw, regular)["tickets"] == 10
    with time_machine.travel(sast(2026, 9, 12, 19, 54, 59), tick=False):
        assert activate(draw, whale).tickets == 4000


def test_golden_horse_thursday_evening_visit_bonus_and_tier_rate(seed):
    draw = seed(golden_horse_prive_powerplay)("thu-2000-queen", 2026, 7, 16, 20, 0)
    queen = member("QUEEN", home="GH", app_registered_on=dt.date(2026, 6, 1))
    for day in (10, 12, 14):
        points(queen, 100, sast(2026, 7, day, 12, 0), prop="GH")
    points(queen, 50, sast(2026, 7, 14, 18, 0), prop="GH")  # same visit as the 14th
    # 350 points / 100 = 3, plus 3 visits x (1 + 1 for the app).
    assert breakdown(draw, queen) == {"points": 350, "earned": 3, "free": 0, "bonus": 6, "capped": 0, "tickets": 9}


def test_golden_horse_halfway_mark_bins_have_their_own_rate(seed):
    draw = seed(golden_horse_prive_powerplay)
    king = member("KING", home="GH")
    points(king, 1000, sast(2026, 7, 20, 12, 0), prop="GH")
    assert breakdown(draw("halfway-mark", 2026, 8, 1, 20, 0), king)["tickets"] == 4
    assert breakdown(draw("halfway-mark", 2026, 8, 1, 21, 0), king)["tickets"] == 2


# --- Emnotweni DayTime PlayTime ----------------------------------------------------------------


def test_emnotweni_free_entries_active_age_and_app(seed):
    draw = seed(emnotweni_daytime_playtime)("wed-1400-manual", 2025, 9, 10, 14, 0)

    def emn(born=dt.date(1985, 3, 3), app=None, active=True):
        who = member("JACK", home="EMN", date_of_birth=born, app_registered_on=app)
        if active:
            points(who, 40, sast(2025, 9, 5, 15, 0), prop="EMN")
        return who

    assert breakdown(draw, emn())["tickets"] == 1
    assert breakdown(draw, emn(born=dt.date(1975, 9, 10)))["tickets"] == 1 + 3  # 50 on the draw day
    assert breakdown(draw, emn(born=dt.date(1975, 9, 11)))["tickets"] == 1  # 50 the day after
    everything = emn(born=dt.date(1960, 1, 1), app=dt.date(2025, 8, 1))
    assert breakdown(draw, everything) == {"points": 40, "earned": 0, "free": 0, "bonus": 9, "capped": 0, "tickets": 9}
    assert breakdown(draw, emn(app=dt.date(2025, 9, 11)))["tickets"] == 1  # registered after the draw day
    august_only = member("JACK", home="EMN")
    points(august_only, 500, sast(2025, 8, 30, 12, 0), prop="EMN")  # before the promotional period
    assert breakdown(draw, august_only)["tickets"] == 0

    # Entries print from two hours before the draw until it starts (rules 4 and 13).
    with time_machine.travel(sast(2025, 9, 10, 11, 59, 59), tick=False), pytest.raises(DomainError) as refused:
        activate(draw, everything)
    assert refused.value.code == "window_closed"
    with time_machine.travel(sast(2025, 9, 10, 13, 59, 59), tick=False):
        assert activate(draw, everything).tickets == 9
    with time_machine.travel(sast(2025, 9, 10, 13, 0), tick=False), pytest.raises(DomainError) as refused:
        activate(draw, august_only)
    assert refused.value.code == "no_tickets"
