"""Verify's report is computed once per complete draw (issue 12, "Smaller": a 300,000-activation
draw was recomputed on every press, 3.9 s; 8 presses at once about 21 s each). A running draw is
verified afresh on every press; presses at once on a complete draw compute it once."""

import datetime as dt
import threading
import time
import uuid

import pytest
import time_machine
from django.core.cache import cache
from django.db import connection
from django.test import override_settings
from django.urls import reverse

from core.roles import AUDITOR
from draws import record_views, verify_cache
from draws.engine import draw_start, pick_outcome_record
from draws.models import Draw, DrawStatus, PickOutcome
from draws.tests.builders import MANAGER, SAST, closed_draw
from draws.verify_cache import cached_verify, record_fingerprint
from promotions.tests.factories import make_series

DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)


@pytest.fixture(autouse=True)
def after_the_draw_time():
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):
        yield


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()  # the tests' cache is this process's memory (no REDIS_URL in test settings)
    yield
    cache.clear()


def running_draw() -> Draw:
    series = make_series()
    series.winners_per_draw = 1
    series.save()
    draw, _ = closed_draw(series, DRAW_AT, [3, 40, 7])
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    return Draw.objects.get(pk=draw.pk)


def complete_draw() -> Draw:
    draw = running_draw()
    pick = draw.picks.get(outcome="")
    pick_outcome_record(
        actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id", reason=""
    )
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN
    return draw


class Counted:
    """A compute() that counts its calls and returns a new report each time."""

    def __init__(self, seconds: float = 0):
        self.calls = 0
        self.seconds = seconds
        self._lock = threading.Lock()

    def __call__(self):
        with self._lock:
            self.calls += 1
            number = self.calls
        time.sleep(self.seconds)
        return {"report": number}


@pytest.mark.django_db
def test_a_complete_draw_is_verified_once(reference_data):
    draw = complete_draw()
    compute = Counted()
    assert cached_verify(draw, compute) == {"report": 1}
    assert cached_verify(draw, compute) == {"report": 1}
    assert compute.calls == 1


@pytest.mark.django_db
def test_a_running_draw_is_verified_afresh_each_press(reference_data):
    draw = running_draw()
    compute = Counted()
    assert record_fingerprint(draw.pk) is None
    assert [cached_verify(draw, compute) for _ in range(3)] == [{"report": 1}, {"report": 2}, {"report": 3}]


@pytest.mark.django_db
def test_a_record_that_differs_does_not_find_the_kept_report(reference_data, monkeypatch):
    draw = complete_draw()
    compute = Counted()
    cached_verify(draw, compute)
    monkeypatch.setattr(verify_cache, "record_fingerprint", lambda draw_id: "another-record")
    assert cached_verify(draw, compute) == {"report": 2}
    assert cached_verify(draw, compute, version=verify_cache.VERSION + "+1") == {"report": 3}, (
        "new checks: a new report"
    )


@pytest.mark.django_db
def test_the_fingerprint_is_of_the_record_as_stored(reference_data):
    first, second = complete_draw(), complete_draw()
    assert record_fingerprint(first.pk) == record_fingerprint(first.pk)
    assert record_fingerprint(first.pk) != record_fingerprint(second.pk)


@pytest.mark.django_db
def test_the_verify_page_computes_a_complete_draws_report_once(reference_data, client_for, monkeypatch):
    draw = complete_draw()
    calls = []

    def verify(draw):
        calls.append(1)
        return real_verify(draw)

    real_verify = record_views.draw_verify
    monkeypatch.setattr(record_views, "draw_verify", verify)
    auditor = client_for(AUDITOR)
    url = reverse("draws:record_verify", args=[draw.pk])
    pages = [auditor.post(url), auditor.get(url)]
    assert [page.status_code for page in pages] == [200, 200]
    assert all("Every check holds" in page.content.decode() for page in pages)
    assert f"draw-{draw.pk}.json" in pages[1].content.decode()
    assert len(calls) == 1


@pytest.mark.django_db
def test_the_verify_page_of_a_running_draw_computes_each_press(reference_data, client_for, monkeypatch):
    draw = running_draw()
    calls = []
    real_verify = record_views.draw_verify
    monkeypatch.setattr(record_views, "draw_verify", lambda draw: calls.append(1) or real_verify(draw))
    auditor = client_for(AUDITOR)
    url = reverse("draws:record_verify", args=[draw.pk])
    assert [auditor.get(url).status_code for _ in range(2)] == [200, 200]
    assert len(calls) == 2


def presses_at_once(count: int, call) -> list:
    """`count` presses at the same moment, each on its own database connection."""
    barrier = threading.Barrier(count)
    results: list = [None] * count

    def run(i):
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except Exception as error:
            results[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return results


REDIS = {
    "BACKEND": "django.core.cache.backends.redis.RedisCache",
    "LOCATION": "redis://127.0.0.1:6379/13",
    "KEY_PREFIX": f"test-verify-{uuid.uuid4().hex}",  # the Redis server is shared: no clear()
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_eight_presses_at_once_compute_the_report_once(reference_data, backend, monkeypatch):
    draw = complete_draw()
    compute = Counted(seconds=0.5)
    monkeypatch.setattr(verify_cache, "KEEP_SECONDS", 60)
    settings = {"CACHES": {"default": REDIS}} if backend == "redis" else {}
    with override_settings(**settings):
        results = presses_at_once(8, lambda: cached_verify(draw, compute))
    assert results == [{"report": 1}] * 8
    assert compute.calls == 1


@pytest.mark.django_db(transaction=True)
def test_a_press_whose_computation_fails_lets_the_next_compute(reference_data):
    draw = complete_draw()

    def broken():
        raise RuntimeError("the worker ran out of memory")

    with pytest.raises(RuntimeError):
        cached_verify(draw, broken)
    assert cached_verify(draw, Counted()) == {"report": 1}, "the lock went with the failed press"
