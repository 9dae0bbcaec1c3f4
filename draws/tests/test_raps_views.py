"""The RAPS upload page (draws:raps_upload) and the sample list (draws:raps_sample)."""

import html

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from core.models import AuditEvent
from draws.models import Draw, RapsList
from draws.raps import raps_list_parse
from draws.services import draw_close_window
from draws.tests.factories import make_draw
from draws.tests.raps_fixtures import (
    SESSION,
    UPLOAD_AT,
    csv_text,
    floor_rows,
    make_pick,
    player,
    upload,
)
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _after_the_session_started():
    with time_machine.travel(UPLOAD_AT, tick=False):
        yield


def page(response) -> str:
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def post(client, draw, content: bytes, **fields):
    data = {
        "file": SimpleUploadedFile("floor.csv", content, content_type="text/csv"),
        "min_spend": "0.00",
        "excluded": "",
        "slot_quota": "6",
        "table_quota": "4",
    } | fields
    return client.post(reverse("draws:raps_upload", args=[draw.pk]), data)


def test_a_manager_sees_the_form_with_the_series_quotas(manager, session):
    response = manager.get(reverse("draws:raps_upload", args=[session.pk]))
    text = page(response)
    assert response.context["form"].initial == {"min_spend": "0.00", "slot_quota": 6, "table_quota": 4}
    assert "No active-player list has been uploaded" in text
    assert reverse("draws:raps_sample") in text
    assert "slot:A17, table:BJ3" in text


def test_a_manager_uploads_the_list_and_sees_its_hash_and_the_seed_commitment(manager, session, floor):
    seed_at_close = session.seed_sha256
    rows = [*floor_rows(floor), f"{floor[0].card_number},slot,X1,0.50"]
    text = page(post(manager, session, ("\ufeff" + csv_text(*rows)).encode(), min_spend="1", excluded="table:BJ9"))
    draw = Draw.objects.get(pk=session.pk)
    raps_list = RapsList.objects.get(draw=draw)
    assert "The list is uploaded" in text
    assert raps_list.list_sha256 in text and draw.seed_sha256 in text
    assert draw.seed_sha256 != seed_at_close and seed_at_close not in text
    assert draw.seed_hex not in text
    assert "Spend below the minimum: 1" in text  # counted by reason
    assert "X1" in text and "R 0.50" in text  # and listed
    assert "No row of the list was played on these excluded machines: table:BJ9" in text
    assert (raps_list.file_name, raps_list.min_spend_cents, raps_list.excluded_devices) == (
        "floor.csv",
        100,
        ["table:BJ9"],
    )
    assert AuditEvent.objects.get(action="draw.raps_list_uploaded").actor_label.startswith("staff")


def test_the_page_shows_the_current_list_with_its_settings_prefilled(manager, session, floor):
    upload(session, csv_text(*floor_rows(floor)), min_spend_cents=10000, excluded_devices=["slot:Z9"])
    response = manager.get(reverse("draws:raps_upload", args=[session.pk]))
    text = page(response)
    raps_list = RapsList.objects.get()
    assert raps_list.list_sha256 in text and Draw.objects.get(pk=session.pk).seed_sha256 in text
    assert "R 100.00" in text and "Replace the list" in text
    assert response.context["form"].initial["min_spend"] == "100.00"
    assert response.context["form"].initial["excluded"] == "slot:Z9"
    assert [(p["players"], p["quota"]) for p in response.context["current"]["pools"]] == [(6, 6), (4, 4)]


def test_a_first_upload_asks_no_reason(manager, session):
    response = manager.get(reverse("draws:raps_upload", args=[session.pk]))
    assert "reason" not in response.context["form"].fields
    assert "Why is the list being replaced?" not in page(response)


def test_replacing_the_list_asks_why_and_refuses_without_a_reason(manager, session, floor):
    first = upload(session, csv_text(*floor_rows(floor)))
    assert "Why is the list being replaced?" in page(manager.get(reverse("draws:raps_upload", args=[session.pk])))
    response = post(manager, session, csv_text(*floor_rows(floor)[1:]).encode())
    assert response.context["form"].errors["reason"] == [
        "A list is already uploaded for this session: say why it is being replaced. "
        "The reason is kept in the audit log."
    ]
    assert list(RapsList.objects.values_list("pk", flat=True)) == [first.pk]
    text = page(post(manager, session, csv_text(*floor_rows(floor)[1:]).encode(), reason="Row 1 was a test card."))
    assert "The list is uploaded" in text
    assert RapsList.objects.get().pk != first.pk
    event = AuditEvent.objects.filter(action="draw.raps_list_uploaded").latest("pk")
    assert event.data["reason"] == "Row 1 was a test card."


def test_sending_the_same_list_again_needs_no_reason(manager, session, floor):
    content = csv_text(*floor_rows(floor)).encode()
    assert "The list is uploaded" in page(post(manager, session, content))
    text = page(post(manager, session, content))  # the same form, submitted twice
    assert "This is the list already uploaded" in text
    assert AuditEvent.objects.filter(action="draw.raps_list_uploaded").count() == 1


def test_bad_rows_are_listed_by_line_and_nothing_is_uploaded(manager, session, floor):
    rows = floor_rows(floor)
    rows[1] = rows[1].replace("slot", "chair")
    rows[4] = "9999999999,slot,S9,10"
    text = page(post(manager, session, csv_text(*rows).encode()))
    assert "2 of the 10 rows are wrong" in text
    assert "device type “chair” is neither slot nor table" in text
    assert "card number 9999999999 is not a member's card" in text
    assert [(e.line, e.text) for e in post(manager, session, csv_text(*rows).encode()).context["line_errors"]] == [
        (3, rows[1]),
        (6, rows[4]),
    ]
    assert not RapsList.objects.exists()


def test_a_file_that_is_not_utf8_or_a_bad_field_is_refused_on_the_form(manager, session, floor):
    latin1 = csv_text(*floor_rows(floor)[:2], "7000000002,slot,Café,1").encode("latin-1")
    assert "Line 4 is not UTF-8 text" in page(post(manager, session, latin1))
    assert "The minimum spend “R100” starts with R" in page(
        post(manager, session, csv_text(*floor_rows(floor)).encode(), min_spend="R100")
    )
    assert "“BJ3” is not a machine like slot:A17" in page(
        post(manager, session, csv_text(*floor_rows(floor)).encode(), excluded="BJ3")
    )
    assert "must add up to the session's 10 winners" in page(
        post(manager, session, csv_text(*floor_rows(floor)).encode(), slot_quota="5")
    )
    assert not RapsList.objects.exists()


def test_after_the_first_pick_the_page_shows_the_list_but_no_form(manager, session, floor):
    upload(session, csv_text(*floor_rows(floor)))
    make_pick(session, floor[0])
    response = manager.get(reverse("draws:raps_upload", args=[session.pk]))
    text = page(response)
    assert "its active-player list can no longer be replaced" in text
    assert RapsList.objects.get().list_sha256 in text
    assert 'enctype="multipart/form-data"' not in text
    assert "can no longer be replaced" in page(post(manager, session, csv_text(*floor_rows(floor)[1:]).encode()))
    assert RapsList.objects.get().entries.count() == 10


def test_a_draw_that_is_not_a_raps_session_says_so(manager, reference_data):
    draw = make_draw(make_series(windows=[{"day": 0, "open": "08:00", "close_before": 5}]), SESSION)
    draw_close_window(draw_id=draw.pk, now=SESSION)
    text = page(manager.get(reverse("draws:raps_upload", args=[draw.pk])))
    assert "This draw is not a RAPS session" in text
    assert 'enctype="multipart/form-data"' not in text


@pytest.mark.parametrize("role", ["desk", "auditor", "cashier"])
def test_only_managers_upload_a_list(request, role, session, floor):
    client = request.getfixturevalue(role)
    assert client.get(reverse("draws:raps_upload", args=[session.pk])).status_code == 403
    assert post(client, session, csv_text(*floor_rows(floor)).encode()).status_code == 403
    assert client.get(reverse("draws:raps_sample")).status_code == 403
    assert not RapsList.objects.exists()


def test_the_sample_list_is_a_list_the_upload_reads(manager, reference_data):
    response = manager.get(reverse("draws:raps_sample"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    for card in ("6000000001", "6000000002", "6000000003"):
        player(card)
    rows = raps_list_parse(response.content.decode()).rows
    assert [(r.pool, r.device_id, r.spend_cents) for r in rows] == [
        ("slot", "A17", 150000),
        ("slot", "A18", 25050),
        ("table", "BJ3", 400000),
        ("table", "RO1", 30000),
    ]
