"""Issue 12, "Smaller": 200 presses of "Count again" queued 200 recounts and starved the tick for
two minutes. A request while a count waits for the worker queues nothing more, and the tick keeps
at most STANDING_QUEUED_MAX counts waiting."""

import datetime as dt
import html

import pytest
import time_machine
from django.urls import reverse

from draws import services
from draws.models import DrawStanding
from draws.services import (
    STANDING_QUEUED_MAX,
    STANDING_REQUEUE_AFTER,
    draw_standing_refresh,
    draw_standing_request,
    draw_standings_refresh_due,
)
from draws.tests.factories import make_draw
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
NOW = dt.datetime(2025, 10, 15, 9, 0, tzinfo=SAST)


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(points_per_ticket=100), DRAW_AT)


@pytest.fixture
def enqueued(monkeypatch):
    """The draw ids handed to the worker, in order (core.queueing.enqueue, captured)."""
    sent: list[int] = []
    monkeypatch.setattr("draws.services.enqueue", lambda task, draw_id: sent.append(draw_id))
    return sent


@time_machine.travel(NOW, tick=False)
def test_two_hundred_presses_of_count_again_queue_one_count(manager, draw, enqueued):
    url = reverse("draws:standing_refresh", args=[draw.pk])
    # The first and the last press are followed to the page that says what happened; rendering
    # the 198 pages between them would test nothing more.
    responses = [manager.post(url, follow=n in (0, 199)) for n in range(200)]
    assert all(r.status_code == 302 for r in responses[1:-1])
    assert enqueued == [draw.pk]
    assert DrawStanding.objects.get(draw=draw).requested_at == NOW
    assert "being counted again" in html.unescape(responses[0].content.decode())
    assert "A count is already on its way" in html.unescape(responses[-1].content.decode())


def test_a_request_once_the_count_started_queues_the_next(draw, enqueued):
    # Taken off the queue when it starts: a rule fixed meanwhile is counted by the next one.
    assert draw_standing_request(draw_id=draw.pk, now=NOW)
    assert not draw_standing_request(draw_id=draw.pk, now=NOW + dt.timedelta(seconds=1))
    draw_standing_refresh(draw_id=draw.pk, now=NOW + dt.timedelta(seconds=2))
    assert DrawStanding.objects.get(draw=draw).requested_at is None
    assert draw_standing_request(draw_id=draw.pk, now=NOW + dt.timedelta(seconds=3))
    assert enqueued == [draw.pk, draw.pk]


def test_a_request_lost_with_its_worker_is_queued_again_after_five_minutes(draw, enqueued):
    assert draw_standing_request(draw_id=draw.pk, now=NOW)
    assert not draw_standing_request(draw_id=draw.pk, now=NOW + STANDING_REQUEUE_AFTER - dt.timedelta(seconds=1))
    assert draw_standing_request(draw_id=draw.pk, now=NOW + STANDING_REQUEUE_AFTER)
    assert enqueued == [draw.pk, draw.pk]


@time_machine.travel(NOW, tick=False)
def test_the_tick_keeps_at_most_a_few_counts_waiting(reference_data, enqueued):
    series = make_series(points_per_ticket=100)
    draws = [make_draw(series, DRAW_AT + dt.timedelta(minutes=n)) for n in range(STANDING_QUEUED_MAX + 5)]
    assert draw_standings_refresh_due() == STANDING_QUEUED_MAX
    assert draw_standings_refresh_due() == 0  # the queue is full: the next ones wait
    draw_standing_refresh(draw_id=enqueued[0], now=NOW)  # the worker takes one
    assert draw_standings_refresh_due() == 1
    assert len(set(enqueued)) == len(enqueued) == STANDING_QUEUED_MAX + 1
    assert set(enqueued) <= {d.pk for d in draws}


@time_machine.travel(NOW, tick=False)
def test_a_manager_request_counts_toward_the_ticks_bound(draw, enqueued, monkeypatch):
    monkeypatch.setattr(services, "STANDING_QUEUED_MAX", 1)
    other = make_draw(draw.series, DRAW_AT + dt.timedelta(hours=1))
    assert draw_standing_request(draw_id=other.pk, now=NOW)
    assert draw_standings_refresh_due() == 0
    assert enqueued == [other.pk]


def test_count_again_is_refused_at_another_property_in_the_service(draw, enqueued, user_for):
    from conftest import PROMOTIONS_MANAGER
    from core.audit import Actor
    from core.errors import DomainError

    elsewhere = Actor.for_user(user_for(PROMOTIONS_MANAGER, properties=["MC"]))
    with pytest.raises(DomainError) as refused:
        services.draw_standing_recount(actor=elsewhere, draw_id=draw.pk, now=NOW)
    assert refused.value.code == "other_property" and enqueued == []
    here = Actor.for_user(user_for(PROMOTIONS_MANAGER))
    assert services.draw_standing_recount(actor=here, draw_id=draw.pk, now=NOW)
    assert enqueued == [draw.pk]
