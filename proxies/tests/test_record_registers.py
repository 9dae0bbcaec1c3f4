"""Issue 13, item 10: the exported record holds the draw's registers (docs/draw-records-registers.md)
and the verifiers hold declined, proxy_present and no_show outcomes to them.

A 13h00 draw of three entrants run by the engine: A declined to be present, B nominated a proxy,
C nominated one and revoked it, then failed to show once before winning. The test series takes
proxies 08h00-12h45 and declines until 13h00; its entries freeze at 12h55."""

import datetime as dt
import json
import subprocess
import sys

import pytest
import time_machine
from django.conf import settings

from draws.commitments import draw_verify
from draws.engine import draw_start, pick_outcome_record
from draws.models import Draw, DrawStatus, PickOutcome
from draws.record import draw_record_files
from draws.services import draw_close_window
from draws.tests.builders import MANAGER, add_entries
from draws.tests.factories import make_draw
from draws.tests.record_helpers import edit
from draws.verification import verify_record
from draws.verify_cache import cached_verify
from members.tests.factories import MemberFactory
from promotions.tests.factories import make_series
from proxies.models import DeclineRegistration
from proxies.services import proxy_revoke
from proxies.tests.factories import decline, desk_actor, nominate, nomination_on_record, nominee_for

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
DECLINED_AT = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)
NOMINATED_AT = dt.datetime(2025, 10, 15, 10, 5, tzinfo=SAST)
REVOKED_AT = dt.datetime(2025, 10, 15, 10, 10, tzinfo=SAST)
NOMINEE = nominee_for(name="Lerato Khumalo")
OTHER_NOMINEE = nominee_for(name="Sipho Dube", born=dt.date(1990, 3, 1))


def _run(draw: Draw, a, b, c) -> None:
    """Pick after pick until the draw is complete: A declined, B proxy present, C a no-show the
    first time (after the 90 seconds) and present the next."""
    outcomes = {a.pk: [PickOutcome.DECLINED], b.pk: [PickOutcome.PROXY_PRESENT], c.pk: [PickOutcome.NO_SHOW]}
    for _ in range(200):
        draw.refresh_from_db()
        pick = draw.picks.filter(outcome="").first()
        if draw.status != DrawStatus.RUNNING or pick is None:
            return
        planned = outcomes[pick.member_id]
        outcome = planned.pop(0) if planned else PickOutcome.PRESENT
        seconds = 90 if outcome == PickOutcome.NO_SHOW else 20
        pick_outcome_record(
            actor=MANAGER,
            draw_id=draw.pk,
            pick_id=pick.pk,
            outcome=outcome,
            id_type_seen="sa_id" if outcome in (PickOutcome.PRESENT, PickOutcome.PROXY_PRESENT) else "",
            now=pick.picked_at + dt.timedelta(seconds=seconds),
        )
    raise AssertionError("The draw did not complete.")


@pytest.fixture
def run(reference_data):
    """The complete draw, its three entrants and its record's two files."""
    series = make_series()
    series.winners_per_draw = 3
    series.save()
    with time_machine.travel(DECLINED_AT - dt.timedelta(hours=1), tick=False):
        draw = make_draw(series, DRAW_AT)
        a, b, c = add_entries(draw, [4, 4, 4])
    with time_machine.travel(DECLINED_AT, tick=False):
        decline(member=a, draw=draw)
    with time_machine.travel(NOMINATED_AT, tick=False):
        nominate(participant=b, draw=draw, nominee=NOMINEE)
        revoked = nominate(participant=c, draw=draw, nominee=OTHER_NOMINEE)
    with time_machine.travel(REVOKED_AT, tick=False):
        proxy_revoke(actor=desk_actor(), nomination_id=revoked.pk, reason="Will come in person.")
    assert draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    assert draw_start(actor=MANAGER, draw_id=draw.pk, now=DRAW_AT)
    _run(draw, a, b, c)
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN
    return draw, (a, b, c), draw_record_files(draw)


def line_of(report, check: str):
    return next(line for line in report.lines if line.check == check)


def pick_line(report, record: dict, member, outcome: str):
    picks = enumerate(record["picks"], 1)
    number = next(n for n, p in picks if p["member_id"] == member.pk and p["outcome"] == outcome)
    return line_of(report, f"Pick {number}")


def test_the_record_holds_the_registers_of_the_draw_without_whole_id_numbers(run):
    draw, (a, b, c), files = run
    record = json.loads(files.json)
    assert list(record)[-1] == "registers"
    user = DeclineRegistration.objects.get(draw=draw).registered_by.username
    assert record["registers"] == {
        "proxy": [
            {
                "member_id": b.pk,
                "card_number": b.card_number,
                "nominee_name": "Lerato Khumalo",
                "nominee_id_last4": NOMINEE.id_number[-4:],
                "registered_at": "2025-10-15T10:05:00+02:00",
                "registered_by": record["registers"]["proxy"][0]["registered_by"],
                "revoked_at": None,
                "revoked_by": None,
            },
            {
                "member_id": c.pk,
                "card_number": c.card_number,
                "nominee_name": "Sipho Dube",
                "nominee_id_last4": OTHER_NOMINEE.id_number[-4:],
                "registered_at": "2025-10-15T10:05:00+02:00",
                "registered_by": record["registers"]["proxy"][1]["registered_by"],
                "revoked_at": "2025-10-15T10:10:00+02:00",
                "revoked_by": record["registers"]["proxy"][1]["revoked_by"],
            },
        ],
        "decline": [
            {
                "member_id": a.pk,
                "card_number": a.card_number,
                "registered_at": "2025-10-15T10:00:00+02:00",
                "registered_by": user,
                "revoked_at": None,
                "revoked_by": None,
            }
        ],
    }
    assert all(n["registered_by"] and n["registered_by"] != "None" for n in record["registers"]["proxy"])
    assert record["registers"]["proxy"][1]["revoked_by"]
    assert NOMINEE.id_number not in files.json.decode() and OTHER_NOMINEE.id_number not in files.json.decode()
    for member in (a, b, c):
        assert member.id_number not in files.json.decode()


def test_a_registration_of_someone_who_never_entered_is_left_out(run):
    draw, _, _ = run
    outsider = MemberFactory()
    nominee = nominee_for(name="Zanele Mahlangu", born=dt.date(1979, 2, 2))
    nomination_on_record(draw=draw, member=outsider, at=NOMINATED_AT, nominee=nominee)
    record = json.loads(draw_record_files(draw).json)
    assert outsider.pk not in {n["member_id"] for n in record["registers"]["proxy"]}


def test_a_true_record_holds_from_the_files_and_from_the_database(run):
    draw, (a, b, c), files = run
    record = json.loads(files.json)
    report = verify_record(files.json, files.entries)
    assert report.holds, report.text()
    assert line_of(report, "Registers").detail == (
        "2 proxy nominations (1 revoked) and 1 decline registration (0 revoked) of the draw's entrants"
    )
    assert "on the decline register since Wed 15 Oct 2025 10:00" in pick_line(report, record, a, "declined").detail
    proxy = pick_line(report, record, b, "proxy_present").detail
    assert f"nominee Lerato Khumalo (ID ending {NOMINEE.id_number[-4:]}), nominated Wed 15 Oct 2025 10:05" in proxy
    assert pick_line(report, record, c, "no_show").holds
    database = draw_verify(draw)
    assert database.holds, database.text()


def test_a_declined_pick_without_a_decline_on_record_does_not_hold(run):
    _, (a, _, _), files = run
    tampered = edit(files.json, lambda r: r["registers"].update(decline=[]))
    report = verify_record(tampered, files.entries)
    line = pick_line(report, json.loads(tampered), a, "declined")
    assert not report.holds and not line.holds
    assert f"declined, but member {a.pk} had no live decline at 13:" in line.detail
    assert line.detail.endswith("(the pick's time): none is registered for this member")
    assert [f.check for f in report.failures] == [line.check]


def test_a_proxy_present_after_the_nomination_was_revoked_does_not_hold(run):
    _, (_, b, _), files = run

    def revoke(record):
        nomination = record["registers"]["proxy"][0]
        nomination.update(revoked_at="2025-10-15T12:00:00+02:00", revoked_by="desk.dlamini")

    tampered = edit(files.json, revoke)
    report = verify_record(tampered, files.entries)
    line = pick_line(report, json.loads(tampered), b, "proxy_present")
    assert not line.holds and f"proxy_present, but member {b.pk} had no live proxy nomination at 13:" in line.detail
    assert line.detail.endswith("(the pick's time): revoked at 12:00:00")
    assert [f.check for f in report.failures] == [line.check]


def test_a_proxy_present_before_the_nomination_was_registered_does_not_hold(run):
    _, (_, b, _), files = run
    tampered = edit(files.json, lambda r: r["registers"]["proxy"][0].update(registered_at="2025-10-15T14:00:00+02:00"))
    line = pick_line(verify_record(tampered, files.entries), json.loads(tampered), b, "proxy_present")
    assert not line.holds and line.detail.endswith("registered only at 14:00:00")


def test_a_no_show_of_a_decliner_does_not_hold(run):
    _, (_, _, c), files = run

    def declined_too(record):
        record["registers"]["decline"].append(
            {
                "member_id": c.pk,
                "card_number": c.card_number,
                "registered_at": "2025-10-15T09:30:00+02:00",
                "registered_by": "desk.dlamini",
                "revoked_at": None,
                "revoked_by": None,
            }
        )

    tampered = edit(files.json, declined_too)
    report = verify_record(tampered, files.entries)
    line = pick_line(report, json.loads(tampered), c, "no_show")
    assert not line.holds
    assert f"no_show, but member {c.pk} was on the decline register at 13:" in line.detail
    assert "(since Wed 15 Oct 2025 09:30 (+02:00)): a decliner is a winner (declined), never redrawn" in line.detail


def test_the_database_check_sees_a_register_changed_after_the_draw(run):
    """draw_verify exports the record afresh: a decline withdrawn in the table behind the services'
    back (before the pick) shows at the declined pick."""
    draw, (a, _, _), _ = run
    DeclineRegistration.objects.filter(draw=draw).update(revoked_at=DECLINED_AT + dt.timedelta(hours=1))
    report = draw_verify(draw)
    assert not report.holds
    assert any(f"declined, but member {a.pk} had no live decline" in line.detail for line in report.failures)


def test_a_format_2_record_exported_before_the_registers_fails_only_when_an_outcome_rests_on_them(run):
    _, _, files = run
    old = edit(files.json, lambda r: r.pop("registers"))
    report = verify_record(old, files.entries)
    assert not report.holds
    assert [f.check for f in report.failures] == ["Registers"]
    assert line_of(report, "Registers").detail == (
        "the record holds no registers (exported before they were added), so its 2 declined or proxy-present "
        "outcome(s) cannot be checked against them: export the record again"
    )


def test_a_format_2_record_without_registers_or_outcomes_resting_on_them_still_holds(run):
    """Only present winners and a no-show: nothing rests on the registers (its no-shows are
    simply not checked against the decline register, and the report says so)."""
    _, _, files = run

    def present_only(record):
        record.pop("registers")
        for pick in record["picks"]:
            if pick["outcome"] in ("declined", "proxy_present"):
                pick["outcome"] = "present"

    report = verify_record(edit(files.json, present_only), files.entries)
    assert report.holds, report.text()
    assert line_of(report, "Registers").detail == (
        "the record holds no registers (exported before they were added); no outcome here rests on them; "
        "its no-shows are not checked against the decline register"
    )


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda r: r.update(registers=[]), '"registers" is not an object'),
        (lambda r: r["registers"].pop("decline"), '"registers.decline" is missing or not a list'),
        (
            lambda r: r["registers"]["decline"][0].pop("revoked_at"),
            '"revoked_at" of registers.decline item 1 is missing or not a text or null',
        ),
    ],
)
def test_registers_out_of_shape_fail_the_record(run, change, said):
    _, _, files = run
    report = verify_record(edit(files.json, change), files.entries)
    assert not line_of(report, "Record").holds and said in line_of(report, "Record").detail


def test_a_whole_id_number_a_time_without_offset_or_two_live_at_once_in_the_registers_do_not_hold(run):
    _, _, files = run

    def spoil(record):
        record["registers"]["proxy"][0]["nominee_id_last4"] = NOMINEE.id_number
        record["registers"]["decline"][0]["registered_at"] = "2025-10-15T10:00:00"
        twice = dict(record["registers"]["proxy"][0], registered_at="2025-10-15T11:00:00+02:00")
        record["registers"]["proxy"].append(twice)

    line = line_of(verify_record(edit(files.json, spoil), files.entries), "Registers")
    assert not line.holds
    member = json.loads(files.json)["registers"]["proxy"][0]["member_id"]
    assert f"member {member} has two proxy nominations live at once" in line.detail
    assert "registers.proxy item 1: the nominee's ID number is kept whole, not only its last four" in line.detail
    assert "registers.decline item 1: registered_at '2025-10-15T10:00:00' is not a time with its offset" in line.detail


def _run_alone(*args: str) -> subprocess.CompletedProcess:
    """Python without Django settings, from the project directory, as an auditor runs it."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(settings.BASE_DIR)}
    return subprocess.run(
        [sys.executable, *args], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, check=False
    )


def test_the_auditor_alone_checks_the_registers(run, tmp_path):
    _, (a, _, _), files = run
    json_path, entries_path = tmp_path / files.json_name, tmp_path / files.entries_name
    entries_path.write_bytes(files.entries)
    json_path.write_bytes(files.json)
    good = _run_alone("-m", "draws.verification", str(json_path), str(entries_path))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Registers: 2 proxy nominations (1 revoked) and 1 decline registration (0 revoked)" in good.stdout
    json_path.write_bytes(edit(files.json, lambda r: r["registers"].update(decline=[])))
    bad = _run_alone("-m", "draws.verification", str(json_path), str(entries_path))
    assert bad.returncode == 1
    assert f"declined, but member {a.pk} had no live decline at 13:" in bad.stdout and "DOES NOT HOLD" in bad.stdout


def test_the_shipped_spec_gives_the_fields_the_export_writes(run):
    """docs/draw-records-registers.md's example has exactly the exported keys, in their order."""
    _, _, files = run
    text = (settings.BASE_DIR / "docs" / "draw-records-registers.md").read_text(encoding="utf-8")
    example = json.loads("{" + text.split("```json\n", 1)[1].split("```", 1)[0] + "}")["registers"]
    exported = json.loads(files.json)["registers"]
    assert list(example) == list(exported) == ["proxy", "decline"]
    for register in ("proxy", "decline"):
        assert list(example[register][0]) == list(exported[register][0])


def test_verify_kept_for_a_complete_draw_sees_a_register_changed_in_its_table(run):
    """The page's Verify keeps a complete draw's report (draws.verify_cache): the registers are
    part of the record it fingerprints, so a decline withdrawn behind the services' back is seen."""
    draw, (a, _, _), _ = run
    assert cached_verify(draw, lambda: draw_verify(draw)).holds
    DeclineRegistration.objects.filter(draw=draw).update(revoked_at=DECLINED_AT + dt.timedelta(hours=1))
    again = cached_verify(draw, lambda: draw_verify(draw))
    assert any(f"declined, but member {a.pk} had no live decline" in line.detail for line in again.failures)
