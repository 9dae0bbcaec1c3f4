"""Two draws of one promotion running at the same moment (issue 13, item 11): a member picked in
both cannot win both within a "day" win-once scope. Real concurrent connections; the control
switches the lock off and shows the double win the lock prevents."""

import contextlib
import datetime as dt
import threading

import pytest
import time_machine

from core.errors import DomainError
from draws import engine
from draws.engine import draw_start, pick_outcome_record
from draws.models import DrawPick, PickOutcome
from draws.tests.builders import MANAGER, SAST, closed_draw
from draws.tests.test_engine_races import run_in_threads
from members.tests.factories import MemberFactory
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db(transaction=True)

DRAW_AT = dt.datetime(2025, 10, 15, 20, 0, tzinfo=SAST)


@pytest.fixture(autouse=True)
def at_the_draw():
    with time_machine.travel(DRAW_AT + dt.timedelta(seconds=5), tick=False):
        yield


def two_draws_picking_one_member():
    """Two series of one promotion, "once per promotional day", each with a draw at 20:00 whose
    only entrant is the same member: both draws started, both picks of him await the stage."""
    member = MemberFactory()
    picks = []
    for _ in range(2):
        series = make_series()
        series.win_once_scope = "day"
        series.winners_per_draw = 1
        series.save()
        draw, _ = closed_draw(series, DRAW_AT, [1], [member])
        assert draw_start(actor=MANAGER, draw_id=draw.pk)
        picks.append(DrawPick.objects.get(draw=draw))
    assert {p.draw.series.promotion_id for p in picks} == {picks[0].draw.series.promotion_id}
    assert all(p.member == member and p.awaits_outcome() for p in picks)
    return member, picks


def record_both_present_at_once(monkeypatch, picks):
    """Both conductors press Present at once; each waits (up to 3 s) inside its transaction,
    after its check and its write, for the other to get there too before committing."""
    both_checked = threading.Barrier(2)
    real_audit_log = engine.audit_log

    def audit_then_wait(**kwargs):
        event = real_audit_log(**kwargs)
        if kwargs["action"] == "draw.pick_outcome":
            with contextlib.suppress(threading.BrokenBarrierError):
                both_checked.wait(timeout=3)
        return event

    monkeypatch.setattr(engine, "audit_log", audit_then_wait)
    return run_in_threads(
        *[
            (
                lambda p=p: pick_outcome_record(
                    actor=MANAGER, draw_id=p.draw_id, pick_id=p.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
                )
            )
            for p in picks
        ]
    )


def test_two_draws_at_once_let_a_member_win_once_in_the_day(reference_data, monkeypatch):
    member, picks = two_draws_picking_one_member()
    results = record_both_present_at_once(monkeypatch, picks)
    refusals = [r for r in results if isinstance(r, DomainError)]
    assert sum(isinstance(r, DrawPick) for r in results) == 1 and len(refusals) == 1
    assert refusals[0].code == "won_in_scope"
    assert "has just won" in refusals[0].message and "once per promotional day" in refusals[0].message
    assert DrawPick.objects.filter(member=member, outcome=PickOutcome.PRESENT).count() == 1
    # The refused pick still awaits the stage, which records it Disqualified with the reason.
    refused = DrawPick.objects.get(member=member, outcome="")
    assert refused.draw_id in {p.draw_id for p in picks}


def test_control_without_the_lock_both_draws_let_him_win(reference_data, monkeypatch):
    member, picks = two_draws_picking_one_member()
    monkeypatch.setattr(engine, "_lock_win_scope", lambda draw: None)
    results = record_both_present_at_once(monkeypatch, picks)
    assert all(isinstance(r, DrawPick) for r in results), results
    assert DrawPick.objects.filter(member=member, outcome=PickOutcome.PRESENT).count() == 2


def test_the_lock_key_is_the_promotion_and_the_johannesburg_day(reference_data):
    _, picks = two_draws_picking_one_member()
    draw = picks[0].draw
    key = engine.win_scope_lock_key(draw)
    assert key == f"draws.win_scope.{draw.series.promotion_id}.2025-10-15"
    assert engine.win_scope_lock_key(picks[1].draw) == key
    draw.win_once = "draw"
    assert engine.win_scope_lock_key(draw) is None


def win_in_a_while_first_then_pick_in_the_other_draw(monkeypatch, member):
    """Draw A records the member's win (and takes its time committing) while draw B, of the same
    promotion and day, starts and picks him: B's pick outcome, as recorded."""
    series_a, series_b = make_series(), make_series()
    for series in (series_a, series_b):
        series.win_once_scope = "day"
        series.winners_per_draw = 1
        series.save()
    draw_a, _ = closed_draw(series_a, DRAW_AT, [1], [member])
    assert draw_start(actor=MANAGER, draw_id=draw_a.pk)
    pick_a = DrawPick.objects.get(draw=draw_a)
    draw_b, _ = closed_draw(series_b, DRAW_AT, [1], [member])

    a_inside, b_done = threading.Event(), threading.Event()
    real_audit_log = engine.audit_log

    def audit_then_wait(**kwargs):
        event = real_audit_log(**kwargs)
        if kwargs["action"] == "draw.pick_outcome":
            a_inside.set()
            b_done.wait(timeout=3)  # with the lock, B waits for this commit instead
        return event

    monkeypatch.setattr(engine, "audit_log", audit_then_wait)

    def start_b():
        assert a_inside.wait(timeout=10)
        try:
            return draw_start(actor=MANAGER, draw_id=draw_b.pk)
        finally:
            b_done.set()

    results = run_in_threads(
        lambda: pick_outcome_record(
            actor=MANAGER, draw_id=draw_a.pk, pick_id=pick_a.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
        ),
        start_b,
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    return DrawPick.objects.get(draw=draw_b, k=1)


def test_a_pick_made_while_another_draw_records_his_win_is_redrawn(reference_data, monkeypatch):
    member = MemberFactory()
    pick_b = win_in_a_while_first_then_pick_in_the_other_draw(monkeypatch, member)
    assert pick_b.member == member and pick_b.outcome == PickOutcome.REDRAW_WON_IN_SCOPE


def test_control_without_the_lock_the_pick_goes_to_the_stage(reference_data, monkeypatch):
    member = MemberFactory()
    monkeypatch.setattr(engine, "_lock_win_scope", lambda draw: None)
    pick_b = win_in_a_while_first_then_pick_in_the_other_draw(monkeypatch, member)
    assert pick_b.member == member and pick_b.awaits_outcome()
