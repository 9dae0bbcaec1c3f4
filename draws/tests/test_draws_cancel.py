"""Several draws cancelled at once with one reason (issue 9, item 7): all or none, each kept
with the reason and its own audit event; a started draw is never cancelled."""

import datetime as dt
import html

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from draws.models import Draw, DrawStatus
from draws.services import draws_cancel
from draws.tests.factories import make_draw
from promotions.tests.factories import make_series
from testing.db import triggers_off

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)
MANAGER = Actor.system("test-manager")


def text(response) -> str:
    return html.unescape(response.content.decode())


@pytest.fixture
def three(reference_data):
    series = make_series()
    return [make_draw(series, dt.datetime(2025, 10, 16 + day, 13, 0, tzinfo=SAST)) for day in range(3)]


def statuses(draws) -> list[str]:
    return [Draw.objects.get(pk=d.pk).status for d in draws]


def test_it_cancels_every_chosen_draw_with_the_one_reason(three):
    cancelled = draws_cancel(actor=MANAGER, draw_ids=[d.pk for d in three], reason="  Venue closed for repairs ")
    assert [d.pk for d in cancelled] == [d.pk for d in three]
    assert statuses(three) == [DrawStatus.CANCELLED] * 3
    assert {Draw.objects.get(pk=d.pk).change_reason for d in three} == {"Venue closed for repairs"}
    events = AuditEvent.objects.filter(action="draw.cancelled")
    assert sorted(int(e.object_id) for e in events) == sorted(d.pk for d in three)
    assert {e.data["reason"] for e in events} == {"Venue closed for repairs"}


@pytest.mark.parametrize("status", [DrawStatus.RUNNING, DrawStatus.DRAWN, DrawStatus.CANCELLED])
def test_one_draw_that_cannot_be_cancelled_stops_them_all_and_is_named(three, status):
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=three[1].pk).update(status=status)
    with pytest.raises(DomainError) as refused:
        draws_cancel(actor=MANAGER, draw_ids=[d.pk for d in three], reason="Venue closed")
    assert refused.value.message.startswith(f"{three[1].name}: ")
    assert refused.value.message.endswith("No draw was cancelled.")
    assert statuses([three[0], three[2]]) == [DrawStatus.SCHEDULED] * 2
    assert not AuditEvent.objects.filter(action="draw.cancelled").exists()


def test_a_started_draw_says_it_has_started(three):
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=three[0].pk).update(status=DrawStatus.RUNNING)
    with pytest.raises(DomainError, match="This draw has started"):
        draws_cancel(actor=MANAGER, draw_ids=[three[0].pk], reason="Venue closed")


@pytest.mark.parametrize(
    ("ids", "reason", "message"),
    [
        ([], "Venue closed", "Choose at least one draw to cancel."),
        (None, " ", "Say why the draw is cancelled"),
        ([999_999], "Venue closed", "One of the chosen draws does not exist"),
    ],
)
def test_it_needs_draws_and_a_reason(three, ids, reason, message):
    with pytest.raises(DomainError, match=message):
        draws_cancel(actor=MANAGER, draw_ids=[d.pk for d in three] if ids is None else ids, reason=reason)
    assert statuses(three) == [DrawStatus.SCHEDULED] * 3


@time_machine.travel(NOW, tick=False)
def test_the_manager_cancels_the_draws_chosen_on_the_list(manager, three):
    chosen = {"draw": [three[0].pk, three[2].pk], "back": "property=all&status=scheduled&page=2"}
    page = manager.get(reverse("draws:cancel_many"), chosen)
    assert "Cancel 2 draws" in text(page)
    assert three[0].name in text(page) and three[1].name not in text(page)
    response = manager.post(reverse("draws:cancel_many"), chosen | {"reason": "Load-shedding stage 6"})
    assert response.status_code == 302
    assert response["Location"] == reverse("draws:list") + "?property=all&status=scheduled"
    assert statuses(three) == [DrawStatus.CANCELLED, DrawStatus.SCHEDULED, DrawStatus.CANCELLED]
    assert "2 draws cancelled." in text(manager.get(response["Location"]))


@time_machine.travel(NOW, tick=False)
def test_the_page_names_a_chosen_draw_that_cannot_be_cancelled_and_leaves_it_out(manager, three):
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=three[1].pk).update(status=DrawStatus.DRAWN)
    response = manager.get(reverse("draws:cancel_many"), {"draw": [d.pk for d in three]})
    assert response.context["refused"] == [(three[1], "This draw is already drawn.")]
    assert f"{three[1].name}</a>: This draw is already drawn." in text(response)
    assert "Cancel these 2 draws" in text(response)


@time_machine.travel(NOW, tick=False)
def test_a_draw_that_started_after_the_page_was_shown_cancels_nothing(manager, three):
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=three[1].pk).update(status=DrawStatus.RUNNING)  # between the page and the press
    response = manager.post(reverse("draws:cancel_many"), {"draw": [d.pk for d in three], "reason": "Venue closed"})
    assert response.status_code == 200
    assert "No draw was cancelled." in text(response)
    assert statuses(three) == [DrawStatus.SCHEDULED, DrawStatus.RUNNING, DrawStatus.SCHEDULED]


@time_machine.travel(NOW, tick=False)
def test_the_way_back_is_only_ever_the_draws_list(manager, three):
    response = manager.post(
        reverse("draws:cancel_many"),
        {"draw": [three[0].pk], "reason": "x", "back": "https://evil.example/&next=//evil.example"},
    )
    assert response["Location"].startswith(reverse("draws:list") + "?")


def test_only_a_manager_may_cancel_draws(desk, auditor, three):
    assert desk.get(reverse("draws:cancel_many"), {"draw": [three[0].pk]}).status_code == 403
    assert auditor.post(reverse("draws:cancel_many"), {"draw": [three[0].pk], "reason": "x"}).status_code == 403
    assert statuses(three) == [DrawStatus.SCHEDULED] * 3


def test_the_cancel_page_of_a_drawn_draw_says_why_instead_of_offering_the_form(manager, three):
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=three[0].pk).update(status=DrawStatus.DRAWN)
    page = text(manager.get(reverse("draws:cancel", args=[three[0].pk])))
    assert "This draw is already drawn." in page
    assert "Cancel the draw</button>" not in page
