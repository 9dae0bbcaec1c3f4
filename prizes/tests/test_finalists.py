"""Turn Up the Heat's car finalists (issue 14, item 6; TH r69-r70, A20, PRIZES.md §5 example 21):
the Saturday cash draws' first N winners qualify for the next car draw (N required), and the
car day's 9pm finalist draw picks until the car draw has six distinct finalists."""

import datetime as dt

import pytest
import time_machine

from core.errors import DomainError
from core.models import AuditEvent
from draws.engine import draw_end_short, draw_start, pick_outcome_record
from draws.models import Draw, DrawPick, DrawStatus, PickOutcome
from draws.record import draw_record_files
from draws.services import draws_close_due
from draws.tests.builders import MANAGER, pin_seed, sast
from draws.verification import verify_record
from members.models import Member
from prizes.conduct import game_event_record, game_finish
from prizes.finalists import finalists_wanted, place_holders
from prizes.lines import LineKind, LineSource
from prizes.models import PrizeBoard, PrizeLine
from prizes.services import board_save
from prizes.tests.test_carry import activate, load, players, present, run_electronic

pytestmark = pytest.mark.django_db

EARNED = sast(2025, 10, 1, 12, 0)


@pytest.fixture
def find(seed):
    from draws.seeds import grc_turn_up_the_heat

    return load(seed, grc_turn_up_the_heat)


def set_qualifiers(series_code: str, count: int | None) -> PrizeBoard:
    board = PrizeBoard.objects.get(series__promotion__code="grc-turn-up-the-heat", series__code=series_code)
    return board_save(actor=MANAGER, board_id=board.pk, slots={}, settings={"car_draw_qualifiers": count})


def paddle_round(draw: Draw, winners: list[DrawPick]) -> list[PrizeLine]:
    """Each winner takes paddle 2, opens one reveal and stops; the game finished."""
    for n, pick in enumerate(winners, start=1):
        for event in ({"paddle": "2"}, {"reveal": str(n)}, {"stop": "1"}):
            game_event_record(actor=MANAGER, pick_id=pick.pk, event=event)
    return game_finish(actor=MANAGER, pick_id=winners[0].pk)


def run_and_end(draw: Draw) -> list[DrawPick]:
    """run_electronic, then ended short when the entrants ran out before its winners."""
    winners = run_electronic(draw)
    if Draw.objects.get(pk=draw.pk).status == DrawStatus.RUNNING:
        with time_machine.travel(draw.scheduled_at + dt.timedelta(minutes=5), tick=False):
            draw_end_short(actor=MANAGER, draw_id=draw.pk, reason="Fewer entrants than winners.")
    return winners


def car_of(find) -> Draw:
    return find("sat-car-final", 2025, 11, 29, 21, 15)


def qualify(find, members: list[Member], day: int = 22) -> None:
    """`members` win the 7pm cash draw of `day` November, each a qualifier for the 29 Nov car draw."""
    set_qualifiers("sat-cash-1900", len(members))
    draw = find("sat-cash-1900", 2025, 11, day, 19, 0)
    activate(draw, members, sast(2025, 11, day, 18, 0))
    paddle_round(draw, run_and_end(draw))


def finalist_places(draw: Draw, winners: list[DrawPick]) -> list[PrizeLine]:
    """Each winner's every-winner car draw place, as the board gives it (TH r69): the board is
    "by the order of the picks", so the conductor's Finish stores them."""
    game_finish(actor=MANAGER, pick_id=winners[0].pk)
    return list(PrizeLine.objects.filter(draw=draw).order_by("pick__seq", "pk"))


def car_day(find, hours: tuple[int, ...]) -> list[Member]:
    """The 3pm and/or 7pm finalist draws of 29 Nov run, 2 winners each, their places stored."""
    placed = []
    for hour in hours:
        draw = find("sat-car-finalists", 2025, 11, 29, hour, 0)
        activate(draw, players(2, "JACK", 1_000, EARNED), sast(2025, 11, 29, hour - 1, 0))
        winners = run_electronic(draw)
        finalist_places(draw, winners)
        placed += [w.member for w in winners]
    return placed


def nine_pm(find) -> Draw:
    return find("sat-car-finalists", 2025, 11, 29, 21, 0)


def frozen(draw: Draw) -> Draw:
    draws_close_due(now=draw.tickets_close_at)
    return Draw.objects.get(pk=draw.pk)


def assert_verifies(draw: Draw) -> None:
    files = draw_record_files(Draw.objects.get(pk=draw.pk))
    report = verify_record(files.json, files.entries)
    assert report.holds, report.text()


# --- Qualifiers from the Saturday cash draws (A20 "counts cfg") ---------------------------------


def test_a_cash_draw_waits_for_its_car_draw_qualifiers_then_zero_is_a_number(find):
    set_qualifiers("sat-cash-2100", None)
    draw = frozen(find("sat-cash-2100", 2025, 11, 22, 21, 0))
    refused = r"Prize board of Saturday 9pm Cash draw \(digit safe\): set car draw qualifiers per draw"
    with time_machine.travel(draw.scheduled_at, tick=False), pytest.raises(DomainError, match=refused):
        draw_start(actor=MANAGER, draw_id=draw.pk)
    board = set_qualifiers("sat-cash-2100", 0)
    assert board.settings["car_draw_qualifiers"] == 0
    assert draw.state(draw.scheduled_at).start_refusal is None
    # Blank again: the key stays on the board, so the setting is still asked for.
    assert "car_draw_qualifiers" in set_qualifiers("sat-cash-2100", None).settings


def test_the_first_n_winners_in_pick_order_qualify_and_a_second_place_is_r5000_example_21(find):
    """Example 21: a place from 8 Nov, qualifies again on 22 Nov, on the app: R5,000 + R500, one place."""
    patron = players(1, "JACK", 5_000, EARNED, app_registered_on=dt.date(2025, 1, 1))[0]
    set_qualifiers("sat-cash-1900", 2)
    first = find("sat-cash-1900", 2025, 11, 8, 19, 0)
    activate(first, [patron, *players(2, "JACK", 5_000, EARNED)], sast(2025, 11, 8, 18, 0))
    first = frozen(first)
    mine = first.activations.get(member=patron)
    pin_seed(first, lambda s: mine.first_serial <= s[0] <= mine.last_serial, picks=1)
    winners = run_and_end(first)
    assert winners[0].member == patron and len(winners) == 3
    paddle_round(first, winners)
    car = car_of(find)
    places = PrizeLine.objects.filter(draw=first, kind=LineKind.PLACE).order_by("pick__seq")
    assert [(p.pick_id, p.data["carried_into"]) for p in places] == [(w.pk, car.pk) for w in winners[:2]]

    set_qualifiers("sat-cash-1900", 1)
    second = find("sat-cash-1900", 2025, 11, 22, 19, 0)
    activate(second, [patron], sast(2025, 11, 22, 18, 0))
    (again,) = run_and_end(second)
    paddle_round(second, [again])
    lines = list(PrizeLine.objects.filter(draw=second))
    (conversion,) = [line for line in lines if line.source == LineSource.CONVERSION]
    assert (conversion.kind, conversion.amount_cents) == (LineKind.CASH, 500_000)  # r70, A20: that draw's prize
    assert "one place per patron" in conversion.words
    assert [(a.kind, a.amount_cents) for a in lines if a.source == LineSource.ADD_ON] == [(LineKind.CASH, 50_000)]
    assert not [line for line in lines if line.kind == LineKind.PLACE]
    assert place_holders(car) == {patron.pk, winners[1].member_id}  # one place each


# --- The 9pm draw fills the car draw to six distinct finalists (r69, A20) -------------------------


@pytest.mark.parametrize(("hours", "qualifiers", "wanted"), [((), 0, 6), ((15, 19), 0, 2), ((15, 19), 2, 0)])
def test_the_9pm_wants_six_less_the_places_held(find, hours, qualifiers, wanted):
    if qualifiers:
        qualify(find, players(qualifiers, "JACK", 5_000, EARNED))
    car_day(find, hours)
    draw = nine_pm(find)
    activate(draw, players(8, "JACK", 1_000, EARNED), sast(2025, 11, 29, 20, 0))
    draw = frozen(draw)
    assert finalists_wanted(draw) == wanted
    assert finalists_wanted(find("sat-car-finalists", 2025, 11, 29, 19, 0)) is None  # the 7pm: not the last
    refusal = draw.state(draw.scheduled_at).start_refusal
    with time_machine.travel(draw.scheduled_at, tick=False):
        if wanted:
            assert refusal is None
            assert draw_start(actor=MANAGER, draw_id=draw.pk)
            assert Draw.objects.get(pk=draw.pk).winners_wanted == wanted
        else:
            assert refusal.endswith(
                "already has its 6 finalists: this draw has no finalist left to pick. Cancel it, with that reason."
            )
            with pytest.raises(DomainError, match="already has its 6 finalists"):
                draw_start(actor=MANAGER, draw_id=draw.pk)


def run_nine_pm(find, holders: list[Member], newcomers: int) -> tuple[Draw, list[DrawPick]]:
    """The 9pm draw with the place holders drawn first (pinned), then newcomers, all present."""
    draw = nine_pm(find)
    activate(draw, [*holders, *players(newcomers, "JACK", 1_000, EARNED)], sast(2025, 11, 29, 20, 0))
    draw = frozen(draw)
    ranges = [(a.first_serial, a.last_serial) for a in draw.activations.filter(member__in=holders)]

    def holders_first(serials: list[int]) -> bool:
        owners = [next((i for i, (lo, hi) in enumerate(ranges) if lo <= s <= hi), None) for s in serials]
        return sorted(o for o in owners if o is not None) == list(range(len(ranges))) and None not in owners

    pin_seed(draw, holders_first, picks=len(holders))
    return draw, run_electronic(draw)


@pytest.mark.parametrize("converted", [1, 2])
def test_a_9pm_winner_already_holding_a_place_is_paid_r5000_and_the_draw_picks_one_more(find, converted):
    """Places before 9pm: 3pm's 2 (+ 7pm's 2 with one qualifier) and the 22 Nov qualifiers; each
    qualifier drawn at 9pm gets the conversion and the draw continues to 6 distinct finalists."""
    qualifiers = players(converted, "JACK", 5_000, EARNED)
    qualify(find, qualifiers)
    car_day(find, (15, 19) if converted == 1 else (15,))
    held = (4 if converted == 1 else 2) + converted
    draw, winners = run_nine_pm(find, qualifiers, newcomers=8)
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN and draw.ended_short_reason == ""
    assert draw.winners_wanted == len(winners) == 6 - held + converted
    assert {w.member_id for w in winners[:converted]} == {q.pk for q in qualifiers}  # drawn first, either order
    raised = AuditEvent.objects.filter(action="draw.winners_wanted_raised", object_id=str(draw.pk))
    assert [(e.data["from"], e.data["to"]) for e in raised.order_by("pk")] == [
        (6 - held + n, 6 - held + n + 1) for n in range(converted)
    ]
    assert_verifies(draw)  # the record's winners_wanted is the final count

    lines = finalist_places(draw, winners)
    assert [line.source for line in lines] == [LineSource.CONVERSION] * converted + [LineSource.BOARD] * (
        len(winners) - converted
    )
    assert all(line.amount_cents == 500_000 for line in lines[:converted])
    car = car_of(find)
    assert len(place_holders(car)) == 6
    with time_machine.travel(car.scheduled_at + dt.timedelta(minutes=1), tick=False):
        assert draw_start(actor=MANAGER, draw_id=car.pk, witness_name="F. Witness")
    car.refresh_from_db()
    assert car.tickets_total == 6 and car.activations.count() == 6
    assert set(car.activations.values_list("member_id", flat=True)) == place_holders(car)


def test_a_9pm_holder_recorded_as_a_no_show_raises_nothing(find):
    """Only a winner counts: a holder redrawn as a no-show leaves the count as it was."""
    (qualifier,) = players(1, "JACK", 5_000, EARNED)
    qualify(find, [qualifier])
    car_day(find, (15, 19))
    draw = nine_pm(find)
    activate(draw, [qualifier, *players(3, "JACK", 1_000, EARNED)], sast(2025, 11, 29, 20, 0))
    draw = frozen(draw)
    mine = draw.activations.get(member=qualifier)
    # The holder's ticket first, then another's: a no-show may be drawn again and win (DRAWS.md §3).
    held = range(mine.first_serial, mine.last_serial + 1)
    pin_seed(draw, lambda s: s[0] in held and s[1] not in held, picks=2)
    with time_machine.travel(draw.scheduled_at, tick=False):
        assert draw_start(actor=MANAGER, draw_id=draw.pk)
        first = DrawPick.objects.get(draw=draw, k=1)
    with time_machine.travel(draw.scheduled_at + dt.timedelta(minutes=3), tick=False):
        pick_outcome_record(actor=MANAGER, draw_id=draw.pk, pick_id=first.pk, outcome=PickOutcome.NO_SHOW)
        present(draw, DrawPick.objects.get(draw=draw, outcome=""))
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN and draw.winners_wanted == 1
    assert not AuditEvent.objects.filter(action="draw.winners_wanted_raised").exists()
