"""Once and whole (issue 8, item 5), on PostgreSQL with real concurrent connections: the tick
and two managers starting one draw give one run; a worker killed in the middle of a draw leaves
whole picks only, and the next call carries on from the last recorded k."""

import contextlib
import datetime as dt
import threading

import pytest
import time_machine
from django.db import connection

from conftest import make_user
from core.audit import audit_log
from core.models import AuditEvent
from core.roles import PROMOTIONS_MANAGER
from draws import engine
from draws.engine import draw_advance, draw_start, pick_outcome_record
from draws.models import Draw, DrawPick, DrawStatus, PickOutcome
from draws.selection import electronic_serial
from draws.tests.builders import MANAGER, SAST, closed_draw, pin_seed
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db(transaction=True)

DRAW_AT = dt.datetime(2025, 10, 15, 20, 0, tzinfo=SAST)


@pytest.fixture(autouse=True)
def at_the_draw():
    with time_machine.travel(DRAW_AT + dt.timedelta(seconds=5), tick=False):
        yield


def run_in_threads(*calls):
    """Run the calls at once, each on its own database connection; their results or errors."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except Exception as error:
            results[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return results


def test_the_tick_and_two_managers_starting_at_once_give_one_run(reference_data):
    draw, _ = closed_draw(make_series(), DRAW_AT, [5, 7, 9])
    managers = [engine.Actor.for_user(make_user(PROMOTIONS_MANAGER)) for _ in range(2)]
    results = run_in_threads(
        lambda: draw_start(actor=managers[0], draw_id=draw.pk),
        lambda: draw_start(actor=managers[1], draw_id=draw.pk),
        lambda: engine.draws_start_due(),
    )
    assert not [r for r in results if isinstance(r, Exception)]
    assert [bool(r) for r in results].count(True) == 1  # the tick's count or a manager's True
    assert DrawPick.objects.filter(draw=draw).count() == 1
    assert AuditEvent.objects.filter(action="draw.started").count() == 1
    assert Draw.objects.get(pk=draw.pk).status == DrawStatus.RUNNING


def test_two_managers_recording_the_same_outcome_at_once_record_it_once(reference_data):
    draw, _ = closed_draw(make_series(), DRAW_AT, [5] * 10)
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    pick = DrawPick.objects.get(draw=draw)
    after_window = pick.picked_at + dt.timedelta(seconds=90)
    results = run_in_threads(
        *[
            lambda: pick_outcome_record(
                actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.NO_SHOW, now=after_window
            )
            for _ in range(2)
        ]
    )
    assert sum(isinstance(r, DrawPick) for r in results) == 1
    assert DrawPick.objects.filter(draw=draw, outcome=PickOutcome.NO_SHOW).count() == 1
    assert DrawPick.objects.filter(draw=draw).count() == 2  # one redraw, not two


def test_a_worker_killed_in_the_middle_of_a_pick_leaves_no_half_pick_and_the_run_carries_on(
    reference_data, monkeypatch
):
    series = make_series()
    series.winners_per_draw = 2
    series.save()
    draw, (_, small) = closed_draw(series, DRAW_AT, [20, 1])
    pin_seed(draw, lambda serials: all(s <= 20 for s in serials), picks=4)  # picks 1-4: the big entrant
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    first = DrawPick.objects.get(draw=draw)

    in_pick_three, killed = threading.Event(), threading.Event()
    worker_pid = {}

    def audit_then_hang_in_pick_three(**kwargs):
        event = audit_log(**kwargs)
        if kwargs["action"] == "draw.picked" and kwargs["data"]["k"] == 3:
            worker_pid["pid"] = connection.connection.info.backend_pid
            in_pick_three.set()
            killed.wait(timeout=30)
            connection.cursor().execute("SELECT 1")  # the next statement finds its connection gone
        return event

    monkeypatch.setattr(engine, "audit_log", audit_then_hang_in_pick_three)
    failures = []

    def worker():
        try:
            pick_outcome_record(
                actor=MANAGER, draw_id=draw.pk, pick_id=first.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
            )
        except Exception as error:
            failures.append(error)
        finally:
            with contextlib.suppress(Exception):  # its connection was terminated
                connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    assert in_pick_three.wait(timeout=30)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [worker_pid["pid"]])
    killed.set()
    thread.join(timeout=30)
    assert not thread.is_alive() and failures  # the worker died mid-pick

    # Picks 1 (a winner) and 2 (an automatic redraw) are whole; pick 3 left nothing.
    assert list(DrawPick.objects.filter(draw=draw).values_list("k", "outcome")) == [
        (1, PickOutcome.PRESENT),
        (2, PickOutcome.REDRAW_ALREADY_WINNER),
    ]
    assert not AuditEvent.objects.filter(action="draw.picked", data__k=3).exists()

    monkeypatch.undo()
    waiting = draw_advance(actor=MANAGER, draw_id=draw.pk)  # the tick's (or a manager's) next call
    picks = list(DrawPick.objects.filter(draw=draw))
    assert [p.k for p in picks] == list(range(1, len(picks) + 1)) and picks[2].k == 3
    seed = bytes.fromhex(Draw.objects.get(pk=draw.pk).seed_hex)
    assert all(
        p.serial == electronic_serial(seed=seed, entries_sha256=draw.entries_sha256, k=p.k, tickets_total=21)
        for p in picks
    )
    assert waiting == picks[-1] and waiting.member == small
