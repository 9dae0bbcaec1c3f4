"""The draw page's allocation overview is counted in the background and read cheaply: the page
costs the same whatever the number of members, and the count is redone after a points import."""

import datetime as dt
import html

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from draws.models import DrawStanding
from draws.services import draw_standing_refresh, draw_standings_refresh_due
from draws.tests.factories import make_draw
from members.models import ImportJob, ImportKind, ImportStatus
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.models import EarningRule
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
NOW = dt.datetime(2025, 10, 15, 9, 0, tzinfo=SAST)


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(points_per_ticket=100), DRAW_AT)


def _members(n: int, reference_data):
    for i in range(n):
        member = MemberFactory(tier=reference_data["tiers"]["QUEEN"])
        PointsEntryFactory(member=member, points=100 * (i + 1), earned_at=DRAW_AT - dt.timedelta(days=1))


def _page_queries(client, draw) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("draws:detail", args=[draw.pk])).status_code == 200
    return len(queries)


def test_the_page_reads_the_stored_count_and_costs_the_same_for_more_members(auditor, draw, reference_data):
    _members(3, reference_data)
    draw_standing_refresh(draw_id=draw.pk, now=NOW)
    few = _page_queries(auditor, draw)
    _members(60, reference_data)
    draw_standing_refresh(draw_id=draw.pk, now=NOW)
    assert _page_queries(auditor, draw) == few
    page = html.unescape(auditor.get(reverse("draws:detail", args=[draw.pk])).content.decode())
    assert 'id="members-with-tickets">63<' in page


def test_before_the_first_count_the_page_says_it_is_coming(auditor, draw):
    page = html.unescape(auditor.get(reverse("draws:detail", args=[draw.pk])).content.decode())
    assert "counted in the background" in page
    assert 'id="allocations"' not in page


@time_machine.travel(NOW, tick=False)
def test_the_tick_queues_a_count_for_a_draw_without_one_and_not_twice(draw, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        assert draw_standings_refresh_due() == 1
    assert len(callbacks) == 1
    assert DrawStanding.objects.get(draw=draw).requested_at == NOW
    assert draw_standings_refresh_due() == 0  # already queued


@time_machine.travel(NOW, tick=False)
def test_a_points_import_after_the_count_makes_it_due_again(draw):
    draw_standing_refresh(draw_id=draw.pk, now=NOW - dt.timedelta(minutes=2))
    assert draw_standings_refresh_due() == 0
    ImportJob.objects.create(
        kind=ImportKind.POINTS,
        original_name="p.csv",
        file="imports/p.csv",
        status=ImportStatus.SUCCEEDED,
        finished_at=NOW - dt.timedelta(minutes=1),
    )
    assert draw_standings_refresh_due() == 1


def test_a_count_older_than_thirty_minutes_is_redone(draw):
    draw_standing_refresh(draw_id=draw.pk, now=NOW)
    with time_machine.travel(NOW + dt.timedelta(minutes=29, seconds=59), tick=False):
        assert draw_standings_refresh_due() == 0
    with time_machine.travel(NOW + dt.timedelta(minutes=30, seconds=1), tick=False):
        assert draw_standings_refresh_due() == 1


def test_an_unreadable_rule_is_kept_as_the_counts_error_and_shown(auditor, draw, reference_data):
    EarningRule.objects.filter(series=draw.series).update(free_tickets_by_tier=[5])
    standing = draw_standing_refresh(draw_id=draw.pk, now=NOW)
    assert standing.error and standing.computed_at == NOW
    response = auditor.get(reverse("draws:detail", args=[draw.pk]))
    assert response.status_code == 200
    assert "could not be counted" in html.unescape(response.content.decode())


def test_a_manager_can_ask_for_a_recount(manager, draw, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        response = manager.post(reverse("draws:standing_refresh", args=[draw.pk]))
    assert response.status_code == 302
    assert len(callbacks) == 1 and DrawStanding.objects.get(draw=draw).requested_at is not None
