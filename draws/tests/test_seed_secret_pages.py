"""A draw's seed is read by nobody before the draw is complete (issue 12, requirement 2), through
the project's own pages as well as the admin (core/tests/test_admin_secrets.py): the draw's page,
its record, the two downloads, Verify, the draws list and its filters, the audit log and its CSV,
and the API's documented answers."""

import datetime as dt
import json

import pytest
import time_machine
from django.urls import reverse

from core.roles import AUDITOR, PROMOTIONS_MANAGER
from draws.engine import draw_start
from draws.models import Draw
from draws.tests.builders import MANAGER, SAST, closed_draw
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)


@pytest.fixture(autouse=True)
def after_the_draw_time():
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):
        yield


def secret_draws(reference_data) -> list[Draw]:
    """A closed draw waiting for Start and a running one: both seeds still secret."""
    series = make_series()
    waiting, _ = closed_draw(series, DRAW_AT, [3, 40, 7])
    running, _ = closed_draw(series, DRAW_AT - dt.timedelta(days=1), [5, 5])
    assert draw_start(actor=MANAGER, draw_id=running.pk, witness_name="Thandi Witness")
    return [Draw.objects.get(pk=waiting.pk), Draw.objects.get(pk=running.pk)]


def body(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


@pytest.mark.parametrize("role", [PROMOTIONS_MANAGER, AUDITOR])
def test_no_page_or_download_shows_a_seed_before_the_draw_is_complete(reference_data, client_for, role):
    draws = secret_draws(reference_data)
    client = client_for(role)
    urls = [reverse("draws:list"), reverse("draws:list") + "?when=all", reverse("audit"), reverse("audit_csv")]
    for draw in draws:
        urls += [
            reverse(f"draws:{name}", args=[draw.pk])
            for name in ("detail", "record", "record_json", "record_entries", "record_verify")
        ]
        urls += [reverse("audit") + f"?object_type=draws.draw&object_id={draw.pk}"]
    shown = []
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        text = body(response)
        shown += [f"{url} shows the seed of draw {draw.pk}" for draw in draws if draw.seed_hex in text]
    assert shown == []
    for draw in draws:
        record = json.loads(client.get(reverse("draws:record_json", args=[draw.pk])).content)
        assert record["seed"] == {"sha256": draw.seed_sha256, "hex": None}


def test_the_draws_list_takes_no_filter_on_the_seed(reference_data, manager):
    waiting, _ = secret_draws(reference_data)
    url = reverse("draws:list")

    def listed(params) -> list[int]:
        response = manager.get(url, {"when": "all", **params})
        assert response.status_code == 200
        return [draw.pk for draw in response.context["page"]]

    prefix = waiting.seed_hex[:8]
    other = "".join("1" if ch == "0" else "0" for ch in prefix)
    for key in ("seed_hex__startswith", "seed_hex", "seed"):
        assert listed({key: prefix}) == listed({key: other}) == listed({})


def test_the_api_documents_no_seed(client):
    schema = client.get(reverse("api:openapi-json")).json()
    assert "seed_hex" not in json.dumps(schema)
