"""The exported record (DRAWS.md §6): the entry list is exactly the bytes hashed at the close,
and the JSON has exactly §6's structure, with the seed hidden until the draw is complete."""

import json

import pytest

from draws.models import PickOutcome
from draws.record import draw_record_files
from draws.services import canonical_entries
from draws.tests.factories import make_draw
from draws.tests.record_helpers import (
    CONDUCTOR,
    DRAW_AT,
    SOFTWARE,
    closed_draw,
    complete,
    electronic_picks,
    sha256,
    start,
)
from promotions.tests.factories import make_series
from testing.db import triggers_off

pytestmark = pytest.mark.django_db

DRAW_KEYS = [
    "id",
    "name",
    "property",
    "scheduled_at",
    "method",
    "winners_wanted",
    "win_once",
    "status",
    "started_at",
    "completed_at",
    "ended_short_reason",
]
PICK_KEYS = ["k", "pool", "serial", "member_id", "card_number", "outcome", "reason", "at", "by", "ref"]


@pytest.fixture
def draw(reference_data):
    return closed_draw(reference_data)


def test_the_entry_file_is_the_canonical_entry_list_whose_hash_was_frozen(draw):
    files = draw_record_files(draw)
    assert files.entries_name == f"draw-{draw.pk}-entries.csv"
    assert files.entries == canonical_entries(draw)
    assert sha256(files.entries) == draw.entries_sha256
    assert files.entries.decode().splitlines()[:2] == [
        f"1,5,{draw.activations.get(first_serial=1).member_id}",
        f"6,8,{draw.activations.get(first_serial=6).member_id}",
    ]


def test_the_json_has_exactly_the_structure_of_draws_md_section_6(draw):
    draw = start(draw)
    electronic_picks(draw, [(PickOutcome.NO_SHOW, ""), PickOutcome.PRESENT])
    files = draw_record_files(draw)
    assert files.json_name == f"draw-{draw.pk}.json"
    record = json.loads(files.json)
    assert list(record) == ["format", "software", "draw", "raps", "entries", "seed", "picks", "winners", "registers"]
    assert record["registers"] == {"proxy": [], "decline": []}
    assert record["format"] == 2
    assert record["software"] == {"name": "promodesk", "version": SOFTWARE}
    assert record["raps"] is None
    assert list(record["draw"]) == DRAW_KEYS
    assert list(record["entries"]) == ["count", "tickets_total", "sha256", "frozen_at"]
    assert list(record["seed"]) == ["sha256", "hex"]
    assert all(list(pick) == PICK_KEYS for pick in record["picks"])
    assert all(list(winner) == ["member_id", "card_number", "k", "pool"] for winner in record["winners"])
    assert record["draw"] == {
        "id": draw.pk,
        "name": draw.name,
        "property": "GRC",
        "scheduled_at": "2025-10-15T13:00:00+02:00",
        "method": "electronic",
        "winners_wanted": 3,
        "win_once": "draw",
        "status": "running",
        "started_at": "2025-10-15T13:00:00+02:00",
        "completed_at": None,
        "ended_short_reason": "",
    }
    assert record["entries"] == {
        "count": 6,
        "tickets_total": 34,
        "sha256": draw.entries_sha256,
        "frozen_at": "2025-10-15T12:55:00+02:00",
    }
    first = record["picks"][0]
    assert first["k"] == 1 and first["pool"] is None and first["outcome"] == "no_show"
    assert first["at"] == "2025-10-15T13:01:00+02:00" and first["by"] == CONDUCTOR
    assert all(p["ref"] is None for p in record["picks"] if not p["outcome"].startswith("redraw_"))
    winners = [p for p in record["picks"] if p["outcome"] == "present"]
    assert record["winners"] == [
        {"member_id": p["member_id"], "card_number": p["card_number"], "k": p["k"], "pool": None} for p in winners
    ]


def test_the_file_is_utf8_with_indent_2_and_a_trailing_newline_and_the_same_bytes_every_time(draw):
    files = draw_record_files(draw)
    assert files.json.endswith(b"}\n") and b'\n  "draw": {\n    "id": ' in files.json
    assert files.json == draw_record_files(draw).json
    files.json.decode("utf-8")


def test_a_name_with_accents_is_written_as_utf8_not_escaped(draw):
    draw.name = "Tëst draw, Sandton 13h00"
    with triggers_off():  # named so when scheduled: a frozen draw keeps its name
        draw.save(update_fields=["name"])
    assert "Tëst draw, Sandton 13h00".encode() in draw_record_files(draw).json


def test_before_a_start_the_series_gives_winners_wanted_and_the_win_once_scope(draw):
    draw.series.winners_per_draw, draw.series.win_once_scope = 7, "day"
    draw.series.save()
    record = json.loads(draw_record_files(draw).json)
    assert (record["draw"]["winners_wanted"], record["draw"]["win_once"]) == (7, "day")
    assert record["picks"] == [] and record["winners"] == []


def test_the_draw_keeps_what_applied_once_started_whatever_the_series_says_later(draw):
    draw = start(draw)
    draw.series.winners_per_draw, draw.series.win_once_scope = 9, "period"
    draw.series.save()
    record = json.loads(draw_record_files(draw).json)
    assert (record["draw"]["winners_wanted"], record["draw"]["win_once"]) == (3, "draw")


def test_the_seed_is_null_until_the_draw_is_complete(draw):
    assert json.loads(draw_record_files(draw).json)["seed"] == {"sha256": draw.seed_sha256, "hex": None}
    draw = start(draw)
    electronic_picks(draw, [PickOutcome.PRESENT] * 3)
    assert json.loads(draw_record_files(draw).json)["seed"]["hex"] is None  # running: still secret
    draw = complete(draw)
    assert json.loads(draw_record_files(draw).json)["seed"] == {"sha256": draw.seed_sha256, "hex": draw.seed_hex}


def test_a_pick_awaiting_its_outcome_has_a_null_outcome(draw):
    draw = start(draw)
    electronic_picks(draw, [PickOutcome.PRESENT, None])
    picks = json.loads(draw_record_files(draw).json)["picks"]
    assert picks[-1]["outcome"] is None and picks[-1]["reason"] == ""


def test_a_draw_not_frozen_yet_exports_an_empty_entry_list_and_no_hash(reference_data):
    draw = make_draw(make_series(), DRAW_AT)
    files = draw_record_files(draw)
    assert files.entries == b""
    assert json.loads(files.json)["entries"] == {"count": 0, "tickets_total": 0, "sha256": None, "frozen_at": None}


def test_the_entry_list_is_written_in_chunks_that_add_up_to_the_hashed_bytes(draw, monkeypatch):
    from draws import record

    monkeypatch.setattr(record, "CHUNK_BYTES", 10)
    chunks = list(record.entries_chunks(draw))
    assert len(chunks) > 1 and all(chunk.endswith(b"\n") for chunk in chunks)  # whole lines, never one object
    assert b"".join(chunks) == canonical_entries(draw) and sha256(b"".join(chunks)) == draw.entries_sha256
