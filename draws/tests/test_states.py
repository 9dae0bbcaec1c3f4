"""Draw.state(now): what a draw is at a moment and what may happen next (draws.states), at its
edges: the second before and after a ticket window opens and closes, before and after the draw
time, and each status. The test series' 13h00 draw takes tickets 08h00-10h00 and 11h00-12h55."""

import datetime as dt

import pytest

from draws.engine import draw_start
from draws.models import Draw, DrawStatus
from draws.services import draw_close_window
from draws.states import DrawPhase
from draws.tests.builders import MANAGER, add_entries, sast
from draws.tests.factories import make_draw
from promotions.models import DrawMethod
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

DRAW_AT = sast(2025, 10, 15, 13, 0)
S = dt.timedelta(seconds=1)
WINDOWS = [{"day": 0, "open": "08:00", "close": "10:00"}, {"day": 0, "open": "11:00", "close": "12:55"}]


@pytest.fixture
def draw(reference_data) -> Draw:
    return make_draw(make_series(windows=WINDOWS), DRAW_AT)


def phase(draw: Draw, at: dt.datetime) -> DrawPhase:
    return Draw.objects.get(pk=draw.pk).state(at).phase


def test_a_scheduled_draw_is_open_only_inside_its_windows_to_the_second(draw):
    first_opens, first_closes = sast(2025, 10, 15, 8, 0), sast(2025, 10, 15, 10, 0)
    second_opens, last_closes = sast(2025, 10, 15, 11, 0), draw.tickets_close_at
    assert last_closes == sast(2025, 10, 15, 12, 55)
    assert phase(draw, first_opens - S) == DrawPhase.BEFORE_WINDOW
    assert phase(draw, first_opens) == DrawPhase.OPEN
    assert phase(draw, first_closes - S) == DrawPhase.OPEN
    assert phase(draw, first_closes) == DrawPhase.BEFORE_WINDOW  # between the two windows
    assert phase(draw, second_opens - S) == DrawPhase.BEFORE_WINDOW
    assert phase(draw, second_opens) == DrawPhase.OPEN
    assert phase(draw, last_closes - S) == DrawPhase.OPEN
    assert phase(draw, last_closes) == DrawPhase.AWAITING_START  # the tick has not frozen it yet


def test_the_ticket_refusal_names_the_next_opening_or_the_last_closing(draw):
    assert draw.state(sast(2025, 10, 15, 9, 59, 59)).tickets_refusal is None
    between = draw.state(sast(2025, 10, 15, 10, 0)).tickets_refusal
    assert between == f"Tickets for {draw.name} can be activated from Wed 15 Oct 2025 11:00."
    after = draw.state(sast(2025, 10, 15, 12, 55)).tickets_refusal
    assert after == f"Ticket activation for {draw.name} closed at Wed 15 Oct 2025 12:55."


def test_the_accepting_tickets_query_agrees_with_the_state(draw):
    """The device API lists the draws the queryset finds: the state's OPEN, in SQL."""
    moments = [sast(2025, 10, 15, h, m) + d for h, m in ((8, 0), (10, 0), (11, 0), (12, 55)) for d in (-S, 0 * S)]
    for moment in moments:
        listed = Draw.objects.accepting_tickets_at(moment).filter(pk=draw.pk).exists()
        assert listed == (phase(draw, moment) == DrawPhase.OPEN), moment


def test_the_devices_sql_condition_agrees_with_the_accepting_tickets_query(draw, reference_data):
    """accepting_tickets_sql (the devices' hot statements) finds what accepting_tickets_at finds:
    at each window edge, for a draft promotion and for a cancelled draw."""
    from django.db import connection

    from draws.models import accepting_tickets_sql
    from draws.services import draw_cancel
    from promotions.models import Promotion, PromotionStatus

    moments = [sast(2025, 10, 15, h, m) + d for h, m in ((8, 0), (10, 0), (11, 0), (12, 55)) for d in (-S, 0 * S)]
    sql = f"SELECT EXISTS (SELECT 1 FROM draws_draw d WHERE d.id = %(draw)s AND {accepting_tickets_sql('d', '%(at)s')})"  # noqa: S608 (fixed SQL, values as parameters)

    def agree(expect_any: bool) -> None:
        seen = []
        for moment in moments:
            with connection.cursor() as cursor:
                cursor.execute(sql, {"draw": draw.pk, "at": moment})
                (found,) = cursor.fetchone()
            assert found == Draw.objects.accepting_tickets_at(moment).filter(pk=draw.pk).exists(), moment
            seen.append(found)
        assert any(seen) == expect_any

    agree(expect_any=True)
    promotion = Promotion.objects.get(series__draws=draw)
    Promotion.objects.filter(pk=promotion.pk).update(status=PromotionStatus.DRAFT)
    agree(expect_any=False)
    Promotion.objects.filter(pk=promotion.pk).update(status=PromotionStatus.PUBLISHED)
    draw_cancel(actor=MANAGER, draw_id=draw.pk, reason="test: cancelled")
    agree(expect_any=False)


def test_start_waits_for_the_entries_then_needs_a_reason_before_the_draw_time(draw):
    add_entries(draw, [3])
    draw.refresh_from_db()
    before_close = draw.state(draw.tickets_close_at - S)
    assert before_close.start_refusal.startswith("Entries are still open until Wed 15 Oct 2025 12:55")
    at_close = draw.state(draw.tickets_close_at)
    assert at_close.start_refusal is None and at_close.starts_early
    assert draw.state(DRAW_AT - S).starts_early
    on_time = draw.state(DRAW_AT)
    assert on_time.start_refusal is None and not on_time.starts_early
    assert at_close.next_action() == "Ready: the scheduler starts it at Wed 15 Oct 2025 13:00, or press Start."
    assert on_time.next_action() == "Ready: press Start on the draw page."


def test_each_status_says_what_may_happen_next(draw):
    add_entries(draw, [3, 2])
    draw.refresh_from_db()
    scheduled = draw.state(DRAW_AT - dt.timedelta(hours=3))
    assert scheduled.cancel_refusal is None and scheduled.move_refusal is not None  # tickets are out
    assert (scheduled.badge, scheduled.badge_style) == ("Scheduled", "text-bg-primary")
    assert not scheduled.entries_frozen and not scheduled.has_started and scheduled.stage_phase == "waiting"

    assert draw_start(actor=MANAGER, draw_id=draw.pk, now=DRAW_AT)
    draw = Draw.objects.get(pk=draw.pk)
    running = draw.state(DRAW_AT)
    assert running.phase == DrawPhase.RUNNING and running.has_started and running.may_record_outcome
    assert running.may_pick and running.key_serial_refusal == "Serials are keyed only for manual draws."
    assert running.cancel_refusal == "This draw has started: its picks are on record. End it with the reason instead."
    assert running.start_refusal.startswith("This draw was started by the system")
    assert running.end_short_refusal is None and running.witness_refusal is None and not running.starts_early
    assert (running.badge_style, running.stage_phase, running.seed_revealed) == ("text-bg-warning", "drawing", False)
    assert running.next_action(awaiting_k=1) == "Record the outcome of pick 1 on the draw page."

    Draw.objects.filter(pk=draw.pk).update(status=DrawStatus.DRAWN, completed_at=DRAW_AT)
    drawn = Draw.objects.get(pk=draw.pk).state(DRAW_AT)
    assert drawn.phase == DrawPhase.DRAWN and drawn.seed_revealed and drawn.may_verify
    assert drawn.cancel_refusal == "This draw is already drawn."
    assert drawn.end_short_refusal == "Only a running draw can be ended."
    assert (drawn.badge_style, drawn.stage_phase) == ("text-bg-success", "complete")


def test_a_cancelled_draw_refuses_everything_in_words(draw):
    Draw.objects.filter(pk=draw.pk).update(status=DrawStatus.CANCELLED)
    cancelled = Draw.objects.get(pk=draw.pk).state(sast(2025, 10, 15, 9, 0))  # inside a window
    assert cancelled.phase == DrawPhase.CANCELLED and cancelled.is_cancelled
    assert cancelled.tickets_refusal == f"{draw.name} is cancelled."
    assert cancelled.start_refusal == "This draw is cancelled."
    assert cancelled.cancel_refusal == "This draw is already cancelled."
    assert cancelled.move_refusal is not None and not cancelled.starts_early
    assert (cancelled.badge_style, cancelled.stage_phase) == ("text-bg-danger", "cancelled")


def test_a_closed_draw_awaits_start_and_a_manual_one_is_keyed(reference_data):
    series = make_series(windows=WINDOWS)
    series.method = DrawMethod.MANUAL
    series.save()
    draw = make_draw(series, DRAW_AT)
    add_entries(draw, [1])
    assert draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    closed = Draw.objects.get(pk=draw.pk).state(DRAW_AT)
    assert closed.phase == DrawPhase.AWAITING_START and closed.entries_frozen and closed.before_start
    assert closed.badge == "Entries frozen" and closed.badge_style == "text-bg-secondary"
    assert closed.key_serial_refusal == "Start the draw before keying serials."
    assert draw_start(actor=MANAGER, draw_id=draw.pk, now=DRAW_AT)
    running = Draw.objects.get(pk=draw.pk).state(DRAW_AT)
    assert running.key_serial_refusal is None and not running.may_pick
    assert running.next_action() == "Key the serial of the next ticket drawn from the bin."


def test_a_template_reads_one_state_per_status(draw):
    """Draw.state() without a moment is kept while the status stays the same."""
    assert draw.state() is draw.state()
    kept = draw.state()
    draw.status = DrawStatus.CANCELLED
    assert draw.state() is not kept and draw.is_cancelled()


def test_a_question_of_status_alone_reads_no_clock_and_one_of_time_reads_it_once(draw, monkeypatch):
    """Draw.state() without a time reads the clock only when a question needs it: whether the draw
    is complete, or its seed published, cannot depend on the hour (nor make its test a clock reader)."""
    reads = []
    monkeypatch.setattr("draws.states.timezone.now", lambda: reads.append(1) or DRAW_AT - dt.timedelta(hours=2))
    draw.status, draw.seed_hex = DrawStatus.DRAWN, "ab" * 32
    assert draw.is_complete() and draw.revealed_seed() == "ab" * 32 and not draw.is_cancelled()
    assert reads == []
    draw.status = DrawStatus.SCHEDULED  # a new status: a new state, whose phase needs the time
    assert draw.state().phase == DrawPhase.OPEN and draw.state().phase == DrawPhase.OPEN
    assert reads == [1]
