"""Scheduling a manager can trust (issue 9, item 7): the draws a schedule will create, and those
it refuses with the reason, are shown before anything is written; the confirm writes exactly
what was shown."""

import datetime as dt
import html

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.models import AuditEvent
from draws.models import Draw
from draws.services import draw_move, series_schedule_draws, series_schedule_plan
from draws.tests.factories import make_draw
from promotions.models import Promotion
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2026, 11, 20, 9, 0, tzinfo=SAST)  # a Friday morning
WEEKLY = {"weekday": 2, "first": "2026-11-16", "last": "2026-12-31", "time": "13:00"}  # Wednesdays 13h00


def text(response) -> str:
    return html.unescape(response.content.decode())


@pytest.fixture
def series(reference_data):
    series = make_series()
    Promotion.objects.filter(pk=series.promotion_id).update(starts_on="2026-11-01", ends_on="2026-12-20")
    series.refresh_from_db()
    return series


def url(series) -> str:
    return reverse("draws:series_schedule", args=[series.pk])


@time_machine.travel(NOW, tick=False)
def test_the_preview_lists_the_new_draws_and_each_refused_one_with_its_reason_and_writes_nothing(manager, series):
    taken = make_draw(series, dt.datetime(2026, 12, 9, 13, 0, tzinfo=SAST))
    events = AuditEvent.objects.count()
    response = manager.post(url(series), WEEKLY)
    preview = response.context["preview"]
    assert [p.scheduled_at.day for p in preview.new] == [25, 2, 16]
    refused = {p.scheduled_at.date(): p.refusal for p in preview.refused}
    assert refused[dt.date(2026, 11, 18)] == (
        "Every ticket window of this draw would already be closed: choose a later date or time."
    )
    assert refused[dt.date(2026, 12, 9)] == "Test cash draw already has this draw."
    assert "runs 01 Nov 2026 \N{EN DASH} 20 Dec 2026; 23 Dec 2026 is after its end." in refused[dt.date(2026, 12, 23)]
    assert "30 Dec 2026 is after its end" in refused[dt.date(2026, 12, 30)]
    page = text(response)
    assert "3 draws to schedule" in page and "4 not scheduled" in page
    assert "Wed 25 Nov 2026 13:00" in page and "08:00 \N{EN DASH} 12:55" in page
    assert "Schedule 3 draws" in page
    assert list(Draw.objects.values_list("pk", flat=True)) == [taken.pk]
    assert AuditEvent.objects.count() == events


@time_machine.travel(NOW, tick=False)
def test_confirming_schedules_exactly_the_previewed_draws(manager, series):
    preview = manager.post(url(series), WEEKLY).context["preview"]
    response = manager.post(url(series), WEEKLY | {"confirm": preview.digest})
    assert response.status_code == 302
    assert [d.scheduled_at for d in Draw.objects.filter(series=series)] == preview.moments
    follow = text(manager.get(response["Location"]))
    assert "4 draws scheduled for Test cash draw, from Wed 25 Nov 2026 13:00 to Wed 16 Dec 2026 13:00." in follow


@time_machine.travel(NOW, tick=False)
def test_a_confirm_of_a_preview_that_no_longer_holds_writes_nothing_and_shows_the_new_preview(manager, series):
    preview = manager.post(url(series), WEEKLY).context["preview"]
    make_draw(series, dt.datetime(2026, 12, 2, 13, 0, tzinfo=SAST))  # another manager, meanwhile
    response = manager.post(url(series), WEEKLY | {"confirm": preview.digest})
    assert response.status_code == 200
    assert "The schedule changed since the preview you confirmed" in text(response)
    assert Draw.objects.filter(series=series).count() == 1
    assert [p.scheduled_at.day for p in response.context["preview"].new] == [25, 9, 16]


@time_machine.travel(NOW, tick=False)
def test_edited_fields_are_previewed_again_not_scheduled(manager, series):
    preview = manager.post(url(series), WEEKLY).context["preview"]
    response = manager.post(url(series), WEEKLY | {"time": "14:00", "confirm": preview.digest})
    assert response.status_code == 200
    assert not Draw.objects.exists()


@time_machine.travel(NOW, tick=False)
def test_nothing_to_schedule_offers_no_confirm(manager, series):
    response = manager.post(url(series), {"dates": "2026-11-18 13:00"})
    assert "Nothing to schedule" in text(response)
    assert 'name="confirm"' not in response.content.decode()


@time_machine.travel(NOW, tick=False)
def test_a_moved_draws_old_time_is_skipped_with_where_it_went(series):
    draw = make_draw(series, dt.datetime(2026, 12, 2, 13, 0, tzinfo=SAST))
    draw_move(
        actor=Actor.system("t"), draw_id=draw.pk, scheduled_at=dt.datetime(2026, 12, 3, 13, 0, tzinfo=SAST), reason="x"
    )
    plan = series_schedule_plan(series=series, moments=[dt.datetime(2026, 12, 2, 13, 0, tzinfo=SAST)])
    assert plan[0].refusal == ("The draw of this time was moved to Thu 03 Dec 2026 13:00; it is not scheduled again.")
    assert plan[0].already_there


@time_machine.travel(NOW, tick=False)
def test_the_service_refuses_the_lot_when_one_moment_is_refused(series):
    moments = [dt.datetime(2026, 12, 2, 13, 0, tzinfo=SAST), dt.datetime(2026, 12, 30, 13, 0, tzinfo=SAST)]
    with pytest.raises(Exception, match="Wed 30 Dec 2026 13:00: Test promotion runs"):
        series_schedule_draws(actor=Actor.system("t"), series=series, moments=moments)
    assert not Draw.objects.exists()


@time_machine.travel(NOW, tick=False)
def test_the_schedule_page_links_back_to_the_promotion_and_series(manager, series):
    page = manager.get(url(series)).content.decode()
    assert f'href="{reverse("promotions:detail", args=[series.promotion_id])}#series-{series.pk}"' in page
    assert 'aria-label="Breadcrumb"' in page


def test_the_desk_and_the_auditor_may_not_schedule(desk, auditor, series):
    assert desk.get(url(series)).status_code == 403
    assert auditor.post(url(series), WEEKLY).status_code == 403
