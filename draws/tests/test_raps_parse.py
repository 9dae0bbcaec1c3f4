"""Reading a RAPS active-player list (DRAWS.md §5): money to cents, the header, every kind of
bad row reported by its line, the excluded machines, and the canonical list's exact bytes."""

import pytest

from draws import raps
from draws.raps import (
    ParsedList,
    Qualification,
    RapsListRefused,
    RapsRow,
    excluded_devices_parse,
    rand,
    raps_list_parse,
    spend_to_cents,
)
from draws.tests.raps_fixtures import HEADER, csv_text, player
from members.models import Member

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("text", "cents"),
    [("1500", 150000), ("1500.5", 150050), ("1500.50", 150050), ("0.01", 1), ("0", 0), (" 7.05 ", 705)],
)
def test_spend_in_rand_becomes_exact_cents(text, cents):
    assert spend_to_cents(text) == cents


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("-5", "negative"),
        ("1,500.00", "thousands separator"),
        ("1 500", "thousands separator"),
        ("R1500", "starts with R"),
        ("1500.505", "at most two decimals"),
        ("1500.", "at most two decimals"),
        (".5", "at most two decimals"),
        ("1e3", "at most two decimals"),
        ("\u0661\u0665\u0660\u0660", "at most two decimals"),  # Arabic-Indic digits: int() takes them
        ("1_500", "at most two decimals"),  # and this
        ("", "blank"),
        ("99999999999999", "far too large"),
    ],
)
def test_a_bad_spend_is_refused_with_its_reason(text, says):
    with pytest.raises(ValueError, match=says):
        spend_to_cents(text)


def test_money_is_shown_in_rand():
    assert rand(150050) == "R 1,500.50"
    assert rand(5) == "R 0.05"


def test_a_list_with_a_bom_and_a_header_in_capitals_is_read(reference_data):
    ace = player("6100000001")
    parsed = raps_list_parse("\ufeffCard_Number, Device_Type ,DEVICE_ID,spend\r\n6100000001,SLOT,A17,1500.5\r\n")
    assert [(r.line, r.card_number, r.pool, r.device_id, r.spend_cents, r.member) for r in parsed.rows] == [
        (2, "6100000001", "slot", "A17", 150050, ace)
    ]


@pytest.mark.parametrize(
    ("text", "code", "says"),
    [
        ("", "raps_empty_list", "The file is empty"),
        ("6100000001,slot,A17,100\n", "raps_bad_header", "Line 1 must be the header"),
        ("card,type,machine,spend\n6100000001,slot,A17,100\n", "raps_bad_header", "Line 1 must be the header"),
        (HEADER, "raps_empty_list", "no players"),
        (HEADER + '6100000001,slot,"A17,100\n', "raps_not_csv", "Line 2 cannot be read as CSV"),
    ],
)
def test_a_file_that_is_not_a_list_is_refused(reference_data, text, code, says):
    player("6100000001")
    with pytest.raises(RapsListRefused) as refused:
        raps_list_parse(text)
    assert refused.value.code == code
    assert says in refused.value.message


def test_every_bad_row_is_reported_by_its_line_with_every_reason(reference_data):
    player("6100000001")
    player("6100000002")
    text = csv_text(
        "6100000001,slot,A17,100.00",  # line 2: good
        "6100000001,slot,A17",  # 3: three columns
        "6100000002,chair,A17,100",  # 4: unknown device type
        "6100000002,slot,A18,R100",  # 5: bad spend
        "6199999999,slot,A19,100",  # 6: unknown card
        "6100000002,table, ,100",  # 7: blank device id
        "6100000001,SLOT,A17,5",  # 8: the same card on the same device as line 2
        ",slot,A20,-1",  # 9: blank card and a negative spend
        "",  # 10: a blank line is skipped, the numbering goes on
        "6199999998,table,BJ3,1.234",  # 11: unknown card and bad spend, both said
        "6100000002,slot,A17,1",  # 12: good: another card on A17
        "6100000001,table,A17,1",  # 13: good: the same card on a table called A17
    )
    with pytest.raises(RapsListRefused) as refused:
        raps_list_parse(text)
    errors = {error.line: error.reasons for error in refused.value.line_errors}
    assert sorted(errors) == [3, 4, 5, 6, 7, 8, 9, 11]
    assert errors[3] == ("has 3 columns instead of 4 (card_number,device_type,device_id,spend)",)
    assert errors[4] == ("device type “chair” is neither slot nor table",)
    assert errors[5] == ("spend “R100” starts with R: write the amount only, like 1500.00",)
    assert errors[6] == ("card number 6199999999 is not a member's card",)
    assert errors[7] == ("device id is blank",)
    assert errors[8] == ("the same card on slot A17 as line 2",)
    assert errors[9] == ("card number is blank", "spend “-1” is negative")
    assert errors[11] == (
        "spend “1.234” is not an amount in rand like 1500.00 (at most two decimals)",
        "card number 6199999998 is not a member's card",
    )
    assert "8 of the 11 rows are wrong" in refused.value.message
    assert "nothing was uploaded" in refused.value.message
    assert [e.text for e in refused.value.line_errors][:2] == ["6100000001,slot,A17", "6100000002,chair,A17,100"]


def test_a_device_id_that_would_break_the_canonical_line_is_refused(reference_data):
    player("6100000001")
    text = csv_text('6100000001,slot,"A,17",1', "6100000001,slot,A\x0018,1", f"6100000001,slot,{'X' * 41},1")
    with pytest.raises(RapsListRefused) as refused:
        raps_list_parse(text)
    assert [(e.line, e.reasons) for e in refused.value.line_errors] == [
        (2, ("device id holds a comma, a quote or an invisible control character",)),
        (3, ("device id holds a comma, a quote or an invisible control character",)),
        (4, ("device id is longer than 40 characters",)),
    ]


def test_a_card_with_a_nul_is_refused_without_asking_the_database(reference_data):
    with pytest.raises(RapsListRefused) as refused:
        raps_list_parse(csv_text("61000\x0000001,slot,A1,1"))
    assert refused.value.line_errors[0].reasons == ("card number holds a quote or an invisible control character",)


def test_members_are_looked_up_in_one_query(reference_data, django_assert_num_queries):
    rows = [f"{player(f'62000000{n:02d}').card_number},slot,A{n},1" for n in range(30)]
    with django_assert_num_queries(1):
        assert len(raps_list_parse(csv_text(*rows)).rows) == 30


def test_a_list_over_the_row_limit_is_refused_with_a_clear_message(reference_data, monkeypatch):
    player("6100000001")
    monkeypatch.setattr(raps, "MAX_ROWS", 3)
    assert len(raps_list_parse(csv_text(*[f"6100000001,slot,A{n},1" for n in range(3)])).rows) == 3
    with pytest.raises(RapsListRefused, match="more than 3 players") as refused:
        raps_list_parse(csv_text(*[f"6100000001,slot,A{n},1" for n in range(4)]))
    assert refused.value.code == "raps_too_large"


def test_a_file_over_the_size_limit_is_refused(reference_data, monkeypatch):
    monkeypatch.setattr(raps, "MAX_BYTES", 100)
    with pytest.raises(RapsListRefused, match="larger than") as refused:
        raps_list_parse(csv_text(*["6100000001,slot,A1,1"] * 5))
    assert refused.value.code == "raps_too_large"


def test_excluded_machines_are_read_in_one_format():
    typed = "slot:A17, table:BJ3\nTABLE: RO1 ; slot:a17\n\n"
    assert excluded_devices_parse(typed) == ["slot:A17", "table:BJ3", "table:RO1"]
    assert excluded_devices_parse("  ") == []
    for bad in ("A17", "chair:1", "slot:", 'slot:"A1'):
        with pytest.raises(ValueError, match=r"is not a machine like slot:A17|no quotes"):
            excluded_devices_parse(bad)


def _row(card: str, pool: str, device: str, cents: int) -> RapsRow:
    return RapsRow(line=0, card_number=card, pool=pool, device_id=device, spend_cents=cents, member=Member())


def test_the_canonical_list_is_sorted_by_bytes_and_hashed_exactly():
    rows = [
        _row("500", "table", "BJ3", 1),
        _row("300", "slot", "9", 150050),
        _row("200", "slot", "10", 0),
        _row("101", "slot", "a1", 7),
        _row("100", "slot", "B1", 7),  # "B" (0x42) sorts before "a" (0x61): bytes, not a dictionary
        _row("20", "slot", "10", 5),  # the same machine: card "20" before "200"
        _row("1", "slot", "É1", 2),  # a multi-byte character sorts after every ASCII one
    ]
    qualification = Qualification(sorted(rows, key=RapsRow.sort_key), [])
    expected = (
        b"20,slot,10,5\n"
        b"200,slot,10,0\n"
        b"300,slot,9,150050\n"
        b"100,slot,B1,7\n"
        b"101,slot,a1,7\n"
        b"1,slot,\xc3\x891,2\n"
        b"500,table,BJ3,1\n"
    )
    assert qualification.canonical() == expected
    assert qualification.pool_sizes() == {"slot": 6, "table": 1}
    assert ParsedList(rows).rows_read == 7
