"""A promotion's record pack (issue 16, item 1): every file in the ZIP matches its manifest, the
draws' §6 records verify from the pack alone, the winners say how each prize ended, the PDF reads
back, the progress reaches done, and a task run twice builds once."""

import csv
import datetime as dt
import io
import json
import zipfile

import pytest

from core.audit import Actor, text_sha256
from core.errors import DomainError
from core.models import AuditEvent, AuditSeal
from draws.models import Draw
from draws.verification import verify_record
from records import pack_files, packs
from records.models import PackStatus, RecordPack
from records.tests.pack_helpers import manifest, sha256, zip_of
from testing.pdf import pdf_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]
MANAGER = Actor.system("test-manager")


@pytest.fixture
def built(promotion) -> RecordPack:
    pack = packs.pack_request(actor=MANAGER, promotion=promotion)
    assert packs.pack_build(pack_id=pack.pk)
    pack.refresh_from_db()
    return pack


def _csv(archive: zipfile.ZipFile, name: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(archive.read(name).decode("utf-8"))))


def test_every_file_in_the_zip_matches_its_manifest(built, promotion):
    archive = zip_of(built)
    listed = manifest(archive)["files"]
    names = set(archive.namelist())
    draw = Draw.objects.get(series__promotion=promotion)
    folder = f"draws/draw-{draw.pk}/"
    expected = {
        "rules/rules.txt", "rules/rules.json", f"{folder}certificate.pdf", f"{folder}draw-{draw.pk}.json",
        f"{folder}draw-{draw.pk}-entries.csv", "draws/draws.csv", "winners/prize-lines.csv",
        "registers/proxies.csv", "registers/declines.csv",
    }  # fmt: skip
    assert {f["path"] for f in listed} == expected
    assert names == expected | {"manifest.json", "manifest.txt"}
    for item in listed:
        data = archive.read(item["path"])
        assert sha256(data) == item["sha256"] and len(data) == item["bytes"], item["path"]
    # The pack's digest is the manifest's, and manifest.txt checks every file as sha256sum -c would.
    assert built.manifest_sha256 == sha256(archive.read("manifest.json"))
    for line in archive.read("manifest.txt").decode().splitlines():
        digest, path = line.split("  ", 1)
        assert sha256(archive.read(path)) == digest, path
    assert len(archive.read("manifest.txt").decode().splitlines()) == len(expected) + 1
    assert built.file_count == len(expected) + 2


def test_the_rules_are_the_text_as_published_with_its_digest(built, promotion):
    archive = zip_of(built)
    assert archive.read("rules/rules.txt").decode("utf-8") == promotion.rules_text
    rules = json.loads(archive.read("rules/rules.json"))
    assert rules["sha256"] == text_sha256(promotion.rules_text) == sha256(archive.read("rules/rules.txt"))
    assert rules["matches_audit_log"] is True and rules["audit_log"]["sha256"] == rules["sha256"]


def test_each_draw_record_in_the_pack_verifies_from_its_two_files(built, promotion):
    archive = zip_of(built)
    draw = Draw.objects.get(series__promotion=promotion)
    record = archive.read(f"draws/draw-{draw.pk}/draw-{draw.pk}.json")
    entries = archive.read(f"draws/draw-{draw.pk}/draw-{draw.pk}-entries.csv")
    report = verify_record(record, entries)
    assert report.holds, report.text()
    assert json.loads(record)["entries"]["sha256"] == sha256(entries) == draw.entries_sha256
    assert pdf_text(archive.read(f"draws/draw-{draw.pk}/certificate.pdf"), flat=True).count(draw.entries_sha256)


def test_the_winners_say_what_they_received_and_how_each_prize_ended(built):
    rows = _csv(zip_of(built), "winners/prize-lines.csv")
    ended = {(r["outcome"].split(":")[0], r["amount_cents"]): (r["settled"], r["letter"]) for r in rows}
    assert ended == {
        ("Present", "500000"): ("Paid at the cash desk", "GRC-25-000001"),
        ("Present", "50000"): ("Paid at the cash desk", "GRC-25-000001"),
        ("Proxy present", "100000"): ("Expired: not collected in time", "GRC-25-000002"),
        ("Declined to be present", "0"): ("Not paid in money: carried into a later draw", ""),
    }
    paid = next(r for r in rows if r["letter"] == "GRC-25-000001" and r["kind"] == "Cash")
    assert paid["settled_by"] == "cashier1" and paid["amount_paid_cents"] == "500000"


def test_the_registers_list_the_proxy_and_the_decline(built):
    archive = zip_of(built)
    [proxy] = _csv(archive, "registers/proxies.csv")
    [decline] = _csv(archive, "registers/declines.csv")
    assert proxy["nominee"] and proxy["nominee_id_number"].startswith("*") and proxy["registered_by"]
    assert decline["card_number"] and not decline["revoked_at"]


def test_the_pdf_for_reading_opens_and_says_what_the_pack_holds(built, promotion):
    with built.pdf_file.open("rb") as handle:
        text = pdf_text(handle.read(), flat=True)
    assert f"Record pack: {promotion.name}" in text
    assert built.manifest_sha256 in text.replace(" ", "")
    assert "Winners collect within 15 days." in text
    assert "Expired: not collected in time" in text and "Paid at the cash desk" in text
    assert "not been sealed yet" in text  # no day sealed in this database yet
    assert manifest(zip_of(built))["audit_seal"] is None


def test_the_latest_audit_seal_is_printed_on_the_pack_and_in_its_manifest(promotion):
    # A day of the audit log sealed before the pack is built (core.audit_seal; the table takes INSERTs).
    seal = AuditSeal.objects.create(
        day=dt.date(2025, 1, 1),
        version="promodesk-audit-seal/1",
        event_count=0,
        digest="ab" * 32,
        previous_digest="0" * 64,
        sealed_at=dt.datetime(2025, 1, 2, tzinfo=dt.UTC),
    )
    pack = packs.pack_request(actor=MANAGER, promotion=promotion)
    assert packs.pack_build(pack_id=pack.pk)
    pack.refresh_from_db()
    assert manifest(zip_of(pack))["audit_seal"] == {"day": "2025-01-01", "digest": seal.digest}
    with pack.pdf_file.open("rb") as handle:
        text = pdf_text(handle.read(), flat=True)
    assert "Sealed up to 1 January 2025" in text and seal.digest in text.replace(" ", "")


def test_the_progress_reaches_done_and_each_step_is_audited(built):
    assert built.status == PackStatus.DONE and built.step == "Ready"
    assert built.done_count == built.total_count == 1 + 6 and built.percent == 100
    actions = list(
        AuditEvent.objects.filter(object_type="records.recordpack", object_id=str(built.pk))
        .order_by("id")
        .values_list("action", "actor_label")
    )
    assert actions == [("record_pack.requested", "system:test-manager"), ("record_pack.built", "system:record_pack")]


def test_a_task_delivered_twice_builds_once(promotion):
    pack = packs.pack_request(actor=MANAGER, promotion=promotion)
    assert packs.pack_build(pack_id=pack.pk) is True
    pack.refresh_from_db()
    first = (pack.manifest_sha256, pack.zip_file.name, pack.finished_at)
    assert packs.pack_build(pack_id=pack.pk) is False
    pack.refresh_from_db()
    assert (pack.manifest_sha256, pack.zip_file.name, pack.finished_at) == first
    assert AuditEvent.objects.filter(action="record_pack.built").count() == 1


def test_a_second_request_while_one_is_building_is_refused(promotion):
    packs.pack_request(actor=MANAGER, promotion=promotion)
    with pytest.raises(DomainError) as refused:
        packs.pack_request(actor=MANAGER, promotion=promotion)
    assert refused.value.code == "record_pack_in_progress"
    assert RecordPack.objects.filter(promotion=promotion).count() == 1


def test_a_rebuilt_pack_is_a_new_row_with_its_own_files(built, promotion):
    again = packs.pack_request(actor=MANAGER, promotion=promotion)
    assert packs.pack_build(pack_id=again.pk)
    again.refresh_from_db()
    assert again.pk != built.pk and again.zip_file.name != built.zip_file.name
    assert zip_of(built).namelist()  # the first pack's files are still there


def test_a_build_that_fails_keeps_no_file_and_says_why(promotion, media, monkeypatch):
    def broken(pack_zip, draws):
        pack_zip.write("winners/prize-lines.csv", [b"half a file"])
        raise OSError("disk full")

    monkeypatch.setattr(pack_files, "write_winners", broken)
    pack = packs.pack_request(actor=MANAGER, promotion=promotion)
    assert packs.pack_build(pack_id=pack.pk) is False
    pack.refresh_from_db()
    assert pack.status == PackStatus.FAILED and "disk full" in pack.error
    assert not pack.zip_file and not pack.manifest_sha256
    assert [p for p in media.rglob("*") if p.is_file()] == []  # no half pack, no temporary file
    assert AuditEvent.objects.filter(action="record_pack.failed", object_id=str(pack.pk)).exists()


def test_a_build_whose_worker_went_silent_is_claimed_again(promotion, media):
    """A worker killed mid-build leaves the pack "building" with only a temporary file: a later
    delivery of its task claims it once it is stale, and stores the whole pack."""
    import datetime as dt

    from django.utils import timezone

    pack = packs.pack_request(actor=MANAGER, promotion=promotion)
    long_ago = timezone.now() - packs.PACK_STALE - dt.timedelta(minutes=1)
    RecordPack.objects.filter(pk=pack.pk).update(status=PackStatus.BUILDING, started_at=long_ago, heartbeat_at=long_ago)
    (media / "records" / "packs").mkdir(parents=True)
    (media / "records" / "packs" / "left.zip.x.part").write_bytes(b"PK half")
    assert packs.pack_build(pack_id=pack.pk) is True
    pack.refresh_from_db()
    assert pack.status == PackStatus.DONE and zip_of(pack).testzip() is None
    # A fresh claim is not taken over.
    RecordPack.objects.filter(pk=pack.pk).update(status=PackStatus.BUILDING, heartbeat_at=timezone.now())
    assert packs.pack_build(pack_id=pack.pk) is False
