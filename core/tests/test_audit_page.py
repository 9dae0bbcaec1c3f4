"""The audit log page and its CSV (issue 9, item 6): sentences with links, filters as choice
lists, Johannesburg time, no codes or reprs, and the filtered events as a download."""

import csv
import datetime as dt
import html
import io
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.audit import Actor, audit_log
from draws.models import Draw
from draws.tests.builders import sast
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return html.unescape(response.content.decode())


def plain(response) -> str:
    """The page's words, links and all, without the tags."""
    return re.sub(r"<[^>]+>", "", text(response))


def download(client, **params) -> list[list[str]]:
    response = client.get(reverse("audit_csv"), params)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="audit-log-')
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


@pytest.fixture
def events(reference_data, user_for):
    user_for(None, username="desk")  # whose name the filter offers
    series = make_series()
    draw = make_draw(series, sast(2025, 10, 16, 20, 0))
    member = MemberFactory(first_name="Pieter", last_name="Mabaso", card_number="1000012946")
    audit_log(actor=Actor(label="manager"), action="draw.started", obj=draw, data={"method": "electronic"})
    audit_log(actor=Actor(label="desk"), action="member.signed_up", obj=member, data={"card_number": "1000012946"})
    return draw, member


def test_the_page_reads_as_sentences_with_links_and_no_codes_or_reprs(auditor, events):
    draw, member = events
    response = auditor.get(reverse("audit"))
    page = text(response)
    assert "manager started Test cash draw, Thu 16 Oct 2025 20:00." in plain(response)
    assert "desk signed up Pieter Mabaso (1000012946)." in plain(response)
    assert f'<a href="{reverse("draws:detail", args=[draw.pk])}">' in page
    assert f'<a href="{reverse("members:detail", args=[member.pk])}">Pieter Mabaso (1000012946)</a>' in page
    table = page[page.index('id="audit-events"') :]
    assert "draw.started" not in table and "member.signed_up" not in table
    assert "{" not in table and "'" not in table
    assert "Method:</span> Electronic (TEEDS)" in page  # the stored choice in its words


def test_times_are_written_once_way_in_johannesburg(auditor, events):
    page = text(auditor.get(reverse("audit")))
    times = re.findall(r"<time datetime=\"[^\"]+\">([^<]+)</time>", page)
    assert times and all(re.fullmatch(r"[A-Z][a-z]{2} \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d", t) for t in times)
    assert "+02:00" in page  # the machine-readable stamp is Johannesburg's too


def test_the_filters_are_choice_lists_in_words(auditor, events, user_for):
    user_for(None, username="cashier.one")
    response = auditor.get(reverse("audit"))
    form = response.context["form"]
    actions = dict(choice for _, group in form.fields["action"].choices[1:] for choice in group)
    assert actions["draw.moved"] == "Draw moved"
    assert actions["area:Draws"] == "Everything in draws"
    actors = dict(choice for _, group in form.fields["actor"].choices[1:] for choice in group)
    assert actors["cashier.one"] == "cashier.one"
    assert actors["system:tick"] == "The system (scheduled)"
    assert dict(form.fields["object_type"].choices)["members.member"] == "Member"
    assert "<select" in text(response) and 'name="action"' in text(response)


def test_filtering_by_area_actor_and_object(auditor, events):
    _, member = events

    def shown(**params) -> list[str]:
        return [event.action for event in auditor.get(reverse("audit"), params).context["page"]]

    assert shown(action="area:Draws") == ["draw.started", "draw.scheduled"]
    assert shown(actor="desk") == ["member.signed_up"]
    assert shown(object_type="members.member", object_id=str(member.pk)) == ["member.signed_up"]


def test_a_typed_code_is_not_a_choice_and_shows_nothing(auditor, events):
    response = auditor.get(reverse("audit"), {"action": "member."})
    assert response.context["form"].errors
    assert response.context["page"].paginator.count == 0


def test_the_history_link_shows_every_event_about_the_object(auditor, events):
    draw, _ = events
    page = auditor.get(reverse("audit")).content.decode()
    assert f'href="?object_type=draws.draw&amp;object_id={draw.pk}"' in page


def test_the_page_pages_with_its_count(auditor, db):
    for number in range(60):
        audit_log(actor=Actor.system("tick"), action="draw.entries_frozen", data={"entries": number})
    response = auditor.get(reverse("audit"), {"action": "draw.entries_frozen"})
    assert "Showing 1\N{EN DASH}50 of 60 events" in text(response)
    assert "?action=draw.entries_frozen&amp;page=2" in response.content.decode()


def test_the_page_costs_the_same_queries_for_5_or_50_events(auditor, reference_data):
    series = make_series()

    def add(count):
        for _ in range(count):
            draw = make_draw(series, sast(2025, 11, 1, 20, 0) + dt.timedelta(days=Draw.objects.count()))
            audit_log(actor=Actor(label="manager"), action="draw.started", obj=draw)
            audit_log(actor=Actor(label="desk"), action="member.signed_up", obj=MemberFactory())

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert auditor.get(reverse("audit")).status_code == 200
        return len(captured)

    add(3)
    few = queries()  # the page also shows the auditor's sign-in: one kind more than later
    add(22)
    assert queries() <= few


def test_the_csv_holds_every_filtered_event_in_words(auditor, events):
    for number in range(60):
        audit_log(actor=Actor.system("tick"), action="draw.entries_frozen", data={"entries": number, "tickets": 5})
    rows = download(auditor, action="draw.entries_frozen")
    assert rows[0] == [
        "When (Johannesburg)",
        "What happened",
        "Who",
        "Action",
        "About",
        "Its number",
        "Details",
        "IP address",
    ]
    assert len(rows) == 61  # every event the filter selects, not only the page's 50
    assert rows[1][2] == "system:tick" and rows[1][3] == "Entries frozen"
    assert rows[1][6] == "Entries: 59; Tickets: 5"
    assert re.fullmatch(r"[A-Z][a-z]{2} \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d", rows[1][0])


def test_the_csv_names_objects_and_makes_formula_cells_safe(auditor, reference_data):
    member = MemberFactory(first_name='=HYPERLINK("x")', last_name="Evil", card_number="1000000099")
    audit_log(actor=Actor(label="@desk"), action="member.signed_up", obj=member, data={"note": "+27 11"})
    (row,) = download(auditor, action="member.signed_up")[1:]
    assert row[1].startswith("'@desk signed up =HYPERLINK")
    assert row[2] == "'@desk"
    assert row[4] == "Member" and row[5] == str(member.pk)
    assert row[6] == "Note: +27 11"  # inside the cell, not at its start: harmless


def test_the_csv_link_carries_the_filters(auditor, events):
    page = auditor.get(reverse("audit"), {"action": "area:Draws", "page": 1}).content.decode()
    assert f'href="{reverse("audit_csv")}?action=area%3ADraws"' in page


def test_only_those_who_read_the_log_may_download_it(desk, cashier, manager, events):
    assert desk.get(reverse("audit_csv")).status_code == 403
    assert cashier.get(reverse("audit_csv")).status_code == 403
    assert manager.get(reverse("audit_csv")).status_code == 200


def test_the_csv_streams_in_batches_and_names_every_object(auditor, reference_data, monkeypatch):
    import core.audit_views

    monkeypatch.setattr(core.audit_views, "CSV_BATCH", 7)
    series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    draws = [make_draw(series, sast(2025, 10, 1, 20, 0) + dt.timedelta(days=day)) for day in range(20)]
    rows = download(auditor, action="draw.scheduled")[1:]
    assert len(rows) == 20
    assert {row[1] for row in rows} == {f"The system scheduled {draw.name}." for draw in draws}
