"""raps_list_upload (DRAWS.md §5, issue 8 item 3): who qualifies, the canonical list and its
hash on the draw, the fresh seed, the quotas, replacing a list until the first pick, refusals."""

import datetime as dt
import hashlib
import html

import pytest
from django.urls import reverse

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from draws.models import Draw, DrawStatus, RapsEntry, RapsList
from draws.raps import RapsListRefused, default_quotas
from draws.seeds import golden_horse_prive_powerplay, grc_royal_flush, load_promotion
from draws.services import draw_close_window
from draws.tests.factories import make_draw
from draws.tests.raps_fixtures import (
    SESSION,
    UPLOAD_AT,
    closed_session,
    csv_text,
    floor_rows,
    make_pick,
    player,
    raps_series,
    upload,
)
from members.tests.factories import ExclusionFactory
from promotions.tests.factories import make_series
from testing.db import triggers_off

pytestmark = pytest.mark.django_db


def test_the_list_becomes_the_draws_entries_with_a_fresh_seed(session, reference_data):
    for card in ("8000000001", "8000000002", "8000000003", "8000000004"):
        player(card)
    seed_at_close = session.seed_hex
    text = csv_text(
        "8000000004,table,BJ3,4000",
        "8000000001,slot,9,1500.5",
        "8000000002,slot,10,250",
        "8000000003,slot,10,0.01",
    )
    raps_list = upload(session, text, slot_quota=7, table_quota=3)
    expected = (
        b"8000000002,slot,10,25000\n8000000003,slot,10,1\n8000000001,slot,9,150050\n8000000004,table,BJ3,400000\n"
    )
    assert raps_list.canonical.encode() == expected
    assert raps_list.list_sha256 == hashlib.sha256(expected).hexdigest()
    rows = list(RapsEntry.objects.filter(raps_list=raps_list).values_list("pool", "row", "card_number", "spend_cents"))
    assert rows == [
        ("slot", 1, "8000000002", 25000),
        ("slot", 2, "8000000003", 1),
        ("slot", 3, "8000000001", 150050),
        ("table", 1, "8000000004", 400000),
    ]
    assert RapsEntry.objects.get(card_number="8000000004").member.card_number == "8000000004"
    draw = Draw.objects.get(pk=session.pk)
    assert (draw.entries_sha256, draw.entries_count, draw.tickets_total) == (raps_list.list_sha256, 4, 4)
    assert draw.entries_frozen_at == UPLOAD_AT
    assert draw.status == DrawStatus.CLOSED
    assert draw.seed_hex != seed_at_close and len(bytes.fromhex(draw.seed_hex)) == 32
    assert draw.seed_sha256 == hashlib.sha256(bytes.fromhex(draw.seed_hex)).hexdigest()
    assert (raps_list.rows_read, raps_list.file_name, raps_list.uploaded_by) == (4, "session.csv", "system:test")
    event = AuditEvent.objects.get(action="draw.raps_list_uploaded")
    assert event.object_id == str(draw.pk)
    assert event.data == {
        "file_name": "session.csv",
        "rows_read": 4,
        "qualifying": {"slot": 3, "table": 1},
        "left_out": {"below_min_spend": 0, "excluded_device": 0, "tier": 0, "not_eligible": 0},
        "list_sha256": raps_list.list_sha256,
        "seed_sha256": draw.seed_sha256,
        "quotas": {"slot": 7, "table": 3},
        "min_spend_cents": 0,
        "excluded_devices": [],
        "replaces": None,
    }


def test_who_qualifies_minimum_spend_machines_exclusions_age_and_tier(reference_data):
    draw = closed_session(raps_series(tiers=("QUEEN", "KING", "ACE")))
    equal, below, machine, excluded, young, ten, fine = (
        player("8100000001"),
        player("8100000002"),
        player("8100000003"),
        player("8100000004"),
        player("8100000005", date_of_birth=dt.date(2008, 7, 5)),  # 18 on 5 July 2026, the day after
        player("8100000006", tier="TEN"),
        player("8100000007", date_of_birth=dt.date(2008, 7, 4)),  # 18 on the session's day
    )
    ExclusionFactory(id_number=excluded.id_number, starts_at=SESSION - dt.timedelta(days=3))
    text = csv_text(
        "8100000001,slot,A1,500.00",  # exactly the minimum: qualifies
        "8100000002,slot,A2,499.99",  # one cent below: left out
        "8100000003,slot,a17,900",  # machine A17 is excluded, whatever its capitals
        "8100000004,slot,A4,900",
        "8100000005,table,BJ1,900",
        "8100000006,table,BJ2,900",
        "8100000007,table,BJ3,900",
    )
    raps_list = upload(
        draw, text, min_spend_cents=50000, excluded_devices=["slot:A17", "table:RO9"], slot_quota=6, table_quota=4
    )
    assert list(raps_list.entries.values_list("member", flat=True)) == [equal.pk, fine.pk]
    assert raps_list.left_out == {"below_min_spend": 1, "excluded_device": 1, "tier": 1, "not_eligible": 2}
    left_out = [(item.row.member, item.reason) for item in raps_list.report.left_out]
    assert left_out == [
        (below, "below_min_spend"),
        (machine, "excluded_device"),
        (excluded, "not_eligible"),
        (young, "not_eligible"),
        (ten, "tier"),
    ]
    details = {item.row.member: item.detail for item in raps_list.report.left_out}
    assert details[young].startswith("Under 18") and details[excluded].startswith("Self-excluded")
    assert raps_list.report.unmatched_exclusions == ["table:RO9"]
    assert raps_list.excluded_devices == ["slot:A17", "table:RO9"]
    assert Draw.objects.get(pk=draw.pk).entries_count == 2


def test_an_exclusion_that_ended_before_the_session_does_not_leave_a_player_out(session, reference_data):
    back = player("8200000001")
    ExclusionFactory(
        id_number=back.id_number, starts_at=SESSION - dt.timedelta(days=60), ends_at=SESSION - dt.timedelta(days=1)
    )
    raps_list = upload(session, csv_text("8200000001,slot,A1,1"), slot_quota=10, table_quota=0)
    assert raps_list.entries.count() == 1


def test_one_bad_row_refuses_the_whole_list_and_writes_nothing(session, floor):
    before = Draw.objects.values().get(pk=session.pk)
    rows = floor_rows(floor)
    rows[3] = rows[3].replace("100.00", "100,00")
    with pytest.raises(RapsListRefused) as refused:
        upload(session, csv_text(*rows))
    assert [error.line for error in refused.value.line_errors] == [5]
    assert refused.value.message.startswith("1 of the 10 rows is wrong (each is listed by line): nothing was uploaded.")
    assert not RapsList.objects.exists() and not RapsEntry.objects.exists()
    assert not AuditEvent.objects.filter(action="draw.raps_list_uploaded").exists()
    assert Draw.objects.values().get(pk=session.pk) == before


@pytest.mark.parametrize(
    ("quotas", "code", "says"),
    [
        ((6, 5), "raps_bad_quota", "(6 + 5) must add up to the session's 10 winners"),
        ((5, 4), "raps_bad_quota", "must add up"),
        ((-1, 11), "raps_bad_quota", "slot quota must be a whole number"),
        ((True, 9), "raps_bad_quota", "slot quota must be a whole number"),
        ((6.0, 4), "raps_bad_quota", "slot quota must be a whole number"),
    ],
)
def test_quotas_must_be_whole_numbers_adding_up_to_the_winners(session, floor, quotas, code, says):
    with pytest.raises(DomainError) as refused:
        upload(session, csv_text(*floor_rows(floor)), slot_quota=quotas[0], table_quota=quotas[1])
    assert refused.value.code == code
    assert says in refused.value.message
    assert not RapsList.objects.exists()


def test_a_pool_with_a_quota_needs_a_qualifying_player(session, floor):
    slots_only = floor_rows(floor)[:6]
    with pytest.raises(DomainError) as refused:
        upload(session, csv_text(*slots_only), slot_quota=6, table_quota=4)
    assert refused.value.code == "raps_empty_pool"
    assert "No table player qualifies, but the table quota is 4" in refused.value.message
    # Left out by the minimum spend counts as empty too.
    with pytest.raises(DomainError, match="No slot player qualifies"):
        upload(session, csv_text(*floor_rows(floor)), min_spend_cents=10001, slot_quota=6, table_quota=4)
    assert upload(session, csv_text(*slots_only), slot_quota=10, table_quota=0).entries.count() == 6


def test_a_bad_minimum_spend_or_excluded_machine_is_refused(session, floor):
    with pytest.raises(DomainError, match=r"minimum spend \(in cents\) must be a whole number") as refused:
        upload(session, csv_text(*floor_rows(floor)), min_spend_cents=-1)
    assert refused.value.code == "raps_bad_min_spend"
    with pytest.raises(DomainError, match="Excluded machines: “A17” is not a machine"):
        upload(session, csv_text(*floor_rows(floor)), excluded_devices=["A17"])


def test_a_new_upload_before_the_first_pick_replaces_the_list_and_its_seed(session, floor):
    first = upload(session, csv_text(*floor_rows(floor)))
    first_seed = Draw.objects.get(pk=session.pk).seed_sha256
    second = upload(
        session, csv_text(*floor_rows(floor)[1:]), file_name="corrected.csv", reason="Row 1 was a test card."
    )
    draw = Draw.objects.get(pk=session.pk)
    assert not RapsList.objects.filter(pk=first.pk).exists()
    assert list(RapsList.objects.values_list("pk", flat=True)) == [second.pk]
    assert RapsEntry.objects.count() == 9 and draw.entries_count == 9
    assert draw.entries_sha256 == second.list_sha256 != first.list_sha256
    assert draw.seed_sha256 != first_seed
    event = AuditEvent.objects.filter(action="draw.raps_list_uploaded").latest("pk")
    assert event.data["replaces"] == {
        "list_sha256": first.list_sha256,
        "seed_sha256": first_seed,
        "file_name": "session.csv",
        "uploaded_at": UPLOAD_AT.astimezone(dt.UTC).isoformat(),
        "uploaded_by": "system:test",
    }
    assert event.data["file_name"] == "corrected.csv"
    assert event.data["reason"] == "Row 1 was a test card."


def test_other_settings_with_the_same_file_replace_the_list(session, floor):
    first = upload(session, csv_text(*floor_rows(floor)))
    second = upload(session, csv_text(*floor_rows(floor)), slot_quota=5, table_quota=5, reason="Quotas agreed again.")
    assert second.pk != first.pk and second.list_sha256 == first.list_sha256
    assert AuditEvent.objects.filter(action="draw.raps_list_uploaded").count() == 2


def test_replacing_the_list_needs_a_reason(session, floor):
    """Each new list commits a new seed: uploads repeated without a word could go on until the
    seed favoured someone (issue 12, finding 3). The refusal changes nothing."""
    first = upload(session, csv_text(*floor_rows(floor)))
    draw = Draw.objects.values().get(pk=session.pk)
    for reason in ("", "   "):
        with pytest.raises(DomainError) as refused:
            upload(session, csv_text(*floor_rows(floor)[1:]), reason=reason)
        assert refused.value.code == "raps_replace_reason"
        assert refused.value.message == (
            "A list is already uploaded for this session: say why it is being replaced. "
            "The reason is kept in the audit log."
        )
    assert list(RapsList.objects.values_list("pk", flat=True)) == [first.pk]
    assert Draw.objects.values().get(pk=session.pk) == draw
    assert AuditEvent.objects.filter(action="draw.raps_list_uploaded").count() == 1
    assert "reason" not in AuditEvent.objects.get(action="draw.raps_list_uploaded").data, "a first upload needs none"


def test_the_reason_for_a_replacement_is_in_the_audit_log_in_words(session, floor, auditor):
    upload(session, csv_text(*floor_rows(floor)))
    upload(session, csv_text(*floor_rows(floor)[1:]), file_name="corrected.csv", reason="  Row 1 was a test card. ")
    event = AuditEvent.objects.filter(action="draw.raps_list_uploaded").latest("pk")
    assert event.data["reason"] == "Row 1 was a test card."
    text = html.unescape(auditor.get(reverse("audit")).content.decode())
    assert "replaced the active-player list of" in text
    assert "with corrected.csv because Row 1 was a test card." in text


def test_the_same_list_twice_changes_nothing(session, floor):
    first = upload(session, csv_text(*floor_rows(floor)))
    draw = Draw.objects.values().get(pk=session.pk)
    again = upload(session, csv_text(*floor_rows(floor)), file_name="double-click.csv")
    assert again.pk == first.pk and again.report.unchanged
    assert Draw.objects.values().get(pk=session.pk) == draw
    assert AuditEvent.objects.filter(action="draw.raps_list_uploaded").count() == 1


def test_no_upload_once_a_pick_is_made(session, floor):
    upload(session, csv_text(*floor_rows(floor)))
    make_pick(session, floor[0])
    with pytest.raises(DomainError) as refused:
        upload(session, csv_text(*floor_rows(floor)[1:]))
    assert refused.value.code == "raps_not_open"
    assert "can no longer be replaced" in refused.value.message
    assert RapsEntry.objects.count() == 10


@pytest.mark.parametrize("status", [DrawStatus.RUNNING, DrawStatus.DRAWN])
def test_no_upload_once_the_session_is_running_or_drawn(session, floor, status):
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=session.pk).update(status=status)
    with pytest.raises(DomainError, match="can no longer be replaced"):
        upload(session, csv_text(*floor_rows(floor)))


def test_no_upload_for_a_draw_that_is_not_a_raps_session(reference_data, floor):
    draw = make_draw(make_series(windows=[{"day": 0, "open": "08:00", "close_before": 5}]), SESSION)
    draw_close_window(draw_id=draw.pk, now=SESSION)
    with pytest.raises(DomainError) as refused:
        upload(draw, csv_text(*floor_rows(floor)))
    assert refused.value.code == "raps_not_open"
    assert "not a RAPS session" in refused.value.message
    assert not RapsList.objects.exists()


def test_no_upload_before_the_decline_register_closes_or_for_a_cancelled_session(reference_data, floor):
    draw = make_draw(raps_series(), SESSION)
    with pytest.raises(DomainError, match="once the session's decline register closes, at Sat 04 Jul 2026 18:00"):
        upload(draw, csv_text(*floor_rows(floor)), now=SESSION - dt.timedelta(seconds=1))
    with pytest.raises(DomainError, match="try again in a minute"):  # the tick has not closed it yet
        upload(draw, csv_text(*floor_rows(floor)), now=SESSION)
    Draw.objects.filter(pk=draw.pk).update(status=DrawStatus.CANCELLED)
    with pytest.raises(DomainError, match="is cancelled"):
        upload(draw, csv_text(*floor_rows(floor)), now=UPLOAD_AT)
    assert not RapsList.objects.exists()


def test_an_unknown_draw_is_refused(reference_data):
    with pytest.raises(DomainError) as refused:
        upload(Draw(pk=999999), csv_text())
    assert refused.value.code == "unknown_draw"


def test_default_quotas_follow_the_series_or_six_in_ten(reference_data):
    series = raps_series(winners=10)
    assert default_quotas(series) == (6, 4)
    series.winners_per_draw = 15
    assert default_quotas(series) == (9, 6)
    series.schedule_text = "18h00-19h00; 5 from slots, 10 from tables"
    assert default_quotas(series) == (5, 10)
    series.schedule_text = "18h00-19h00; 5 from slots, 5 from tables"  # not the 15 winners: not used
    assert default_quotas(series) == (9, 6)
    series.winners_per_draw = 1
    series.schedule_text = ""
    assert default_quotas(series) == (1, 0)


def test_a_prive_powerplay_session_takes_its_list_with_six_slot_and_four_table_winners(reference_data):
    promotion, _ = load_promotion(golden_horse_prive_powerplay.PROMOTION, actor=Actor.system("test"))
    draw = Draw.objects.get(series__promotion=promotion, series__code="sat-bonus-jackpot-raps", scheduled_at=SESSION)
    assert draw_close_window(draw_id=draw.pk, now=SESSION)
    assert default_quotas(draw.series) == (6, 4)
    members = [player(f"83000000{n:02d}", home_property=draw.property) for n in range(12)]
    rows = [f"{m.card_number},slot,GH{n:03d},{50 + n}" for n, m in enumerate(members[:8])]
    rows += [f"{m.card_number},table,BJ{n},75.25" for n, m in enumerate(members[8:])]
    raps_list = upload(Draw.objects.get(pk=draw.pk), csv_text(*rows))
    assert raps_list.entries.filter(pool="slot").count() == 8 and raps_list.entries.filter(pool="table").count() == 4
    assert Draw.objects.get(pk=draw.pk).entries_sha256 == raps_list.list_sha256


def test_a_royal_flush_session_admits_only_its_vip_tiers(reference_data):
    promotion, _ = load_promotion(grc_royal_flush.PROMOTION, actor=Actor.system("test"))
    at = dt.datetime(2024, 10, 16, 18, 0, tzinfo=SESSION.tzinfo)
    draw = Draw.objects.get(series__promotion=promotion, series__code="wed-bonus-jackpot-raps", scheduled_at=at)
    assert draw_close_window(draw_id=draw.pk, now=at)
    queens = [player(f"84000000{n:02d}", tier="QUEEN") for n in range(15)]
    jack = player("8400000099", tier="JACK")
    rows = [f"{m.card_number},{'slot' if n < 9 else 'table'},M{n},10" for n, m in enumerate(queens)]
    raps_list = upload(
        draw,
        csv_text(*rows, f"{jack.card_number},slot,M99,10"),
        slot_quota=9,
        table_quota=6,
        now=at + dt.timedelta(minutes=1),
    )
    assert raps_list.entries.count() == 15 and raps_list.left_out["tier"] == 1
