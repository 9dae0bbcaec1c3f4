"""manage.py export_draw_record and verify_draw: the two files on disk, and the exit codes
scripts rely on (0 when every check holds, 1 otherwise)."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from draws.management.commands.verify_draw import Command as VerifyDraw
from draws.models import PickOutcome
from draws.record import draw_record_files
from draws.services import canonical_entries
from draws.tests.record_helpers import closed_draw, complete, electronic_picks, sha256, start

pytestmark = pytest.mark.django_db


@pytest.fixture
def draw(reference_data):
    draw = start(closed_draw(reference_data))
    electronic_picks(draw, [PickOutcome.NO_SHOW, PickOutcome.PRESENT, PickOutcome.PRESENT, PickOutcome.PRESENT])
    return complete(draw)


def exit_code(argv: list[str], monkeypatch) -> tuple[int, str]:
    """Run the command as manage.py does (run_from_argv: a CommandError exits with its code). Its
    closing of the connections would end the test's transaction, so that step is left out."""
    monkeypatch.setattr("django.core.management.base.connections.close_all", lambda: None)
    out, err = io.StringIO(), io.StringIO()
    command = VerifyDraw(stdout=out, stderr=err)
    try:
        command.run_from_argv(["manage.py", "verify_draw", *argv])
    except SystemExit as exit_:
        return exit_.code, out.getvalue() + err.getvalue()
    return 0, out.getvalue()


def test_export_writes_the_two_files_and_prints_their_paths(draw, tmp_path):
    out = io.StringIO()
    call_command("export_draw_record", str(draw.pk), "--out", str(tmp_path / "records"), stdout=out)
    json_path, entries_path = (
        tmp_path / "records" / f"draw-{draw.pk}.json",
        tmp_path / "records" / f"draw-{draw.pk}-entries.csv",
    )
    assert out.getvalue().splitlines() == [str(json_path), str(entries_path)]
    assert entries_path.read_bytes() == canonical_entries(draw)
    assert sha256(entries_path.read_bytes()) == draw.entries_sha256
    assert json_path.read_bytes() == draw_record_files(draw).json
    assert json.loads(json_path.read_bytes())["seed"]["hex"] == draw.seed_hex


def test_export_of_an_unknown_draw_says_so(db, tmp_path):
    with pytest.raises(CommandError, match="There is no draw 999"):
        call_command("export_draw_record", "999", "--out", str(tmp_path))


def test_verify_exits_0_and_prints_pick_by_pick_when_every_check_holds(draw, monkeypatch):
    code, output = exit_code([str(draw.pk)], monkeypatch)
    assert code == 0, output
    assert "Pick 1: serial" in output and "Pick 4: serial" in output
    assert output.rstrip().endswith("Every check holds: the record is consistent.")


def test_verify_of_a_draw_still_running_exits_1(reference_data, monkeypatch):
    draw = start(closed_draw(reference_data))
    electronic_picks(draw, [PickOutcome.NO_SHOW])
    code, output = exit_code([str(draw.pk)], monkeypatch)
    assert code == 1
    assert "Not fully verified: the seed is not revealed yet" in output


def test_verify_reads_the_files_of_dir_and_exits_1_on_a_tampered_one(draw, tmp_path, monkeypatch):
    call_command("export_draw_record", str(draw.pk), "--out", str(tmp_path), stdout=io.StringIO())
    assert exit_code([str(draw.pk), "--dir", str(tmp_path)], monkeypatch)[0] == 0
    record_path = tmp_path / f"draw-{draw.pk}.json"
    record = json.loads(record_path.read_bytes())
    record["picks"][1]["serial"] = record["picks"][1]["serial"] % 34 + 1
    record_path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    code, output = exit_code([str(draw.pk), "--dir", str(tmp_path)], monkeypatch)
    assert code == 1
    assert "Pick 2: serial" in output and "is not the one k=2 gives" in output and "DOES NOT HOLD" in output


def test_verify_with_a_dir_missing_a_file_says_which(draw, tmp_path):
    with pytest.raises(CommandError, match=f"draw-{draw.pk}-entries.csv"):
        call_command("verify_draw", str(draw.pk), "--dir", str(tmp_path), stdout=io.StringIO())


def test_a_failed_verification_is_a_command_error_with_exit_status_1(draw, tmp_path):
    call_command("export_draw_record", str(draw.pk), "--out", str(tmp_path), stdout=io.StringIO())
    entries = tmp_path / f"draw-{draw.pk}-entries.csv"
    entries.write_bytes(entries.read_bytes() + b"35,35,1\n")
    with pytest.raises(CommandError, match="2 checks DO NOT HOLD") as failed:
        call_command("verify_draw", str(draw.pk), "--dir", str(tmp_path), stdout=io.StringIO())
    assert failed.value.returncode == 1
