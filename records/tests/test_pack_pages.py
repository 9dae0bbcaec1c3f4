"""The record pack on the promotion page: who may build and download it, the progress fragment,
the stored pack of a finished promotion with its manifest hash, and the tick's part."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from core.audit import Actor
from core.models import AuditEvent
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from promotions.models import Promotion
from records import packs
from records.models import PackStatus, RecordPack
from records.tests.conftest import DRAW_AT

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]


@pytest.mark.parametrize("role", [PROMOTIONS_MANAGER, AUDITOR])
def test_managers_and_auditors_ask_for_a_pack_and_download_it(role, client_for, promotion):
    client = client_for(role)
    detail = client.get(reverse("promotions:detail", args=[promotion.pk])).content.decode()
    assert "Build record pack" in detail
    assert client.post(reverse("records:pack_request", args=[promotion.pk])).status_code == 302
    pack = RecordPack.objects.get(promotion=promotion)
    event = AuditEvent.objects.get(action="record_pack.requested", object_id=str(pack.pk))
    assert event.actor_label == pack.requested_by and pack.requested_by_user is not None
    fragment = client.get(reverse("records:pack_progress", args=[pack.pk])).content.decode()
    assert "Waiting for a worker" in fragment and "hx-trigger" in fragment
    assert "Build record pack" not in client.get(reverse("promotions:detail", args=[promotion.pk])).content.decode()

    assert packs.pack_build(pack_id=pack.pk)
    pack.refresh_from_db()
    detail = client.get(reverse("promotions:detail", args=[promotion.pk])).content.decode()
    assert pack.manifest_sha256 in detail and "Download ZIP" in detail
    response = client.get(reverse("records:pack_zip", args=[pack.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert b"".join(response.streaming_content)[:2] == b"PK"
    response = client.get(reverse("records:pack_pdf", args=[pack.pk]))
    assert b"".join(response.streaming_content)[:5] == b"%PDF-"


@pytest.mark.parametrize("role", [REWARDS_DESK, CASH_DESK])
def test_the_desk_and_the_cash_desk_neither_see_nor_build_a_pack(role, client_for, promotion):
    pack = packs.pack_request(actor=Actor.system("test"), promotion=promotion)
    packs.pack_build(pack_id=pack.pk)
    client = client_for(role)
    if role == REWARDS_DESK:
        assert "Record pack" not in client.get(reverse("promotions:detail", args=[promotion.pk])).content.decode()
    assert client.post(reverse("records:pack_request", args=[promotion.pk])).status_code == 403
    for name in ("pack_zip", "pack_pdf", "pack_progress"):
        assert client.get(reverse(f"records:{name}", args=[pack.pk])).status_code == 403
    assert RecordPack.objects.filter(promotion=promotion).count() == 1


def _finish(promotion: Promotion) -> None:
    Promotion.objects.filter(pk=promotion.pk).update(ends_on=DRAW_AT.date() + dt.timedelta(days=20))
    promotion.refresh_from_db()


def test_a_finished_promotion_s_pack_is_stored_and_its_hash_shown(promotion, manager):
    _finish(promotion)
    after = packs.finished_at(promotion) + dt.timedelta(hours=1)
    assert not packs.is_finished(promotion, after - dt.timedelta(hours=2))  # its last day is not over
    assert packs.is_finished(promotion, after)
    with time_machine.travel(after, tick=False):
        page = manager.get(reverse("promotions:detail", args=[promotion.pk])).content.decode()
        assert 'id="pack-not-stored"' in page
        result = packs.packs_due()
        assert result["requested"] == 1
        assert packs.packs_due()["requested"] == 0  # asked once, not at every tick
        pack = RecordPack.objects.get(promotion=promotion)
        assert pack.requested_by == "system:tick"
        assert packs.pack_build(pack_id=pack.pk)
        pack.refresh_from_db()
        page = manager.get(reverse("promotions:detail", args=[promotion.pk])).content.decode()
    assert 'id="pack-stored"' in page and pack.manifest_sha256 in page


def test_a_promotion_with_a_draw_still_to_run_is_not_finished(promotion):
    from draws.tests.factories import make_draw

    _finish(promotion)
    make_draw(promotion.series.first(), DRAW_AT + dt.timedelta(days=3))
    after = packs.finished_at(promotion) + dt.timedelta(hours=1)
    assert not packs.is_finished(promotion, after)
    with time_machine.travel(after, tick=False):
        assert packs.packs_due()["requested"] == 0


def test_the_tick_sends_a_lost_build_again_once_per_quiet_spell(promotion, monkeypatch):
    sent = []
    monkeypatch.setattr(packs, "_queue", sent.append)
    pack = packs.pack_request(actor=Actor.system("test"), promotion=promotion)
    assert packs.packs_due()["requeued"] == 0  # just queued: not lost
    later = timezone.now() + packs.PACK_STALE + dt.timedelta(minutes=1)
    assert packs.packs_due(later)["requeued"] == 1 and sent[-1] == pack.pk
    assert packs.packs_due(later + dt.timedelta(seconds=15))["requeued"] == 0
    pack.refresh_from_db()
    assert pack.status == PackStatus.QUEUED
