"""Issue 12, "Smaller": a RAPS device id a spreadsheet would run as a formula is refused with its
line, and a machine is one machine whatever the capitals it is typed in (device ids are kept in
upper case from the upload on, before the canonical list is written, and in the excluded list)."""

import pytest

from draws.models import RapsEntry
from draws.raps import RapsListRefused, excluded_devices_parse, raps_list_parse
from draws.tests.raps_fixtures import closed_session, csv_text, player, raps_series, upload

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("device", ["=1+2", "@SUM(A1)", "+A1", "-A1", '"\t=1+2"', '"\r@A1"'])
def test_a_device_id_a_spreadsheet_would_run_as_a_formula_is_refused_by_line(reference_data, device):
    player("6100000001")
    with pytest.raises(RapsListRefused) as refused:
        raps_list_parse(csv_text("6100000001,slot,A1,1", f"6100000001,slot,{device},1"))
    ((line, reasons),) = [(e.line, e.reasons) for e in refused.value.line_errors]
    assert line == 3
    assert len(reasons) == 1 and "a spreadsheet would run it as a formula" in reasons[0]


def test_a_device_id_with_a_formula_sign_inside_is_a_machine(reference_data):
    player("6100000001")
    parsed = raps_list_parse(csv_text("6100000001,slot,A-1=2,1"))
    assert parsed.rows[0].device_id == "A-1=2"


def test_one_machine_typed_in_two_capitals_is_one_machine(reference_data):
    player("6100000001")
    with pytest.raises(RapsListRefused) as refused:
        raps_list_parse(csv_text("6100000001,slot,A1,1", "6100000001,slot,a1,1"))
    assert [(e.line, e.reasons) for e in refused.value.line_errors] == [(3, ("the same card on slot A1 as line 2",))]


def test_device_ids_are_kept_in_upper_case_from_the_upload_on(reference_data):
    first, second = player("6100000001"), player("6100000002")
    session = closed_session(raps_series(winners=2))
    rows = (f"{first.card_number},slot,a1,1", f"{second.card_number},slot,A1,1")
    raps_list = upload(session, csv_text(*rows), slot_quota=2, table_quota=0)
    assert set(RapsEntry.objects.filter(raps_list=raps_list).values_list("device_id", flat=True)) == {"A1"}
    assert raps_list.canonical == "6100000001,slot,A1,100\n6100000002,slot,A1,100\n"


def test_the_excluded_list_is_kept_in_upper_case_and_matches_either(reference_data):
    assert excluded_devices_parse("slot:a17, SLOT:A17, table:bj3") == ["slot:A17", "table:BJ3"]
    lower, upper, other = player("6100000001"), player("6100000002"), player("6100000003")
    session = closed_session(raps_series(winners=1))
    rows = (f"{lower.card_number},slot,a17,1", f"{upper.card_number},slot,A17,1", f"{other.card_number},slot,B2,1")
    raps_list = upload(session, csv_text(*rows), excluded_devices=["slot:a17"], slot_quota=1, table_quota=0)
    assert raps_list.excluded_devices == ["slot:A17"]
    assert raps_list.canonical == "6100000003,slot,B2,100\n"
    assert raps_list.left_out["excluded_device"] == 2


@pytest.mark.parametrize("typed", ["slot:=1+2", "table:@SUM(A1)", "slot:+1", "slot:-A1"])
def test_an_excluded_machine_that_looks_like_a_formula_is_refused(typed):
    with pytest.raises(ValueError, match="cannot start with"):
        excluded_devices_parse(typed)
