"""The draw page runs a draw: Start, the pick awaiting its outcome, keyed serials, ending short.
Only what the server would accept is offered (SCREENS.md 2)."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from draws.models import Draw, DrawPick, DrawStatus, PickOutcome
from draws.tests.builders import SAST, closed_draw
from draws.tests.factories import make_draw
from promotions.models import DrawMethod
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

DRAW_AT = dt.datetime(2025, 10, 15, 20, 0, tzinfo=SAST)


@pytest.fixture(autouse=True)
def draw_night():
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=2), tick=False):
        yield


def after_window():
    """The winner's 90 seconds from the pick (made at DRAW_AT + 2 min) have passed."""
    return time_machine.travel(DRAW_AT + dt.timedelta(minutes=2, seconds=90), tick=False)


def page(client, draw):
    return client.get(reverse("draws:detail", args=[draw.pk]))


def post(client, draw, name, **data):
    return client.post(reverse(f"draws:{name}", args=[draw.pk]), data, follow=True)


def test_a_manager_starts_a_closed_draw_and_records_outcomes_until_it_completes(manager, reference_data):
    series = make_series()
    series.winners_per_draw = 2
    series.save()
    draw, _ = closed_draw(series, DRAW_AT, [10] * 6)
    html = page(manager, draw).content.decode()
    assert 'id="start-button"' in html
    response = post(manager, draw, "start", witness_name="Sipho Witness")
    html = response.content.decode()
    assert "has started" in html and 'id="awaiting"' in html and "witness Sipho Witness" in html
    pick = DrawPick.objects.get(draw=draw)
    assert pick.card_number in html
    with after_window():
        post(manager, draw, "outcome", pick=pick.pk, outcome="no_show")
    second = DrawPick.objects.get(draw=draw, outcome="")
    assert second.k == 2
    response = post(manager, draw, "outcome", pick=second.pk, outcome="disqualified", reason="")
    assert "Say why the winner is disqualified" in response.content.decode()
    post(manager, draw, "outcome", pick=second.pk, outcome="present", id_type_seen="sa_id")
    post(
        manager,
        draw,
        "outcome",
        pick=DrawPick.objects.get(draw=draw, outcome="").pk,
        outcome="present",
        id_type_seen="sa_id",
    )
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN
    html = page(manager, draw).content.decode()
    assert 'id="run-complete"' in html and draw.seed_hex in html and 'id="outcome-present"' not in html


def test_the_desk_sees_the_run_but_is_offered_none_of_its_actions(desk, manager, reference_data):
    draw, _ = closed_draw(make_series(), DRAW_AT, [10] * 6)
    html = page(desk, draw).content.decode()
    assert 'id="start-button"' not in html and "Starts by itself at 20:00" in html
    assert post(desk, draw, "start").status_code == 403
    post(manager, draw, "start")
    html = page(desk, draw).content.decode()
    assert 'id="awaiting"' in html and 'id="outcome-present"' not in html


def test_start_is_not_offered_while_entries_are_open_and_the_reason_is_shown(manager, reference_data):
    draw = make_draw(make_series(), DRAW_AT + dt.timedelta(days=7))
    html = page(manager, draw).content.decode()
    assert 'id="start-button"' not in html and "Entries are still open until" in html
    response = post(manager, draw, "start")
    assert "Entries are still open until" in response.content.decode()
    assert Draw.objects.get(pk=draw.pk).status == DrawStatus.SCHEDULED


def test_a_second_start_says_who_started_the_draw(manager, client_for, reference_data):
    draw, _ = closed_draw(make_series(), DRAW_AT, [10] * 6)
    post(manager, draw, "start")
    response = post(manager, draw, "start")
    assert "This draw was started by" in response.content.decode()
    assert DrawPick.objects.filter(draw=draw).count() == 1


def test_a_manual_draw_takes_keyed_serials_and_keeps_the_field_focused(manager, reference_data):
    series = make_series()
    series.method = DrawMethod.MANUAL
    series.save()
    draw, members = closed_draw(series, DRAW_AT, [5, 5])
    post(manager, draw, "start", witness_name="W")
    html = page(manager, draw).content.decode()
    assert 'id="serial-form"' in html and "autofocus" in html
    response = post(manager, draw, "key_serial", serial="11")
    html = response.content.decode()
    assert "Serial 11 is not a ticket of this draw" in html and "refused-keys" in html
    response = post(manager, draw, "key_serial", serial="7")
    pick = DrawPick.objects.get(draw=draw)
    assert pick.member == members[1] and f"card {members[1].card_number}, pick 1" in response.content.decode()
    assert 'id="serial-form"' not in response.content.decode()  # the outcome first
    with after_window():
        post(manager, draw, "outcome", pick=pick.pk, outcome=PickOutcome.NO_SHOW)
    assert 'id="serial-form"' in page(manager, draw).content.decode()


def test_a_draw_nobody_can_win_any_more_is_ended_short_with_the_reason(manager, reference_data):
    draw, _ = closed_draw(make_series(), DRAW_AT, [3])
    post(manager, draw, "start")
    post(manager, draw, "outcome", pick=DrawPick.objects.get(draw=draw).pk, outcome="present", id_type_seen="sa_id")
    html = page(manager, draw).content.decode()
    assert "Make the next pick" in html and "End the draw before it has all its winners" in html
    response = post(manager, draw, "resume")
    assert "no entrant left can win" in response.content.decode()
    post(manager, draw, "end_short", reason="One entrant only.")
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN and draw.ended_short_reason == "One entrant only."
