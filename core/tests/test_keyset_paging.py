"""Long lists page by keyset (issue 17, item 4; core.paging): First / Previous / Next / Last
through cursors that keep the filters, `?page=last`, deep pages, damaged links answered in words,
and the count in words where it is not counted to the last row. EXACT_COUNT_UP_TO is lowered so
that a few dozen rows make a "long" list."""

import datetime as dt
import re
import urllib.parse

import pytest
from django.core.files.base import ContentFile
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from core import paging
from core.audit import Actor, audit_log
from core.paging import about, page_of
from core.tests.test_swipe import TRACK1
from members.models import ImportJob
from members.services import import_job_create
from members.tests.factories import MemberFactory

pytestmark = pytest.mark.django_db

ACTION = "draw.entries_frozen"


@pytest.fixture
def long_lists(monkeypatch):
    monkeypatch.setattr(paging, "EXACT_COUNT_UP_TO", 20)


@pytest.fixture
def events(db):
    """130 events of one action, oldest first: all in one transaction, so they share created_at
    and only the id tells them apart (the cursor's tie-breaker does all the work)."""
    return [audit_log(actor=Actor.system("tick"), action=ACTION, data={"entries": number}).pk for number in range(130)]


def event_ids(response) -> list[int]:
    return [event.pk for event in response.context["page"]]


def foot(response) -> str:
    html = response.content.decode()
    return re.search(r'data-testid="page-count">([^<]*)<', html).group(1)


def link(response, rel: str) -> str:
    """The query string of the foot's link `rel` (first, prev, next, last), unescaped."""
    match = re.search(rf'rel="{rel}" href="\?([^"]*)"', response.content.decode())
    assert match, f"no {rel} link"
    return match.group(1).replace("&amp;", "&")


def get(client, query: str):
    response = client.get(reverse("audit") + "?" + query)
    assert response.status_code == 200
    return response


def test_first_next_previous_and_last_walk_the_whole_filtered_log(auditor, events, long_lists):
    newest_first = events[::-1]
    first = get(auditor, f"action={ACTION}")
    assert event_ids(first) == newest_first[:50]
    assert foot(first) == "Showing 1\N{EN DASH}50 of more than 20 events"
    second = get(auditor, link(first, "next"))
    assert event_ids(second) == newest_first[50:100]
    assert foot(second) == "Showing 50 of more than 20 events"  # 50 rows before it: more than counted
    third = get(auditor, link(second, "next"))
    assert event_ids(third) == newest_first[100:]  # 30 rows: the end
    assert 'rel="next"' not in third.content.decode()
    assert event_ids(get(auditor, link(third, "prev"))) == newest_first[50:100]
    assert event_ids(get(auditor, link(second, "prev"))) == newest_first[:50]
    assert event_ids(get(auditor, link(third, "first"))) == newest_first[:50]
    last = get(auditor, link(first, "last"))
    assert event_ids(last) == newest_first[-50:]  # the 50 oldest, read backwards from the end
    assert event_ids(get(auditor, link(last, "prev"))) == newest_first[30:80]


def test_every_link_keeps_the_filters(auditor, events, long_lists):
    first = get(auditor, f"action={ACTION}&date_from=2000-01-01")
    for rel in ("next", "last"):
        params = urllib.parse.parse_qs(link(first, rel))
        assert params["action"] == [ACTION] and params["date_from"] == ["2000-01-01"]
    params = urllib.parse.parse_qs(link(get(auditor, link(first, "next")), "first"))
    assert params == {"action": [ACTION], "date_from": ["2000-01-01"]}


def test_page_last_of_a_short_list_is_its_last_numbered_page(auditor, events):
    response = get(auditor, f"action={ACTION}&page=last")
    assert foot(response) == "Showing 101\N{EN DASH}130 of 130 events"
    assert event_ids(response) == events[:30][::-1]


def test_a_deep_cursor_page_and_a_too_deep_page_number(auditor, events, long_lists):
    newest_first = events[::-1]
    row = paging_events().get(pk=newest_first[69])
    cursor = paging.encode_cursor(row, paging._keys(paging_events()))
    deep = get(auditor, urllib.parse.urlencode({"action": ACTION, "after": cursor}))
    assert event_ids(deep) == newest_first[70:120]
    refused = get(auditor, f"action={ACTION}&page=40000")
    assert "Page 40,000 is too far in to open by its number" in refused.content.decode()
    assert event_ids(refused) == events[::-1][:50]


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        "2026-13-45T99:00:00+00:00_12",
        "2026-01-01T10:00:00+00:00_99999999999999999999999",
        "2026-01-01T10:00:00_12",  # no time zone
        "_",
        "12",
        "1000012946",  # a card number (the middleware turned a swipe into one)
    ],
)
@pytest.mark.parametrize("direction", ["after", "before"])
def test_a_damaged_cursor_gives_the_first_page_and_says_why(auditor, events, long_lists, cursor, direction):
    response = get(auditor, urllib.parse.urlencode({"action": ACTION, direction: cursor}))
    assert "That page link was damaged" in response.content.decode()
    assert event_ids(response) == events[::-1][:50]


def test_a_cursor_past_the_end_gives_the_last_page(auditor, events, long_lists):
    response = get(auditor, f"action={ACTION}&after=2000-01-01T00:00:00%2B00:00_1")
    assert event_ids(response) == events[::-1][-50:]


def test_the_whole_log_says_about_how_many_from_the_planners_estimate(auditor, events, long_lists):
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE core_auditevent")  # what autovacuum keeps up to date
    words = foot(get(auditor, ""))
    assert re.fullmatch(r"Showing 1\u201350 of about 1[34]\d events", words), words


def test_about_rounds_to_two_figures():
    assert about(1_987_654) == "about 2,000,000"
    assert about(1_234_567) == "about 1,200,000"
    assert about(87) == "about 87"


def test_a_swipe_never_goes_into_a_page_link(events, long_lists):
    request = RequestFactory().get("/audit/", {"q": TRACK1, "action": ACTION})
    page, query = page_of(request, paging_events())
    for text in (query, page.next_query, page.last_query, page.first_query):
        assert "MABASO" not in urllib.parse.unquote(text) and "1000012946" in urllib.parse.unquote(text)


def paging_events():
    from core.models import AuditEvent

    return AuditEvent.objects.filter(action=ACTION)


@pytest.fixture
def jobs(db):
    """45 import jobs over 15 distinct times, three at each: ties and order both matter."""
    made = [
        import_job_create(actor=Actor.system("test"), kind="points", file=ContentFile(b"x"), name="p.csv")
        for _ in range(45)
    ]
    base = timezone.now() - dt.timedelta(days=30)
    for index, job in enumerate(made):
        ImportJob.objects.filter(pk=job.pk).update(created_at=base + dt.timedelta(hours=index // 3 * 7 % 15))
    return ImportJob.objects.all()


def walk(queryset, *, per_page: int, backwards: bool = False) -> list[int]:
    """Every row's id, following Next from the first page (or Previous from the last)."""
    query = "page=last" if backwards else ""
    seen = []
    while True:
        page, _ = page_of(RequestFactory().get("/?" + query), queryset, per_page=per_page)
        assert page.keyset
        ids = [row.pk for row in page]
        seen = ids + seen if backwards else seen + ids
        if not (page.has_previous if backwards else page.has_next):
            return seen
        query = page.previous_query if backwards else page.next_query


@pytest.mark.parametrize("order", [("-created_at", "-pk"), ("created_at", "pk"), ("created_at", "-pk")])
def test_next_and_previous_visit_every_row_once_in_order_whatever_the_direction(jobs, long_lists, order):
    ordered = jobs.order_by(*order)
    expected = list(ordered.values_list("pk", flat=True))
    assert walk(ordered, per_page=7) == expected
    assert walk(ordered, per_page=7, backwards=True) == expected


def test_a_later_page_costs_one_query_more_than_the_first_whatever_the_rows(auditor, events, long_lists):
    def queries(query: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            get(auditor, query)
        return len(captured)

    first = get(auditor, f"action={ACTION}")
    assert queries(link(first, "next")) <= queries(f"action={ACTION}") + 1


def test_the_members_list_says_how_many_in_words(desk, reference_data, monkeypatch):
    monkeypatch.setattr("members.views.MEMBERS_COUNTED", 20)
    MemberFactory.create_batch(25)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE members_member")
    content = desk.get(reverse("members:list")).content.decode()
    assert re.search(r'id="member-count">About 2\d members, newest first', content)
    filtered = desk.get(reverse("members:list"), {"app": "no"}).content.decode()
    assert 'id="member-count">More than 20 members, newest first' in filtered
