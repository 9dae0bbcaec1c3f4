"""Every error under /api/ is JSON {"code", "detail"} with a stable code, whatever raised it, and
echoes no more than a short prefix of what the client sent (issue 6, 2.9)."""

# ruff: noqa: F811 - the API fixtures (draw, member, ehost) are imported from test_api

import json

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from draws.models import Activation
from draws.tests.test_api import IN_WINDOW, draw, ehost, member, post  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def problem(response) -> dict:
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"code", "detail"} and all(isinstance(v, str) and v for v in body.values())
    return body


def test_a_body_over_the_size_limit_is_refused_as_too_large_before_it_is_read(ehost, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    response = ehost.post("/api/v1/activations", "x" * 1025, content_type="application/json")
    assert (response.status_code, problem(response)["code"]) == (413, "payload_too_large")


def test_a_body_at_the_size_limit_is_read(ehost, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    response = ehost.post("/api/v1/activations", "x" * 1024, content_type="application/json")
    assert (response.status_code, problem(response)["code"]) == (400, "bad_request")


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("get", "/api/v1/activations", "POST"),
        ("delete", "/api/v1/members/5000000001/draws", "GET"),
        ("post", "/api/v1/members/5000000001/activity", "PUT"),
    ],
)
def test_a_method_the_path_does_not_offer_is_a_json_405_with_the_allowed_ones(ehost, method, path, allowed):
    response = getattr(ehost, method)(path)
    assert (response.status_code, problem(response)["code"]) == (405, "method_not_allowed")
    assert response["Allow"] == allowed


def test_an_unknown_address_under_the_api_is_a_json_404(ehost):
    response = ehost.get("/api/v1/no-such-thing")
    assert (response.status_code, problem(response)["code"]) == (404, "not_found")


def test_pages_outside_the_api_keep_their_html_errors(client):
    response = client.get("/no-such-page/")
    assert response.status_code in (302, 404)  # a stranger is sent to log in first
    assert not response.get("Content-Type", "").startswith("application/json")


@pytest.mark.parametrize("debug", [False, True])
@time_machine.travel(IN_WINDOW, tick=False)
def test_a_fault_is_a_json_500_that_shows_no_internals(ehost, member, monkeypatch, settings, debug):
    settings.DEBUG = debug  # in DEBUG, ninja answers a plain-text traceback of its own

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals: password=hunter2")

    monkeypatch.setattr("draws.api.member_open_draws", broken)
    ehost.raise_request_exception = False
    response = ehost.get("/api/v1/members/5000000001/draws")
    assert (response.status_code, problem(response)["code"]) == (500, "server_error")
    assert b"secret" not in response.content and b"Traceback" not in response.content


def test_a_body_that_is_not_json_is_a_documented_400(ehost):
    response = ehost.post("/api/v1/activations", "{not json", content_type="application/json")
    assert (response.status_code, problem(response)["code"]) == (400, "bad_request")
    assert response.json()["detail"] == "The request body is not valid JSON."


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("draw_id", True),  # once taken as draw 1
        ("draw_id", "DRAW"),  # the draw's id as a string
        ("draw_id", 1.0),
        ("draw_id", 2**63),  # past BigAutoField: refused, not sent to the database
        ("draw_id", 0),
        ("card_number", 5000000001),  # a number, not a string
        ("card_number", "50000"),  # too short
        ("card_number", "5" * 21),  # too long
        ("card_number", "5000000001 "),
        ("card_number", "５０００００００００１"),  # full-width digits are digits to Python, not to us  # noqa: RUF001
        ("card_number", "5000\x0000001"),
        ("channel", "desk"),  # no token activates as the desk
        ("channel", True),
        ("unexpected", "x"),  # a misspelt field is refused, not ignored
    ],
)
@time_machine.travel(IN_WINDOW, tick=False)
def test_it_refuses_a_wrongly_typed_field_before_looking_anything_up(ehost, draw, member, field, value):
    body = {"card_number": "5000000001", "draw_id": draw.pk, field: str(draw.pk) if value == "DRAW" else value}
    with CaptureQueriesContext(connection) as queries:
        response = post(ehost, body)
    assert (response.status_code, problem(response)["code"]) == (422, "bad_request")
    assert field in response.json()["detail"]
    assert not [q for q in queries.captured_queries if "members_member" in q["sql"]]
    assert not Activation.objects.exists()


@pytest.mark.parametrize("value", ["yes", 1, None, "true"])
def test_the_feed_must_say_playing_as_true_or_false(reference_data, member, value):
    from draws.tests.test_api import token_client

    feed = token_client(reference_data, "cms-feed", "feed")
    response = feed.put("/api/v1/members/5000000001/activity", {"playing": value}, content_type="application/json")
    assert (response.status_code, problem(response)["code"]) == (422, "bad_request")


@pytest.mark.parametrize(
    "body",
    [
        {"card_number": "5" * 4_000_000, "draw_id": 1},
        {"card_number": "5000000001", "draw_id": 1, "k" * 100_000: 1},
        {"card_number": "5000000001", "draw_id": 1, "\x00\x01\u202e" * 10: 1},
        {"card_number": "x\ud800" * 1000, "draw_id": 1},
    ],
)
def test_an_error_echoes_no_more_than_a_short_printable_prefix_of_the_input(ehost, body):
    response = ehost.post("/api/v1/activations", json.dumps(body, ensure_ascii=True), content_type="application/json")
    detail = problem(response)["detail"]
    assert response.status_code == 422 and len(detail) < 200
    assert detail.isprintable()


def test_a_huge_card_number_in_the_path_is_refused_without_an_echo(ehost):
    response = ehost.get("/api/v1/members/" + "9" * 100_000 + "/draws")
    assert (response.status_code, problem(response)["code"]) == (422, "bad_request")
    assert len(response.content) < 200


def test_an_unknown_token_on_any_path_is_a_json_401():
    client = Client(headers={"Authorization": "Bearer nope"})
    for response in (client.get("/api/v1/members/5000000001/draws"), client.post("/api/v1/activations")):
        assert (response.status_code, problem(response)["code"]) == (401, "unauthorized")
