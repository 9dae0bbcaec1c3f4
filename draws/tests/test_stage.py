"""The stage screen and tonight's draws (issue 13, items 8 and 9): what the big screen shows at
each moment of a draw, what it never shows, its query budget, and the manager's evening."""

import datetime as dt
import re

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from conftest import make_user
from core.roles import STAGE_DISPLAY
from draws.engine import draw_start, pick_outcome_record
from draws.models import DrawPick, PickOutcome
from draws.stage import evening, stage_name
from draws.tests.builders import MANAGER, SAST, add_entries, closed_draw
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory
from promotions.tests.factories import make_series
from proxies.tests.factories import decline, nominate, nominee_for

pytestmark = pytest.mark.django_db

DRAW_AT = dt.datetime(2025, 10, 15, 20, 0, tzinfo=SAST)


@pytest.fixture(autouse=True)
def draw_night():
    with time_machine.travel(DRAW_AT + dt.timedelta(seconds=5), tick=False):
        yield


@pytest.fixture
def screen(reference_data):
    client = Client()
    client.force_login(make_user(STAGE_DISPLAY))
    return client


def state(client, draw) -> str:
    response = client.get(reverse("draws:stage_state", args=[draw.pk]))
    assert response.status_code == 200
    return response.content.decode()


def full_page(client, draw) -> str:
    response = client.get(reverse("draws:stage", args=[draw.pk]))
    assert response.status_code == 200
    return response.content.decode()


def a_draw(winners=2, entrants=6):
    series = make_series()
    series.winners_per_draw = winners
    series.save()
    members = [
        MemberFactory(first_name=f"Thandi{i}", last_name=f"Surname{i}xq", id_number=f"90010150{i:02d}087")
        for i in range(entrants)
    ]
    return closed_draw(series, DRAW_AT, [3] * entrants, members)


def assert_no_personal_data(html: str, members) -> None:
    """No ID number (whole or its tail), surname, full card number or register detail."""
    text = re.sub(r"<[^>]+>", " ", html)
    for member in members:
        assert member.id_number not in html and member.id_number[-6:] not in text, member.id_number
        assert member.last_name not in html, member.last_name
        assert member.card_number not in html, member.card_number
    for word in ("exclusion", "Exclusion", "ID number", "nominee", "Nominee"):
        assert word not in text, word


def test_before_the_first_pick_the_screen_shows_the_draw_its_entries_and_both_hashes(screen):
    draw, members = a_draw()
    for html in (full_page(screen, draw), state(screen, draw)):
        assert draw.name in html and "The draw is about to start" in html  # 20:00:05, not started
        assert 'id="stage-entries"' in html and "6 entries · 18 tickets" in html
        assert draw.entries_sha256 in html and draw.seed_sha256 in html
        assert draw.seed_hex not in html  # the seed stays secret until the draw is complete
        assert_no_personal_data(html, members)


def test_before_its_time_the_screen_says_when_the_draw_starts(screen):
    draw, _ = a_draw()
    with time_machine.travel(DRAW_AT - dt.timedelta(minutes=10), tick=False):
        assert "The draw starts at 20:00" in state(screen, draw)


def test_the_screen_follows_the_picks_with_the_countdown_from_the_stored_time(screen):
    draw, members = a_draw()
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    pick = DrawPick.objects.get(draw=draw, outcome="")
    response = screen.get(reverse("draws:stage_state", args=[draw.pk]))
    html = response.content.decode()
    assert response["Cache-Control"].startswith("max-age=0") or "no-cache" in response["Cache-Control"]
    assert f"Pick {pick.k}" in html and stage_name(pick) in html
    assert stage_name(pick) == f"{pick.member.first_name} {pick.member.last_name[0]}."
    assert f"…{pick.card_number[-4:]}" in html
    deadline_ms = int((pick.picked_at + dt.timedelta(seconds=90)).timestamp() * 1000)
    assert f'data-deadline="{deadline_ms}"' in html and 'data-seconds="90"' in html
    assert abs(int(response["X-Stage-Now"]) - int(pick.picked_at.timestamp() * 1000)) < 1000
    first_version = response["X-Stage-Version"]
    assert_no_personal_data(html, members)

    pick_outcome_record(
        actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
    )
    second = DrawPick.objects.get(draw=draw, outcome="")
    response = screen.get(reverse("draws:stage_state", args=[draw.pk]))
    html = response.content.decode()
    assert response["X-Stage-Version"] != first_version
    assert f"Pick {second.k}" in html and 'id="stage-winners"' in html
    assert stage_name(pick) in html and "Winner" in html
    assert_no_personal_data(html, members)

    pick_outcome_record(
        actor=MANAGER, draw_id=draw.pk, pick_id=second.pk, outcome=PickOutcome.DISQUALIFIED, reason="Underage ID"
    )
    html = state(screen, draw)
    assert "Underage" not in html  # a disqualification's reason is not for the audience
    third = DrawPick.objects.get(draw=draw, outcome="")
    pick_outcome_record(
        actor=MANAGER, draw_id=draw.pk, pick_id=third.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
    )
    html = state(screen, draw)
    assert 'id="stage-complete"' in html and "Complete" in html and "data-deadline" not in html
    assert html.count("<li>") == 2
    assert_no_personal_data(html, members)


def test_the_series_presentation_window_sets_the_countdown(screen):
    from promotions.models import DrawSeries

    draw, _ = a_draw()
    DrawSeries.objects.filter(pk=draw.series_id).update(presentation_seconds=30)
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    pick = DrawPick.objects.get(draw=draw, outcome="")
    deadline_ms = int((pick.picked_at + dt.timedelta(seconds=30)).timestamp() * 1000)
    assert f'data-deadline="{deadline_ms}"' in state(screen, draw)


def test_the_partial_has_a_fixed_query_budget_however_many_picks(screen):
    draw, _ = a_draw(winners=5, entrants=12)
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    state(screen, draw)  # the session and the user, warmed like a screen polling every second
    with CaptureQueriesContext(connection) as few:
        state(screen, draw)
    for _ in range(4):
        pick = DrawPick.objects.get(draw=draw, outcome="")
        pick_outcome_record(
            actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
        )
    with CaptureQueriesContext(connection) as many:
        state(screen, draw)
    # The session and the user's permissions (the login), then the draw and its picks: two.
    assert len(many) == len(few) <= 10, [q["sql"] for q in many.captured_queries]
    mine = [q["sql"] for q in many.captured_queries if '"draws_' in q["sql"]]
    assert len(mine) == 2, mine


def test_the_stage_display_changes_nothing_and_opens_no_member_or_record(screen):
    draw, members = a_draw()
    assert screen.get(reverse("members:detail", args=[members[0].pk])).status_code == 403
    assert screen.get(reverse("draws:detail", args=[draw.pk])).status_code == 403
    assert screen.get(reverse("draws:record", args=[draw.pk])).status_code == 403
    assert screen.post(reverse("draws:start", args=[draw.pk])).status_code == 403


def test_the_draw_page_opens_the_stage_screen(manager, desk):
    draw, _ = a_draw()
    assert (
        reverse("draws:stage", args=[draw.pk]) in manager.get(reverse("draws:detail", args=[draw.pk])).content.decode()
    )
    assert 'id="stage-link"' not in desk.get(reverse("draws:detail", args=[draw.pk])).content.decode()


# --- Tonight -------------------------------------------------------------------------------


def test_the_evening_runs_from_noon_to_six_the_next_morning():
    assert evening(dt.datetime(2025, 10, 15, 20, 0, tzinfo=SAST)) == (
        dt.datetime(2025, 10, 15, 12, 0, tzinfo=SAST),
        dt.datetime(2025, 10, 16, 6, 0, tzinfo=SAST),
    )
    # After midnight it is still the evening before; at 06:00 the next one is ahead.
    assert evening(dt.datetime(2025, 10, 16, 1, 30, tzinfo=SAST))[0] == dt.datetime(2025, 10, 15, 12, 0, tzinfo=SAST)
    assert evening(dt.datetime(2025, 10, 16, 6, 0, tzinfo=SAST))[0] == dt.datetime(2025, 10, 16, 12, 0, tzinfo=SAST)


def test_tonight_lists_the_evening_in_time_order_with_registers_and_the_next_action(reference_data, user_for):
    series = make_series(windows=[{"day": -1, "open": "08:00", "close_before": 5}])
    series.winners_per_draw = 1
    series.save()
    running, (member, *_) = closed_draw(series, DRAW_AT, [2, 2])
    later = make_draw(series, DRAW_AT.replace(hour=22))
    late_night = make_draw(series, DRAW_AT.replace(day=16, hour=1))
    make_draw(series, DRAW_AT.replace(day=16, hour=13))  # tomorrow's evening: not listed
    make_draw(series, DRAW_AT.replace(hour=10))  # this morning: not listed
    elsewhere, _ = closed_draw(make_series(property_code="MC"), DRAW_AT.replace(hour=21), [1])
    add_entries(later, [1], [member])
    with time_machine.travel(DRAW_AT.replace(hour=10), tick=False):  # the registers' window
        nominate(participant=member, draw=later, now=DRAW_AT.replace(hour=10))
        decline(member=member, draw=later, now=DRAW_AT.replace(hour=10))
    assert draw_start(actor=MANAGER, draw_id=running.pk)
    pick = DrawPick.objects.get(draw=running, outcome="")

    client = Client()
    client.force_login(user_for("promotions_manager", properties=["GRC"]))
    html = client.get(reverse("draws:tonight")).content.decode()
    table = html[html.index('id="tonight-draws"') :]
    names = [running.name, later.name, late_night.name]
    assert [table.index(name) for name in names] == sorted(table.index(name) for name in names)
    assert elsewhere.name not in html and "13:00" not in table and "10:00" not in table
    assert f"Record the outcome of pick {pick.k} on the draw page." in html
    assert "Entries are still open until" in html  # 22:00's tickets are still being activated
    row = table[table.index(later.name) : table.index(late_night.name)]
    assert re.search(r'<td class="text-end">1</td>\s*<td class="text-end">1</td>', row)  # a proxy, a decline
    assert 'id="tonight-next"' in html and f'data-at="{int(later.scheduled_at.timestamp())}"' in html
    assert reverse("draws:stage", args=[running.pk]) in html


def test_a_represented_and_a_declined_winner_show_no_register_detail_on_the_screen(screen):
    """The proxy's name and ID number, and who declined, stay on the conductor's page."""
    nominee = nominee_for(name="Ayanda Mahlangu")
    draw, (decliner, represented) = a_draw(winners=2, entrants=2)
    registers_open = DRAW_AT - dt.timedelta(hours=1)
    with time_machine.travel(registers_open, tick=False):
        decline(member=decliner, draw=draw, now=registers_open)
        nominate(participant=represented, draw=draw, nominee=nominee, now=registers_open)
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    while (pick := DrawPick.objects.filter(draw=draw, outcome="").first()) is not None:
        outcome = PickOutcome.DECLINED if pick.member_id == decliner.pk else PickOutcome.PROXY_PRESENT
        pick_outcome_record(actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=outcome, id_type_seen="sa_id")
    for html in (state(screen, draw), full_page(screen, draw)):
        assert "Winner, represented by a proxy" in html and "Winner, to be contacted" in html
        text = re.sub(r"<[^>]+>", " ", html)
        assert nominee.name not in html and "Ayanda" not in html and "Mahlangu" not in html
        assert nominee.id_number not in html and nominee.id_number[-6:] not in text
        assert_no_personal_data(html, [decliner, represented])


def test_the_full_screen_has_a_fixed_query_budget_however_many_picks(screen):
    draw, _ = a_draw(winners=5, entrants=12)
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    full_page(screen, draw)  # the session and the user, warmed
    with CaptureQueriesContext(connection) as few:
        full_page(screen, draw)
    for _ in range(4):
        pick = DrawPick.objects.get(draw=draw, outcome="")
        pick_outcome_record(
            actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
        )
    with CaptureQueriesContext(connection) as many:
        full_page(screen, draw)
    assert len(many) == len(few) <= 10, [q["sql"] for q in many.captured_queries]
