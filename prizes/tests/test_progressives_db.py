"""A progressive's entries in PostgreSQL: two draws closing at once grow it twice, not once (the
row lock; the control without it loses a growth), and the application's role can neither edit
nor delete an entry, nor insert one that makes the balance jump (prizes migration 0002)."""

import contextlib
import datetime as dt
import threading

import pytest
import time_machine
from django.db import DatabaseError

from core.tests.test_audit_role import as_app_role
from draws.tests.test_engine_races import run_in_threads
from prizes import progressives
from prizes.models import ProgressiveEntry
from prizes.progressives import progressive_grow, progressive_value
from prizes.tests.test_progressives import FIRST, MANAGER, R, closed, nine_pm, safe  # noqa: F401  (fixtures)


@pytest.fixture
def _clock():
    with time_machine.travel(FIRST - dt.timedelta(days=1), tick=False) as traveller:
        yield traveller


def grow_both_at_once(monkeypatch, draws):
    """Each grow waits (up to 3 s), after writing its entry and before committing, for the other."""
    both_written = threading.Barrier(2)
    real_audit_log = progressives.audit_log

    def audit_then_wait(**kwargs):
        event = real_audit_log(**kwargs)
        with contextlib.suppress(threading.BrokenBarrierError):
            both_written.wait(timeout=3)
        return event

    monkeypatch.setattr(progressives, "audit_log", audit_then_wait)
    return run_in_threads(*[(lambda d=d: progressive_grow(actor=MANAGER, draw_id=d.pk)) for d in draws])


@pytest.mark.django_db(transaction=True)
def test_two_draws_closing_at_once_each_grow_the_safe(reference_data, safe, nine_pm, _clock, monkeypatch):  # noqa: F811
    draws = [closed(nine_pm, week, _clock) for week in range(2)]
    results = grow_both_at_once(monkeypatch, draws)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert progressive_value(safe) == 140_000 * R
    assert sorted(safe.entries.values_list("balance_cents", flat=True)) == [120_000 * R, 140_000 * R]


@pytest.mark.django_db(transaction=True)
def test_control_without_the_lock_one_growth_is_lost(reference_data, safe, nine_pm, _clock, monkeypatch):  # noqa: F811
    draws = [closed(nine_pm, week, _clock) for week in range(2)]
    monkeypatch.setattr(progressives, "_lock", lambda pk: progressives.Progressive.objects.get(pk=pk))
    grow_both_at_once(monkeypatch, draws)
    assert list(safe.entries.values_list("balance_cents", flat=True)) == [120_000 * R, 120_000 * R]


@pytest.fixture
def grown(reference_data, safe, nine_pm, _clock):  # noqa: F811
    progressive_grow(actor=MANAGER, draw_id=closed(nine_pm, 0, _clock).pk)
    return safe.entries.get()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "attempt",
    [
        "UPDATE prizes_progressiveentry SET balance_cents = 1",
        "UPDATE prizes_progressiveentry SET words = 'typed by hand'",
        "DELETE FROM prizes_progressiveentry",
        "TRUNCATE prizes_progressiveentry",
        "ALTER TABLE prizes_progressiveentry DISABLE TRIGGER prizes_progressiveentry_guard",
        # A jump: the last balance is R120,000, so +R1 cannot leave R999,999.
        "INSERT INTO prizes_progressiveentry (progressive_id, draw_id, kind, change_cents, balance_cents, words, data,"
        " created_at, created_by) SELECT progressive_id, draw_id, 'grow', 100, 99999900, 'x', '{}', now(), 'x'"
        " FROM prizes_progressiveentry",
    ],
)
def test_the_app_role_cannot_rewrite_a_progressive(grown, attempt):
    refused = r"never changed|refused|permission denied|must be owner"
    with pytest.raises(DatabaseError, match=refused), as_app_role() as cursor:
        cursor.execute(attempt)
    assert ProgressiveEntry.objects.get().balance_cents == 120_000 * R


@pytest.mark.django_db
def test_control_the_app_role_appends_an_entry_that_follows_the_balance(grown):
    with as_app_role() as cursor:
        cursor.execute(
            "INSERT INTO prizes_progressiveentry (progressive_id, draw_id, kind, change_cents, balance_cents, words,"
            " data, created_at, created_by) SELECT progressive_id, draw_id, 'reset', -2000000, 10000000, 'x', '{}',"
            " now(), 'x' FROM prizes_progressiveentry"
        )
    assert ProgressiveEntry.objects.count() == 2
