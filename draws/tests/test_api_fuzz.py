"""Property-based test of the device API (issue 6, 2.7 and 2.9): whatever path, method, headers
and body a device sends with a valid token, the answer is never a 5xx, is always JSON, and every
error is {"code", "detail"} with a stable code and a short printable detail.

Bounded and deterministic: a fixed number of examples per endpoint, derandomized, no example
database, so that it cannot flake and fails the same way on every machine.
"""

# ruff: noqa: F811 - the API fixtures (draw, member, ehost) are imported from test_api

import json
from urllib.parse import quote

import pytest
import time_machine
from django.test import Client
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from core.audit import Actor
from core.errors import ERRORS
from draws.api_errors import DEFAULT_PROBLEM
from draws.services import device_token_create
from draws.tests.test_api import IN_WINDOW, draw, member  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

CARD = "5000000001"
KNOWN_CODES = set(ERRORS) | {code for code, _ in DEFAULT_PROBLEM.values()}
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    # The draw, member and tokens are made once per endpoint; examples share them on purpose
    # (an activation made by one example is "already_activated" for the next).
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

lone_surrogates = st.integers(0xD800, 0xDFFF).map(chr)
# Text an error must never echo whole: long, or made of control characters and lone surrogates.
hostile_text = st.one_of(
    st.integers(41, 200_000).map(lambda n: "5" * n),
    st.text(alphabet=st.one_of(lone_surrogates, st.sampled_from("\x00\x1b\n\r\u202e\ufeff")), min_size=1),
)
FULL_WIDTH_CARD = "５０００００００００１"  # digits to Python's str.isdigit, not to us  # noqa: RUF001
nasty_text = st.one_of(
    st.text(alphabet=st.one_of(st.characters(), lone_surrogates), max_size=40),
    st.sampled_from(["", " ", "\x00", CARD, CARD + "\x00", "9999999999", FULL_WIDTH_CARD, "-1", "1e3", "null"]),
    hostile_text,
)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 2**31, 2**63 - 1, 2**63, 2**64, 10**30, 1.0, 1e308]),  # the edges of a column
    st.floats(allow_nan=True, allow_infinity=True),
    nasty_text,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(nasty_text, inner, max_size=4)),
    max_leaves=12,
)


def body_for(fields: dict) -> st.SearchStrategy:
    """A body for an endpoint taking `fields`: a valid object (so that the examples reach the
    rules behind the validation too), one with a field junk, left out or an extra key, any JSON
    value, or bytes that are not JSON at all."""
    valid = st.fixed_dictionaries(fields)
    if not fields:
        return st.one_of(valid, json_values).map(lambda v: json.dumps(v, ensure_ascii=True).encode())
    one_off = st.tuples(valid, st.sampled_from(sorted(fields)), json_values, hostile_text).flatmap(
        lambda t: st.sampled_from(
            [{**t[0], t[1]: t[2]}, {k: v for k, v in t[0].items() if k != t[1]}, {**t[0], t[3]: t[2]}]
        )
    )
    not_json = st.one_of(
        st.binary(max_size=64),
        nasty_text.map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.just(b"[" * 100_000),  # deeper than the JSON parser recurses
        st.just(b"1" * 5000),  # more digits than Python converts
    )
    as_json = [strategy.map(lambda v: json.dumps(v, ensure_ascii=True).encode()) for strategy in (valid, one_off)]
    return st.one_of(*as_json, json_values.map(lambda v: json.dumps(v, ensure_ascii=True).encode()), not_json)


header_text = st.text(alphabet=st.characters(max_codepoint=255, exclude_characters="\r\n"), max_size=60)
content_types = st.one_of(
    st.sampled_from(
        ["application/json", "text/plain", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded", ""]
    ),
    header_text,
)
path_cards = st.one_of(st.just(CARD), st.sampled_from(["9999999999", "", "%00", ".."]), nasty_text).map(
    lambda card: quote(card.encode("utf-8", "surrogatepass"), safe="")
)
query_strings = st.one_of(st.just(""), header_text.map(lambda q: "?" + quote(q, safe="=&")))

# name: (method, path, body fields with their valid values, the token kind it is meant for)
ENDPOINTS = {
    "open_draws": ("GET", "/api/v1/members/{card}/draws", {}, "ehost"),
    "activate": (
        "POST",
        "/api/v1/activations",
        {
            "card_number": st.sampled_from([CARD, "9999999999"]),
            "draw_id": st.just("DRAW"),
            "channel": st.sampled_from(["ehost", "app", None]),  # one of them is the token's
        },
        "ehost",
    ),
    "activity": ("PUT", "/api/v1/members/{card}/activity", {"playing": st.booleans()}, "feed"),
}


def assert_well_formed(response, method: str) -> None:
    assert response.status_code < 500, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response.content[:300]
    if method == "HEAD":
        return  # no body to a HEAD
    body = json.loads(response.content)
    if response.status_code >= 400:
        assert isinstance(body, dict) and set(body) == {"code", "detail"}, body
        assert body["code"] in KNOWN_CODES, body
        assert isinstance(body["detail"], str) and body["detail"].isprintable() and len(body["detail"]) < 300, body


@pytest.fixture
def tokens(reference_data):
    def token(kind: str) -> str:
        prop = reference_data["properties"]["GRC"]
        return device_token_create(actor=Actor.system("fuzz"), prop=prop, name=f"fuzz-{kind}", kind=kind)[1]

    return {kind: token(kind) for kind in ("ehost", "app", "feed")}


@pytest.mark.slow  # pinned to IN_WINDOW: the hour of the run changes nothing
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
@time_machine.travel(IN_WINDOW, tick=False)
@FUZZ
@given(data=st.data())
def test_no_request_gets_a_server_error_or_a_malformed_answer(draw, member, tokens, endpoint, data):
    main_method, path, fields, main_kind = ENDPOINTS[endpoint]
    method = data.draw(st.one_of(st.just(main_method), st.sampled_from(METHODS)), label="method")
    url = path.format(card=data.draw(path_cards, label="card")) + data.draw(query_strings, label="query")
    body = data.draw(st.one_of(st.just(b""), body_for(fields)), label="body")
    body = body.replace(b'"DRAW"', str(draw.pk).encode())
    headers = data.draw(
        st.dictionaries(
            st.sampled_from(["Accept", "Accept-Encoding", "X-Forwarded-For", "If-None-Match", "Origin", "Cookie"]),
            header_text,
            max_size=3,
        ),
        label="headers",
    )
    token = tokens[data.draw(st.one_of(st.just(main_kind), st.sampled_from(sorted(tokens))), label="token")]
    client = Client(headers={**headers, "Authorization": f"Bearer {token}"})
    response = client.generic(method, url, body, content_type=data.draw(content_types, label="content_type"))

    assert_well_formed(response, method)
    answer = json.loads(response.content or b"null")
    # What the examples reached, for --hypothesis-show-statistics.
    event(f"{method} {response.status_code} {answer.get('code', '') if isinstance(answer, dict) else ''}")


def test_a_four_megabyte_card_number_is_answered_briefly(draw, member, tokens):
    client = Client(headers={"Authorization": f"Bearer {tokens['ehost']}"})
    body = json.dumps({"card_number": "5" * 4 * 1024 * 1024, "draw_id": draw.pk})
    response = client.post("/api/v1/activations", body, content_type="application/json")
    assert_well_formed(response, "POST")
    assert response.status_code == 422 and len(response.content) < 300
