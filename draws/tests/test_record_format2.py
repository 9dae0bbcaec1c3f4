"""DRAWS.md §6 format 2: the software stored at the start, the draw's status and times, the
"ref" of redraws resting on an earlier pick (across draws too), the verifier's checks of a
complete record, its self-test on §2's vectors, several records at once, and an entry list read
in bounded memory."""

import datetime as dt
import hashlib
import io
import json
import subprocess
import tracemalloc

import pytest
import time_machine
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, transaction
from django.test import override_settings

from draws import verification
from draws.commitments import draw_verify, draws_verify
from draws.engine import draw_start, pick_outcome_record
from draws.models import Draw, PickOutcome
from draws.record import draw_record_files
from draws.selection import electronic_serial
from draws.tests.builders import MANAGER, SAST, closed_draw, pin_seed
from draws.tests.record_helpers import closed_draw as record_draw
from draws.tests.record_helpers import complete, edit, electronic_picks, start
from draws.verification import verify_record, verify_records
from draws.version import git_commit
from promotions.tests.factories import make_series

PRESENT = PickOutcome.PRESENT
DRAW_AT = dt.datetime(2025, 10, 15, 15, 0, tzinfo=SAST)


def line(report, check):
    return next(line for line in report.lines if line.check == check)


def lines(report, check):
    return [line for line in report.lines if line.check == check]


# --- The software ------------------------------------------------------------------------------


@pytest.mark.django_db
@override_settings(PROMODESK_VERSION="release-2026.12.1")
def test_start_stores_the_software_version_and_the_database_keeps_it(reference_data):
    draw, _ = closed_draw(make_series(), DRAW_AT, [3, 4])
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    draw.refresh_from_db()
    assert draw.software_version == "release-2026.12.1"
    record = json.loads(draw_record_files(draw).json)
    assert record["software"] == {"name": "promodesk", "version": "release-2026.12.1"}
    assert record["draw"]["status"] == "running" and record["draw"]["started_at"] == "2025-10-15T15:01:00+02:00"
    with pytest.raises(DatabaseError, match="software_version refused"), transaction.atomic():
        Draw.objects.filter(pk=draw.pk).update(software_version="something else")  # the guard trigger


@pytest.mark.django_db
def test_a_draw_is_never_created_with_a_software_version(reference_data):
    series = make_series()
    with pytest.raises(DatabaseError, match="INSERT refused"), transaction.atomic():
        Draw.objects.create(
            series=series,
            property=series.promotion.properties.first() or reference_data["properties"]["GRC"],
            name="Smuggled",
            scheduled_at=DRAW_AT,
            method="electronic",
            tickets_open_at=DRAW_AT,
            tickets_close_at=DRAW_AT,
            proxies_open_at=DRAW_AT,
            proxies_close_at=DRAW_AT,
            declines_open_at=DRAW_AT,
            declines_close_at=DRAW_AT,
            software_version="x",
        )


def test_without_a_release_setting_the_version_is_the_checkout_s_commit():
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=settings.BASE_DIR, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert git_commit(settings.BASE_DIR) == head  # a worktree's .git file is followed too


# --- ref, and several records together ----------------------------------------------------------


@pytest.fixture
def one_day(reference_data):
    """The engine's "once per promotional day" (Turn Up the Heat rule 12): the 3pm winner holds
    most of the 7pm tickets and is redrawn there (redraw_won_in_scope); both draws complete."""
    series = make_series()
    series.win_once_scope, series.winners_per_draw = "day", 1
    series.save()
    three_pm, (winner, other) = closed_draw(series, DRAW_AT, [1, 1])
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):
        draw_start(actor=MANAGER, draw_id=three_pm.pk, witness_name="Thandi Witness")
        first = three_pm.picks.get(outcome="")
        pick_outcome_record(actor=MANAGER, draw_id=three_pm.pk, pick_id=first.pk, outcome=PRESENT, id_type_seen="sa_id")
    loser = other if first.member == winner else winner
    seven_pm, _ = closed_draw(series, DRAW_AT.replace(hour=19), [20, 1], [first.member, loser])
    pin_seed(seven_pm, lambda serials: serials[0] <= 20)
    with time_machine.travel(DRAW_AT.replace(hour=19, minute=1), tick=False):
        draw_start(actor=MANAGER, draw_id=seven_pm.pk, witness_name="Thandi Witness")
        last = seven_pm.picks.get(outcome="")
        pick_outcome_record(actor=MANAGER, draw_id=seven_pm.pk, pick_id=last.pk, outcome=PRESENT, id_type_seen="sa_id")
    three_pm.refresh_from_db()
    seven_pm.refresh_from_db()
    return three_pm, seven_pm, first


@pytest.mark.django_db
def test_a_redraw_won_in_scope_names_the_earlier_win_in_the_other_draw(one_day):
    three_pm, seven_pm, first = one_day
    picks = json.loads(draw_record_files(seven_pm).json)["picks"]
    scoped = [p for p in picks if p["outcome"] == "redraw_won_in_scope"]
    assert scoped and all(p["ref"] == {"draw": three_pm.pk, "k": first.k, "pool": None} for p in scoped)
    assert picks[-1]["outcome"] == "present" and picks[-1]["ref"] is None


@pytest.mark.django_db
def test_the_draws_of_a_day_verify_together_and_alone_the_other_draw_is_named_not_checked(one_day):
    three_pm, seven_pm, _ = one_day
    together = draws_verify([three_pm, seven_pm])
    assert all(report.holds for report in together), "\n".join(r.text() for r in together)
    assert "within the scope (day)" in lines(together[1], "Pick 1")[0].detail
    alone = draw_verify(seven_pm)
    assert alone.holds, alone.text()
    assert "not checkable here (give that draw's record too" in line(alone, "Pick 1").detail


@pytest.mark.django_db
def test_a_ref_to_the_other_draw_that_does_not_hold_is_caught_when_both_are_given(one_day):
    three_pm, seven_pm, first = one_day
    a, b = draw_record_files(three_pm), draw_record_files(seven_pm)
    wrong_k = edit(b.json, lambda r: r["picks"][0]["ref"].update(k=first.k + 1))
    reports = verify_records([(a.json, a.entries), (wrong_k, b.entries)])
    assert reports[0].holds and not reports[1].holds
    assert "is not a pick of that draw's record" in line(reports[1], "Pick 1").detail
    no_ref = edit(b.json, lambda r: r["picks"][0].update(ref=None))
    assert "without a ref naming the earlier pick" in line(verify_record(no_ref, b.entries), "Pick 1").detail


@pytest.mark.django_db
def test_a_second_win_in_the_day_across_draws_is_caught_only_with_both_records(one_day):
    three_pm, seven_pm, _ = one_day
    a, b = draw_record_files(three_pm), draw_record_files(seven_pm)

    def won_again(record):  # the 3pm winner's 7pm pick recorded as a win instead of a redraw
        record["picks"][0].update(outcome="present", ref=None)
        record["picks"] = record["picks"][:1]
        record["winners"] = [{key: record["picks"][0][key] for key in ("member_id", "card_number", "k", "pool")}]

    forged = edit(b.json, won_again)
    assert verify_record(forged, b.entries).holds  # alone, nothing says the member won at 3pm
    reports = verify_records([(a.json, a.entries), (forged, b.entries)])
    assert "should have been a redraw_won_in_scope" in line(reports[1], "Pick 1").detail
    assert not reports[1].holds


@pytest.mark.django_db
def test_verify_draw_takes_several_draws_or_a_promotion(one_day, capsys):
    three_pm, seven_pm, _ = one_day
    call_command("verify_draw", str(three_pm.pk), str(seven_pm.pk))
    out = capsys.readouterr().out
    assert f"== Draw {three_pm.pk}" in out and f"== Draw {seven_pm.pk}" in out
    assert "within the scope (day)" in out
    call_command("verify_draw", "--promotion", str(three_pm.series.promotion_id))
    assert "within the scope (day)" in capsys.readouterr().out
    with pytest.raises(CommandError, match="Name a draw"):
        call_command("verify_draw")


@pytest.mark.django_db
def test_the_auditor_checks_several_pairs_without_django(one_day, tmp_path, capsys):
    three_pm, seven_pm, _ = one_day
    paths = []
    for draw in (three_pm, seven_pm):
        files = draw_record_files(draw)
        (tmp_path / files.json_name).write_bytes(files.json)
        (tmp_path / files.entries_name).write_bytes(files.entries)
        paths += [str(tmp_path / files.json_name), str(tmp_path / files.entries_name)]
    assert verification.main(paths) == 0
    out = capsys.readouterr().out
    assert "within the scope (day)" in out and out.count("Every check holds") == 2
    assert verification.main(paths[:3]) == 2  # pairs only


# --- One draw's record ---------------------------------------------------------------------------


@pytest.fixture
def alone(reference_data):
    """One member holds every ticket: pick 1 wins, pick 2 finds them again (redraw_already_winner)."""
    draw = start(record_draw(reference_data, points=(500,), winners=2))
    electronic_picks(draw, [PRESENT, PRESENT], limit=2)
    return draw_record_files(complete(draw, ended_short="Only one member entered."))


@pytest.mark.django_db
def test_a_redraw_already_winner_names_the_win_it_rests_on(alone):
    record = json.loads(alone.json)
    assert record["picks"][1]["ref"] == {"draw": record["draw"]["id"], "k": 1, "pool": None}
    report = verify_record(alone.json, alone.entries)
    assert report.holds, report.text()
    wrong = edit(alone.json, lambda r: r["picks"][1]["ref"].update(k=2))
    assert "is not an earlier pick of this draw" in line(verify_record(wrong, alone.entries), "Pick 2").detail


@pytest.mark.django_db
def test_redraw_already_drawn_holds_on_an_earlier_pick_of_the_member_and_not_without(alone):
    drawn_again = edit(alone.json, lambda r: r["picks"][1].update(outcome="redraw_already_drawn"))
    report = verify_record(drawn_again, alone.entries)
    assert report.holds, report.text()
    assert "was already drawn at pick 1 (one selection per draw)" in line(report, "Pick 2").detail

    def first_pick(record):
        record["picks"][0].update(
            outcome="redraw_already_drawn", ref={"draw": record["draw"]["id"], "k": 1, "pool": None}
        )

    assert "is not an earlier pick" in line(verify_record(edit(alone.json, first_pick), alone.entries), "Pick 1").detail


@pytest.mark.django_db
def test_a_ref_on_a_stage_outcome_is_caught(alone):
    stray = edit(alone.json, lambda r: r["picks"][0].update(ref={"draw": 1, "k": 1, "pool": None}))
    assert (
        "on a pick that is not a redraw resting on an earlier pick"
        in line(verify_record(stray, alone.entries), "Pick 1").detail
    )


@pytest.mark.django_db
def test_a_format_1_record_is_said_to_be_one_and_does_not_hold(alone):
    report = verify_record(edit(alone.json, lambda r: r.pop("format")), alone.entries)
    assert not report.holds
    assert line(report, "Record").detail.startswith("format 1")
    assert [line.check for line in report.lines] == ["Selection code", "Record"]


@pytest.mark.django_db
def test_a_complete_record_needs_its_completion_time_its_seed_and_its_winners_or_a_reason(alone):
    report = verify_record(alone.json, alone.entries)
    assert "ended short: Only one member entered." in line(report, "Complete").detail
    no_time = verify_record(edit(alone.json, lambda r: r["draw"].update(completed_at=None)), alone.entries)
    assert "drawn without a completion time" in line(no_time, "Complete").detail and not no_time.holds
    no_reason = verify_record(edit(alone.json, lambda r: r["draw"].update(ended_short_reason="")), alone.entries)
    assert "1 of 2 winners, and no reason why it ended short" in line(no_reason, "Complete").detail
    assert not no_reason.holds


@pytest.mark.django_db
def test_no_pick_follows_the_last_winning_pick_of_a_complete_draw(reference_data):
    draw = start(record_draw(reference_data, winners=1))
    electronic_picks(draw, [PRESENT])
    files = draw_record_files(complete(draw))
    assert verify_record(files.json, files.entries).holds
    record = json.loads(files.json)
    seed = bytes.fromhex(record["seed"]["hex"])
    serial = electronic_serial(seed=seed, entries_sha256=record["entries"]["sha256"], k=2, tickets_total=34)
    first = record["picks"][0]
    owner = next(
        int(m)
        for f, la, m in (row.split(",") for row in files.entries.decode().splitlines())
        if int(f) <= serial <= int(la)
    )

    def late(record):  # a no-show after the winner, of another member or the same
        card = first["card_number"] if owner == first["member_id"] else "40000000x"
        record["picks"].append(dict(first, k=2, serial=serial, member_id=owner, card_number=card, outcome="no_show"))

    report = verify_record(edit(files.json, late), files.entries)
    assert "pick 2 follows the last winning pick" in line(report, "Complete").detail
    assert not report.holds


@pytest.mark.django_db
def test_a_selection_that_reads_a_wrong_byte_count_fails_verify(alone, monkeypatch):
    def seven_bytes(*, seed, entries_sha256, k, tickets_total):  # x from h[0:7], not h[0:8]
        import hmac

        h = hmac.new(seed, f"{entries_sha256}:{k}:0".encode("ascii"), hashlib.sha256).digest()
        return (int.from_bytes(h[0:7], "big") % tickets_total) + 1

    monkeypatch.setattr(verification, "electronic_serial", seven_bytes)
    report = verify_record(alone.json, alone.entries)
    assert not report.holds
    assert "DRAWS.md §2's test vectors fail: N=1000 k=1 gives" in line(report, "Selection code").detail
    assert "not recomputed: the selection code fails DRAWS.md §2's test vectors" in line(report, "Pick 1").detail


def test_the_selection_code_gives_draws_md_s_test_vectors():
    report = verification.Report()
    assert verification.check_selection(report)
    assert report.lines[0].detail == "gives the 12 serials and rows of DRAWS.md §2's test vectors"


# --- Bounded memory ------------------------------------------------------------------------------

ACTIVATIONS = 200_000


def _big_entries():
    """200,000 one-ticket activations (member i holds serial i), in 64 KB chunks, never whole."""
    chunk, size = [], 0
    for serial in range(1, ACTIVATIONS + 1):
        line = f"{serial},{serial},{serial}\n"
        chunk.append(line)
        size += len(line)
        if size >= 65536:
            yield "".join(chunk).encode()
            chunk, size = [], 0
    yield "".join(chunk).encode()


def _big_record() -> bytes:
    digest = hashlib.sha256()
    for chunk in _big_entries():
        digest.update(chunk)
    seed = bytes(range(32))
    entries_sha256 = digest.hexdigest()
    picks = []
    for k in (1, 2, 3):
        serial = electronic_serial(seed=seed, entries_sha256=entries_sha256, k=k, tickets_total=ACTIVATIONS)
        picks.append(
            {
                "k": k,
                "pool": None,
                "serial": serial,
                "member_id": serial,
                "card_number": f"C{serial}",
                "outcome": "present",
                "reason": "",
                "at": f"2025-10-15T13:0{k}:00+02:00",
                "by": "manager.mokoena",
                "ref": None,
            }
        )
    record = {
        "format": 2,
        "software": {"name": "promodesk", "version": "test"},
        "draw": {
            "id": 1,
            "name": "Big",
            "property": "GRC",
            "scheduled_at": "2025-10-15T13:00:00+02:00",
            "method": "electronic",
            "winners_wanted": 3,
            "win_once": "draw",
            "status": "drawn",
            "started_at": "2025-10-15T13:00:00+02:00",
            "completed_at": "2025-10-15T13:05:00+02:00",
            "ended_short_reason": "",
        },
        "raps": None,
        "entries": {
            "count": ACTIVATIONS,
            "tickets_total": ACTIVATIONS,
            "sha256": entries_sha256,
            "frozen_at": "2025-10-15T12:55:00+02:00",
        },
        "seed": {"sha256": hashlib.sha256(seed).hexdigest(), "hex": seed.hex()},
        "picks": picks,
        "winners": [{k: p[k] for k in ("member_id", "card_number", "k", "pool")} for p in picks],
    }
    return json.dumps(record, indent=2).encode()


def test_the_verifier_reads_200000_activations_in_bounded_memory():
    record = _big_record()
    tracemalloc.start()
    try:
        report = verify_record(record, _big_entries)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.holds, report.text()
    assert "200000 ranges, serials 1..200000 without gaps" in line(report, "Entry list").detail
    # The file is about 4.4 MB; the verifier keeps only the picked serials' owners.
    assert peak < 1_500_000, f"peak {peak} bytes"


def test_a_binary_file_is_read_in_chunks_too():
    data = b"".join(_big_entries())
    report = verify_record(_big_record(), io.BytesIO(data))
    assert report.holds, report.text()
