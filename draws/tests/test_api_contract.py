"""The OpenAPI document says what the API answers: every status and code it documents for an
operation is answered by a representative request, and nothing answered goes undocumented
(issue 6, 2.9)."""

# ruff: noqa: F811 - the API fixtures (draw, member, ehost) are imported from test_api

import datetime as dt
import re
from collections.abc import Callable

import pytest
import time_machine
from django.test import Client

from core.audit import Actor
from draws.models import Draw
from draws.services import device_token_create
from draws.tests.test_api import DRAW_AT, IN_WINDOW, draw, member  # noqa: F401 (fixtures)
from members.models import Member
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory
from promotions.models import DrawMethod, EarningRule, Promotion, PromotionStatus

pytestmark = pytest.mark.django_db

CARD = "5000000001"
DRAWS = "/api/v1/members/{card_number}/draws"
ACTIVATIONS = "/api/v1/activations"
ACTIVITY = "/api/v1/members/{card_number}/activity"


class Api:
    """Clients for each kind of device, and requests shaped for the table below."""

    def __init__(self, reference_data, draw, monkeypatch, settings):
        self.draw, self.monkeypatch, self.settings = draw, monkeypatch, settings
        self.ehost, self.app, self.feed = (self.client(reference_data, kind) for kind in ("ehost", "app", "feed"))
        self.gh_ehost = self.client(reference_data, "ehost", prop="GH")

    @staticmethod
    def client(reference_data, kind: str, prop: str = "GRC") -> Client:
        _, token = device_token_create(
            actor=Actor.system("t"), prop=reference_data["properties"][prop], name=f"{prop}-{kind}", kind=kind
        )
        # A representative 500 must come back as an answer, not as the test's exception.
        return Client(headers={"Authorization": f"Bearer {token}"}, raise_request_exception=False)

    def draws(self, client=None, card=CARD):
        return (client or self.ehost).get(f"/api/v1/members/{card}/draws")

    def activate(self, client=None, card=CARD, **body):
        body = {"card_number": card, "draw_id": self.draw.pk, **body}
        return (client or self.ehost).post(ACTIVATIONS, body, content_type="application/json")

    def report(self, client=None, card=CARD, body=None):
        return (client or self.feed).put(
            f"/api/v1/members/{card}/activity", body or {"playing": True}, content_type="application/json"
        )

    def raw(self, method: str, path: str, body: str):
        return self.ehost.generic(method, path.format(card_number=CARD), body, content_type="application/json")

    def too_large(self, method: str, path: str):
        self.settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
        client = self.feed if path == ACTIVITY else self.ehost
        return client.generic(method, path.format(card_number=CARD), "{" + " " * 200 + "}")

    def broken(self, target: str, request: Callable):
        def fault(*args, **kwargs):
            raise RuntimeError("a fault")

        self.monkeypatch.setattr(target, fault)
        return request()

    def already_activated(self):
        assert self.activate().status_code == 201
        return self.activate()

    def window_closed(self):
        with time_machine.travel(DRAW_AT - dt.timedelta(minutes=5), tick=False):
            return self.activate()

    def not_published(self):
        Promotion.objects.filter(pk=self.draw.series.promotion_id).update(status=PromotionStatus.DRAFT)
        return self.activate()

    def raps_session(self):
        Draw.objects.filter(pk=self.draw.pk).update(method=DrawMethod.RAPS)
        return self.activate()

    def excluded(self):
        excluded = MemberFactory(card_number="5000000003")
        ExclusionFactory(id_type=excluded.id_type, id_number=excluded.id_number)
        return self.activate(card="5000000003")

    def rule_unreadable(self):
        EarningRule.objects.filter(series=self.draw.series).update(free_tickets_by_tier=[5])
        return self.activate()

    def rule_changed(self):
        # Another manager saves the rule between the count and the draw lock.
        from draws import services

        at_once = services._activate_at_once

        def after_a_save(**kwargs):
            EarningRule.objects.filter(series=self.draw.series).update(points_per_ticket=50)
            return at_once(**kwargs)

        self.monkeypatch.setattr(services, "_activate_at_once", after_a_save)
        return self.activate()

    def is_proxy(self):
        from proxies.tests.factories import nominate

        participant = MemberFactory(card_number="5000000004")
        PointsEntryFactory(member=participant, points=500, earned_at=IN_WINDOW - dt.timedelta(days=1))
        assert self.activate(card="5000000004").status_code == 201
        nominate(participant=participant, draw=self.draw, nominee=Member.objects.get(card_number=CARD))
        return self.activate()

    def no_points(self):
        MemberFactory(card_number="5000000002")
        return self.activate(card="5000000002")


# (method, path, status, code) -> a request that gets that answer.
REPRESENTATIVE: dict[tuple[str, str, int, str], Callable[[Api], object]] = {
    ("get", DRAWS, 200, ""): lambda api: api.draws(),
    ("get", DRAWS, 401, "unauthorized"): lambda api: api.draws(client=Client()),
    ("get", DRAWS, 404, "unknown_card"): lambda api: api.draws(card="9999999999"),
    ("get", DRAWS, 413, "payload_too_large"): lambda api: api.too_large("GET", DRAWS),
    ("get", DRAWS, 422, "bad_request"): lambda api: api.draws(card="not-a-card"),
    ("get", DRAWS, 500, "server_error"): lambda api: api.broken("draws.api.member_open_draws", api.draws),
    ("post", ACTIVATIONS, 201, ""): lambda api: api.activate(),
    ("post", ACTIVATIONS, 400, "bad_request"): lambda api: api.raw("POST", ACTIVATIONS, "{not json"),
    ("post", ACTIVATIONS, 401, "unauthorized"): lambda api: api.activate(client=Client()),
    ("post", ACTIVATIONS, 403, "wrong_device"): lambda api: api.activate(client=api.feed),
    ("post", ACTIVATIONS, 403, "wrong_property"): lambda api: api.activate(client=api.gh_ehost),
    ("post", ACTIVATIONS, 403, "not_active_on_floor"): lambda api: api.activate(client=api.app),
    ("post", ACTIVATIONS, 403, "not_eligible"): Api.excluded,
    ("post", ACTIVATIONS, 403, "is_proxy"): Api.is_proxy,
    ("post", ACTIVATIONS, 404, "unknown_card"): lambda api: api.activate(card="9999999999"),
    ("post", ACTIVATIONS, 404, "unknown_draw"): lambda api: api.activate(draw_id=999_999_999),
    ("post", ACTIVATIONS, 409, "window_closed"): Api.window_closed,
    ("post", ACTIVATIONS, 409, "not_published"): Api.not_published,
    ("post", ACTIVATIONS, 409, "already_activated"): Api.already_activated,
    ("post", ACTIVATIONS, 409, "rule_changed"): Api.rule_changed,
    ("post", ACTIVATIONS, 409, "rule_unreadable"): Api.rule_unreadable,
    ("post", ACTIVATIONS, 413, "payload_too_large"): lambda api: api.too_large("POST", ACTIVATIONS),
    ("post", ACTIVATIONS, 422, "bad_request"): lambda api: api.activate(draw_id=True),
    ("post", ACTIVATIONS, 422, "no_tickets"): Api.no_points,
    ("post", ACTIVATIONS, 422, "raps_session"): Api.raps_session,
    ("post", ACTIVATIONS, 422, "bad_channel"): lambda api: api.activate(channel="app"),
    ("post", ACTIVATIONS, 500, "server_error"): lambda api: api.broken("draws.api.activation_create", api.activate),
    ("put", ACTIVITY, 200, ""): lambda api: api.report(),
    ("put", ACTIVITY, 400, "bad_request"): lambda api: api.feed.put(
        ACTIVITY.format(card_number=CARD), "{", content_type="application/json"
    ),
    ("put", ACTIVITY, 401, "unauthorized"): lambda api: api.report(client=Client()),
    ("put", ACTIVITY, 403, "wrong_device"): lambda api: api.report(client=api.ehost),
    ("put", ACTIVITY, 404, "unknown_card"): lambda api: api.report(card="9999999999"),
    ("put", ACTIVITY, 413, "payload_too_large"): lambda api: api.too_large("PUT", ACTIVITY),
    ("put", ACTIVITY, 422, "bad_request"): lambda api: api.report(body={"playing": "yes"}),
    ("put", ACTIVITY, 500, "server_error"): lambda api: api.broken("draws.api.member_set_playing", api.report),
}


def documented_answers(spec: dict) -> set[tuple[str, str, int, str]]:
    """(method, path, status, code) for each answer the document lists; "" for a success."""
    answers = set()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                codes = re.findall(r"`([a-z_]+)`", response["description"]) if int(status) >= 400 else [""]
                answers.update((method, path, int(status), code) for code in codes)
    return answers


def schema_of(spec: dict, schema: dict) -> dict:
    ref = schema.get("$ref") or schema.get("items", {}).get("$ref")
    return spec["components"]["schemas"][ref.rsplit("/", 1)[1]]


@pytest.fixture
def spec(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_every_documented_answer_has_a_representative_request_and_no_more(spec):
    assert documented_answers(spec) == set(REPRESENTATIVE)


@pytest.mark.parametrize(("method", "path", "status", "code"), list(REPRESENTATIVE))
@time_machine.travel(IN_WINDOW, tick=False)
def test_the_api_answers_as_documented(
    spec, reference_data, draw, member, monkeypatch, settings, *, method, path, status, code
):
    api = Api(reference_data, draw, monkeypatch, settings)
    response = REPRESENTATIVE[method, path, status, code](api)
    assert response.status_code == status, response.content[:200]
    assert response["Content-Type"].startswith("application/json")
    documented = spec["paths"][path][method]["responses"][str(status)]
    schema = schema_of(spec, documented["content"]["application/json"]["schema"])
    body = response.json()
    for row in body if isinstance(body, list) else [body]:
        assert set(schema["required"]) <= set(row) <= set(schema["properties"])
    if code:
        assert body["code"] == code and f"`{code}`" in documented["description"]


def test_the_channel_offered_is_one_a_token_can_use(spec):
    channel = spec["components"]["schemas"]["ActivationIn"]["properties"]["channel"]
    (offered,) = [option["enum"] for option in channel["anyOf"] if "enum" in option]
    assert sorted(offered) == ["app", "ehost"]


def test_the_card_number_and_draw_id_are_documented_strictly(spec):
    activation = spec["components"]["schemas"]["ActivationIn"]
    assert activation["properties"]["card_number"]["pattern"] == "^[0-9]{6,20}$"
    assert activation["properties"]["draw_id"]["type"] == "integer"
    assert activation["additionalProperties"] is False
    (parameter,) = spec["paths"][DRAWS]["get"]["parameters"]
    assert parameter["schema"]["pattern"] == "^[0-9]{6,20}$"


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
def test_every_path_answers_a_method_it_does_not_offer_with_a_json_405(spec, reference_data, method):
    client = Api.client(reference_data, "ehost")
    for path, operations in spec["paths"].items():
        if method in operations:
            continue
        response = getattr(client, method)(path.format(card_number=CARD))
        assert (response.status_code, response.json()["code"]) == (405, "method_not_allowed"), path
        assert response["Allow"] == ", ".join(sorted(m.upper() for m in operations))
