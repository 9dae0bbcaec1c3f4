"""The record of a RAPS session: its entry file is the canonical active-player list (DRAWS.md §5),
and each pick is checked against the row §5 gives in its own pool."""

import datetime as dt
import json
import secrets

import pytest

from draws.models import Draw, DrawStatus, PickOutcome, RapsEntry, RapsList
from draws.record import draw_record_files
from draws.tests.factories import make_draw
from draws.tests.record_helpers import DRAW_AT, complete, edit, raps_picks, sha256, start
from draws.verification import verify_record
from members.tests.factories import MemberFactory
from promotions.models import DrawMethod
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

# (card, device_type, device_id, spend_cents), in canonical order: byte order puts "A10" before "A9".
ROWS = [
    ("4000000001", "slot", "A10", 150000),
    ("4000000004", "slot", "A10", 80000),
    ("4000000002", "slot", "A9", 20000),
    ("4000000003", "slot", "B1", 5000),
    ("4000000005", "table", "BJ3", 100000),
    ("4000000006", "table", "RL1", 5000),
]


@pytest.fixture
def session(reference_data):
    """A RAPS session with its list taken as the upload would (entries hash, count, a fresh seed)."""
    series = make_series(points_per_ticket=100)
    series.method, series.winners_per_draw = DrawMethod.RAPS, 3
    series.save()
    draw = make_draw(series, DRAW_AT)
    canonical = "".join(f"{card},{kind},{device},{cents}\n" for card, kind, device, cents in ROWS)
    raps_list = RapsList.objects.create(
        draw=draw,
        file_name="active.csv",
        uploaded_at=DRAW_AT - dt.timedelta(minutes=10),
        uploaded_by="manager.mokoena",
        rows_read=len(ROWS),
        min_spend_cents=5000,
        slot_quota=2,
        table_quota=1,
        canonical=canonical,
        list_sha256=sha256(canonical.encode()),
    )
    for pool in ("slot", "table"):
        rows = [row for row in ROWS if row[1] == pool]
        for number, (card, _, device, cents) in enumerate(rows, 1):
            member = MemberFactory(tier=reference_data["tiers"]["QUEEN"], card_number=card)
            RapsEntry.objects.create(
                raps_list=raps_list,
                pool=pool,
                row=number,
                card_number=card,
                member=member,
                device_id=device,
                spend_cents=cents,
            )
    seed = secrets.token_bytes(32)
    Draw.objects.filter(pk=draw.pk).update(
        status=DrawStatus.CLOSED,
        entries_sha256=raps_list.list_sha256,
        entries_count=len(ROWS),
        tickets_total=len(ROWS),
        entries_frozen_at=raps_list.uploaded_at,
        seed_hex=seed.hex(),
        seed_sha256=sha256(seed),
    )
    draw = start(Draw.objects.get(pk=draw.pk))
    raps_picks(
        draw,
        raps_list,
        [
            ("slot", PickOutcome.NO_SHOW),
            ("slot", PickOutcome.PRESENT),
            ("table", PickOutcome.PRESENT),
            ("slot", PickOutcome.PRESENT),
        ],
    )
    return complete(draw), raps_list


def test_the_entry_file_is_the_canonical_list_and_its_hash_the_list_hash(session):
    draw, raps_list = session
    files = draw_record_files(draw)
    assert files.entries == raps_list.canonical.encode()
    record = json.loads(files.json)
    assert record["entries"] == {
        "count": 6,
        "tickets_total": 6,
        "sha256": raps_list.list_sha256,
        "frozen_at": "2025-10-15T12:50:00+02:00",
    }
    assert {pick["pool"] for pick in record["picks"]} == {"slot", "table"}
    assert record["picks"][0]["k"] == 1


def test_a_raps_record_holds_pool_by_pool(session):
    draw, _ = session
    files = draw_record_files(draw)
    report = verify_record(files.json, files.entries)
    assert report.holds, report.text()
    assert "6 rows (4 slot, 2 table) in canonical order" in report.text()
    table_pick = next(line for line in report.lines if "(table k=1)" in line.check)
    assert "of the table pool is the one k=1 gives" in table_pick.detail


def test_a_row_given_to_another_card_is_caught(session):
    draw, _ = session
    files = draw_record_files(draw)

    def change(record):
        record["picks"][0]["card_number"] = "4000000099"

    report = verify_record(edit(files.json, change), files.entries)
    assert any("not 4000000099" in line.detail for line in report.failures)


def test_a_list_out_of_canonical_order_is_caught_even_with_its_hash(session):
    draw, raps_list = session
    files = draw_record_files(draw)
    lines = raps_list.canonical.splitlines(keepends=True)
    lines[1], lines[2] = lines[2], lines[1]  # A9 before A10: not byte order
    entries = "".join(lines).encode()
    report = verify_record(edit(files.json, lambda r: r["entries"].update(sha256=sha256(entries))), entries)
    assert any("line 3 is out of order" in line.detail for line in report.failures)


def test_k_counts_per_pool(session):
    draw, _ = session
    files = draw_record_files(draw)
    record = json.loads(files.json)
    table = next(n for n, pick in enumerate(record["picks"]) if pick["pool"] == "table")
    report = verify_record(edit(files.json, lambda r: r["picks"][table].update(k=3)), files.entries)
    assert any("expected 1 in the table pool" in line.detail for line in report.failures)


def test_the_record_carries_the_session_s_settings_and_each_winner_s_pool(session):
    draw, _ = session
    record = json.loads(draw_record_files(draw).json)
    assert record["raps"] == {
        "min_spend_cents": 5000,
        "excluded_devices": [],
        "quotas": {"slot": 2, "table": 1},
        "rows_uploaded": 6,
        "rows_left_out": {"below_min_spend": 0, "excluded_device": 0, "ineligible": 0},
    }
    assert [w["pool"] for w in record["winners"]] == ["slot", "table", "slot"]
    report = verify_record(draw_record_files(draw).json, draw_record_files(draw).entries)
    assert "2 of 2 slot, 1 of 1 table" in next(line for line in report.lines if line.check == "Complete").detail


def test_rows_below_the_minimum_or_on_an_excluded_device_and_a_wrong_count_are_caught(session):
    draw, _ = session
    files = draw_record_files(draw)

    def settings_changed(record):
        record["raps"].update(min_spend_cents=6000, excluded_devices=["table:BJ3"], rows_uploaded=9)

    report = verify_record(edit(files.json, settings_changed), files.entries)
    detail = next(line for line in report.lines if line.check == "Entry list").detail
    assert "line 4 spent 5000 cents, below the session's minimum of 6000" in detail
    assert "line 5 is on table:BJ3, a device the session excludes" in detail
    assert "9 rows were uploaded, but the list holds 6 and 0 were left out" in detail
    assert not report.holds


def test_a_winner_s_pool_changed_and_a_pool_short_of_its_quota_are_caught(session):
    draw, _ = session
    files = draw_record_files(draw)
    moved = verify_record(edit(files.json, lambda r: r["winners"][1].update(pool="slot")), files.entries)
    assert not next(line for line in moved.lines if line.check == "Winners").holds
    short = verify_record(edit(files.json, lambda r: r["raps"]["quotas"].update(table=2)), files.entries)
    complete_line = next(line for line in short.lines if line.check == "Complete")
    assert "1 of 2 table" in complete_line.detail and not complete_line.holds
