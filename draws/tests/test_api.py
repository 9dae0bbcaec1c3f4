import datetime as dt

import pytest
import time_machine
from django.core.management import call_command
from django.test import Client

from core.audit import Actor
from core.models import AuditEvent
from draws.models import Activation
from draws.services import device_token_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from proxies.tests.factories import nominate  # tests may reach above draws

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(points_per_ticket=100), DRAW_AT)


@pytest.fixture
def member(reference_data):
    member = MemberFactory(card_number="5000000001")
    PointsEntryFactory(member=member, points=420, earned_at=DRAW_AT - dt.timedelta(days=1))
    return member


@pytest.fixture
def ehost(reference_data):
    _, token = device_token_create(actor=Actor.system("test"), prop=reference_data["properties"]["GRC"], name="ehost-1")
    return Client(headers={"Authorization": f"Bearer {token}"})


def post(client, body, **extra):
    return client.post("/api/v1/activations", body, content_type="application/json", **extra)


@time_machine.travel(IN_WINDOW, tick=False)
def test_an_ehost_lists_the_open_draws_then_activates_and_gets_a_receipt(ehost, draw, member):
    listing = ehost.get("/api/v1/members/5000000001/draws")
    assert listing.status_code == 200
    (row,) = listing.json()
    assert (row["draw_id"], row["tickets_available"], row["activation"]) == (draw.pk, 4, None)

    response = post(ehost, {"card_number": "5000000001", "draw_id": draw.pk, "channel": "ehost"})
    assert response.status_code == 201
    receipt = response.json()
    assert (receipt["first_serial"], receipt["last_serial"], receipt["tickets"]) == (1, 4, 4)
    assert receipt["receipt_number"] == Activation.objects.get().receipt_number

    (row,) = ehost.get("/api/v1/members/5000000001/draws").json()
    assert row["tickets_available"] == 0 and row["activation"]["receipt_number"] == receipt["receipt_number"]
    assert AuditEvent.objects.get(action="tickets.activated").actor_label == "device:GRC:ehost-1"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"card_number": "5000000001", "draw_id": "not-a-number"}, 422, "bad_request"),
        ({"card_number": "5000000001"}, 422, "bad_request"),
        ({"card_number": "5000000001", "draw_id": 999999}, 404, "unknown_draw"),
        ({"card_number": "9999999999", "draw_id": "DRAW"}, 404, "unknown_card"),
        ({"card_number": "5000000001", "draw_id": "DRAW", "channel": "fax"}, 422, "bad_request"),
        ({"card_number": "5000000001", "draw_id": "DRAW", "channel": "app"}, 422, "bad_channel"),
    ],
)
@time_machine.travel(IN_WINDOW, tick=False)
def test_bad_requests_are_refused_with_a_stable_code(ehost, draw, member, body, status, code):
    body = {k: (draw.pk if v == "DRAW" else v) for k, v in body.items()}
    response = post(ehost, body)
    assert (response.status_code, response.json()["code"]) == (status, code)
    assert response.json()["detail"]
    assert not Activation.objects.exists()


def test_malformed_json_is_a_bad_request(ehost, draw):
    response = ehost.post("/api/v1/activations", "{not json", content_type="application/json")
    assert response.status_code in (400, 422) and response.json()["code"] == "bad_request"


@pytest.mark.parametrize("header", [None, "Bearer wrong-token", "Token abc"])
def test_a_missing_or_wrong_token_is_unauthorised(draw, member, header):
    client = Client(headers={"Authorization": header} if header else {})
    response = post(client, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (response.status_code, response.json()["code"]) == (401, "unauthorized")


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_revoked_token_is_unauthorised(reference_data, draw, member):
    device, token = device_token_create(actor=Actor.system("t"), prop=reference_data["properties"]["GRC"], name="x")
    device.is_active = False
    device.save()
    response = post(
        Client(headers={"Authorization": f"Bearer {token}"}), {"card_number": "5000000001", "draw_id": draw.pk}
    )
    assert response.status_code == 401


@time_machine.travel(IN_WINDOW, tick=False)
def test_another_propertys_device_is_refused(reference_data, draw, member):
    _, token = device_token_create(actor=Actor.system("t"), prop=reference_data["properties"]["GH"], name="gh-ehost")
    response = post(
        Client(headers={"Authorization": f"Bearer {token}"}), {"card_number": "5000000001", "draw_id": draw.pk}
    )
    assert (response.status_code, response.json()["code"]) == (403, "wrong_property")


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_second_activation_is_a_conflict(ehost, draw, member):
    assert post(ehost, {"card_number": "5000000001", "draw_id": draw.pk}).status_code == 201
    response = post(ehost, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (response.status_code, response.json()["code"]) == (409, "already_activated")


@time_machine.travel(dt.datetime(2025, 10, 15, 12, 55, tzinfo=SAST), tick=False)
def test_activation_after_the_window_is_a_conflict(ehost, draw, member):
    response = post(ehost, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (response.status_code, response.json()["code"]) == (409, "window_closed")


def token_client(reference_data, name: str, kind: str, prop: str = "GRC") -> Client:
    prop = reference_data["properties"][prop]
    _, token = device_token_create(actor=Actor.system("t"), prop=prop, name=name, kind=kind)
    return Client(headers={"Authorization": f"Bearer {token}"})


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_gaming_feed_sets_playing_and_then_the_app_may_activate(reference_data, draw, member):
    feed, app = token_client(reference_data, "cms-feed", "feed"), token_client(reference_data, "app", "app")
    refused = post(app, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (refused.status_code, refused.json()["code"]) == (403, "not_active_on_floor")
    response = feed.put("/api/v1/members/5000000001/activity", {"playing": True}, content_type="application/json")
    assert response.status_code == 200 and response.json()["playing"] is True
    created = post(app, {"card_number": "5000000001", "draw_id": draw.pk})
    assert created.status_code == 201 and created.json()["channel"] == "app"
    assert AuditEvent.objects.filter(action="member.activity_changed").count() == 1


def test_playing_reported_long_ago_does_not_let_the_app_in(reference_data, draw, member):
    feed, app = token_client(reference_data, "cms-feed", "feed"), token_client(reference_data, "app", "app")
    with time_machine.travel(IN_WINDOW - dt.timedelta(minutes=11), tick=False):
        feed.put("/api/v1/members/5000000001/activity", {"playing": True}, content_type="application/json")
    with time_machine.travel(IN_WINDOW, tick=False):
        refused = post(app, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (refused.status_code, refused.json()["code"]) == (403, "not_active_on_floor")


def report_playing(feed: Client, card: str = "5000000001"):
    response = feed.put(f"/api/v1/members/{card}/activity", {"playing": True}, content_type="application/json")
    assert response.status_code == 200
    return response


@time_machine.travel(IN_WINDOW, tick=False)
def test_play_reported_by_another_propertys_feed_does_not_let_the_app_in(reference_data, draw, member):
    report_playing(token_client(reference_data, "gh-feed", "feed", prop="GH"))
    refused = post(token_client(reference_data, "grc-app", "app"), {"card_number": "5000000001", "draw_id": draw.pk})
    assert (refused.status_code, refused.json()["code"]) == (403, "not_active_on_floor")
    assert refused.json()["detail"] == (
        "The app accepts entries only while the member is actively playing at Gold Reef City."
    )
    assert not Activation.objects.exists()


@time_machine.travel(IN_WINDOW, tick=False)
def test_play_reported_by_the_draws_own_property_lets_the_app_in(reference_data, draw, member):
    report_playing(token_client(reference_data, "grc-feed", "feed"))
    created = post(token_client(reference_data, "grc-app", "app"), {"card_number": "5000000001", "draw_id": draw.pk})
    assert created.status_code == 201 and created.json()["channel"] == "app"
    event = AuditEvent.objects.get(action="member.activity_changed")
    assert event.data == {"playing": True, "property": "GRC"}


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_member_who_moves_to_another_casino_no_longer_plays_at_the_first(reference_data, draw, member):
    report_playing(token_client(reference_data, "grc-feed", "feed"))
    report_playing(token_client(reference_data, "gh-feed", "feed", prop="GH"))
    refused = post(token_client(reference_data, "grc-app", "app"), {"card_number": "5000000001", "draw_id": draw.pk})
    assert (refused.status_code, refused.json()["code"]) == (403, "not_active_on_floor")
    assert AuditEvent.objects.filter(action="member.activity_changed").count() == 2


def test_a_stale_report_from_the_draws_own_property_does_not_let_the_app_in(reference_data, draw, member, settings):
    settings.PLAYING_FRESH_MINUTES = 10
    with time_machine.travel(IN_WINDOW - dt.timedelta(minutes=10, seconds=1), tick=False):
        report_playing(token_client(reference_data, "grc-feed", "feed"))
    with time_machine.travel(IN_WINDOW, tick=False):
        refused = post(
            token_client(reference_data, "grc-app", "app"), {"card_number": "5000000001", "draw_id": draw.pk}
        )
    assert (refused.status_code, refused.json()["code"]) == (403, "not_active_on_floor")


@time_machine.travel(IN_WINDOW, tick=False)
def test_only_the_feed_reports_play_and_the_feed_cannot_activate(reference_data, ehost, draw, member):
    response = ehost.put("/api/v1/members/5000000001/activity", {"playing": True}, content_type="application/json")
    assert (response.status_code, response.json()["code"]) == (403, "wrong_device")
    feed = token_client(reference_data, "cms-feed", "feed")
    response = post(feed, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (response.status_code, response.json()["code"]) == (403, "wrong_device")
    assert not Activation.objects.exists()


def test_the_openapi_schema_is_published(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    assert "/api/v1/activations" in response.json()["paths"]


def test_create_device_token_prints_a_working_token(reference_data, capsys, draw, member):
    call_command("create_device_token", "--property", "GRC", "--name", "kiosk-7")
    token = capsys.readouterr().out.strip()
    assert len(token) > 30
    with time_machine.travel(IN_WINDOW, tick=False):
        response = Client(headers={"Authorization": f"Bearer {token}"}).get("/api/v1/members/5000000001/draws")
    assert response.status_code == 200


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_kiosk_never_shows_why_a_member_is_excluded(ehost, draw, member):
    from members.tests.factories import ExclusionFactory

    ExclusionFactory(
        id_type=member.id_type,
        id_number=member.id_number,
        reason="Refusal of Entry order 17/2025",
        starts_at=DRAW_AT - dt.timedelta(days=5),
    )
    (row,) = ehost.get("/api/v1/members/5000000001/draws").json()
    response = post(ehost, {"card_number": "5000000001", "draw_id": draw.pk})
    assert response.json()["code"] == "not_eligible"
    for text in (str(row), response.json()["detail"]):
        assert "Refusal" not in text and "please see the Rewards desk" in text


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_registered_proxy_cannot_activate_through_the_api(ehost, draw, member):
    participant = MemberFactory(card_number="5000000002")
    PointsEntryFactory(member=participant, points=420, earned_at=DRAW_AT - dt.timedelta(days=1))
    assert post(ehost, {"card_number": "5000000002", "draw_id": draw.pk}).status_code == 201
    nominate(participant=participant, draw=draw, nominee=member)

    response = post(ehost, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (response.status_code, response.json()["code"]) == (403, "is_proxy")
    assert "registered as a proxy" in response.json()["detail"]
    assert not Activation.objects.filter(member=member).exists()
