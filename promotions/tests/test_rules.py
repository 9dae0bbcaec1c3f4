"""promotions.rules: the one place an earning rule's numbers and a series' ticket windows are
checked, for the form, the services and every reader (issue 6, item 2.2)."""

import datetime as dt

import pytest

from promotions.rules import RuleInvalid, RuleValues, rule_values_validate, windows_parse

TIERS = ["TEN", "JACK", "QUEEN", "KING", "ACE"]
SAST = dt.timezone(dt.timedelta(hours=2))


def refusal(**values) -> str:
    with pytest.raises(RuleInvalid) as caught:
        rule_values_validate(values, tier_codes=TIERS)
    return caught.value.message


# The values that were saved and then answered 500 on every page of their property.
@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"free_tickets_by_tier": [5]}, "Free tickets: give a number for each tier, not [5]."),
        ({"points_per_ticket_by_tier": []}, "Points per ticket: give a number for each tier, not []."),
        ({"points_per_ticket_by_tier": [1, 2]}, "Points per ticket: give a number for each tier, not [1, 2]."),
        ({"points_per_ticket_by_tier": "abc"}, 'Points per ticket: give a number for each tier, not "abc".'),
        ({"points_per_ticket_by_tier": {"ACE": "abc"}}, 'Points per ticket, ACE: "abc" is not a whole number.'),
        ({"points_per_ticket_by_tier": {"ACE": [1]}}, "Points per ticket, ACE: [1] is not a whole number."),
        ({"points_per_ticket_by_tier": {"ACE": 2.5}}, "Points per ticket, ACE: 2.5 is not a whole number."),
        ({"points_per_ticket_by_tier": {"ACE": True}}, "Points per ticket, ACE: true is not a whole number."),
        ({"free_tickets_by_weekday": {"0": 5}}, "Free tickets on Mondays: give a number for each tier, not 5."),
        ({"free_tickets_by_weekday": []}, "Free tickets by weekday: give free tickets per tier for each weekday"),
        ({"free_tickets_by_weekday": {"7": {"ACE": 5}}}, 'Free tickets by weekday: "7" is not a weekday'),
        ({"cap_by_tier": {"KING": "x"}}, 'Most tickets per patron, KING: "x" is not a whole number.'),
        ({"cap_by_tier": {"KING": 0}}, "Most tickets per patron, KING: 0 is less than 1."),
        (
            {"free_tickets_by_tier": {"ACE": 2**63 - 1}},
            "Free tickets, ACE: 9,223,372,036,854,775,807 is more than 1,000,000.",
        ),
        ({"free_tickets_by_tier": {"ACE": 1e30}}, "Free tickets, ACE: 1e+30 is not a whole number."),
        ({"free_tickets_by_tier": {"ACE": -1}}, "Free tickets, ACE: -1 is less than 0."),
        ({"points_per_ticket": 2**31}, "Points per ticket: 2,147,483,648 is more than 1,000,000."),
        ({"cap": 0}, "Most tickets per patron: 0 is less than 1."),
        ({"bonus_per_visit": 10**7}, "Bonus per visit: 10,000,000 is more than 1,000,000."),
    ],
)
def test_it_refuses_each_value_that_broke_a_page_in_words_a_manager_reads(values, message):
    text = refusal(**values)
    assert message in text
    assert "JSON" not in text and "'" not in text  # no "Enter a valid JSON", no Python repr


def test_it_refuses_keys_that_are_not_tier_codes_and_names_the_tiers():
    text = refusal(free_tickets_by_tier={"Queen": 10, "Kings": 5})
    assert text == ('Free tickets: "Queen", "Kings" are not tier codes (the tiers are TEN, JACK, QUEEN, KING, ACE).')


def test_it_gives_every_reason_at_once_each_with_its_field():
    with pytest.raises(RuleInvalid) as caught:
        rule_values_validate({"free_tickets_by_tier": [5], "cap": 0}, tier_codes=TIERS)
    assert [name for name, _ in caught.value.errors] == ["cap", "free_tickets_by_tier"]
    assert caught.value.code == "bad_rule"


def test_empty_values_mean_not_set():
    values = rule_values_validate(
        {"points_per_ticket": None, "cap": None, "free_tickets_by_tier": {}, "free_tickets_by_weekday": {}},
        tier_codes=TIERS,
    )
    assert values == RuleValues()
    assert not values.gives_tickets()


def test_a_good_rule_keeps_its_stored_shape():
    stored = {
        "points_per_ticket_by_tier": {"QUEEN": 180, "KING": 150},
        "free_tickets_by_tier": {"ACE": 50, "KING": 40},
        "free_tickets_by_weekday": {"4": {"ACE": 50, "TEN": 5}, "5": {"ACE": 30}},
        "cap_by_tier": {"TEN": 50},
    }
    values = rule_values_validate({**stored, "points_per_ticket": 100, "cap": 1000}, tier_codes=TIERS)
    assert values.as_stored() == stored
    assert values.free_tickets_on(4) == {"ACE": 50, "KING": 40, "TEN": 5}  # Friday's numbers replace, tier by tier
    assert values.free_tickets_on(0) == {"ACE": 50, "KING": 40}


def test_readers_leave_the_tier_check_out():
    # A code no member has gives nobody anything where it is read; only saving refuses it.
    assert RuleValues.parse({"free_tickets_by_tier": {"OLD": 3}}).free_tickets_by_tier == {"OLD": 3}


@pytest.mark.parametrize(
    ("windows", "message"),
    [
        ({"open": "08:00"}, "Ticket windows: give at least one window."),
        ([], "Ticket windows: give at least one window."),
        ([5], "Window 1: give its day, opening time and closing, not 5."),
        (
            [{"day": 0, "open": "8 am", "close": "12:55"}],
            'Window 1: the opening time "8 am" is not a time such as 08:00.',
        ),
        ([{"day": 0, "open": "13:00", "close": "12:00"}], "Window 1: it closes at 12:00, not after it opens at 13:00."),
        ([{"day": 0, "open": "08:00"}], "Window 1: give a closing time or the minutes before the draw it closes."),
        ([{"day": 0, "open": "08:00", "close": "12:00", "close_before": 5}], "not both."),
        ([{"day": 1, "open": "08:00", "close_before": 5}], "Window 1: the day: 1 is more than 0"),
        ([{"day": -8, "open": "08:00", "close_before": 5}], "Window 1: the day: -8 is less than -7"),
        ([{"day": "x", "open": "08:00", "close_before": 5}], 'Window 1: the day: "x" is not a whole number'),
        ([{"day": 0, "open": "08:00", "close_before": 721}], "minutes before the draw: 721 is more than 720."),
        ([{"day": 0, "open": "08:00", "close_before": 1e30}], "minutes before the draw: 1e+30 is not a whole number."),
        ([{"day": 0, "open": "08:00", "close": "25:00"}], 'the closing time "25:00" is not a time such as 08:00.'),
        ([{"day": 0, "open": "08:00", "close_before": 5, "colour": "red"}], '"colour" is not a window setting.'),
        ([{"day": 0, "open": "08:00", "close_before": 5}] * 5, "Ticket windows: at most 4 windows per draw."),
    ],
)
def test_it_refuses_a_window_the_scheduler_cannot_lay_out(windows, message):
    with pytest.raises(RuleInvalid) as caught:
        windows_parse(windows)
    assert message in caught.value.message
    assert caught.value.code == "bad_window"
    assert "'" not in caught.value.message


def test_the_seed_window_shapes_lay_out_as_before():
    saturday_2100 = dt.datetime(2026, 7, 4, 21, 0, tzinfo=SAST)
    specs = windows_parse(
        [{"day": -1, "open": "21:00", "close": "24:00"}, {"day": 0, "open": "08:00", "close_before": 15}]
    )
    assert [spec.lay_out(saturday_2100) for spec in specs] == [
        (dt.datetime(2026, 7, 3, 21, 0, tzinfo=SAST), dt.datetime(2026, 7, 4, 0, 0, tzinfo=SAST)),
        (dt.datetime(2026, 7, 4, 8, 0, tzinfo=SAST), dt.datetime(2026, 7, 4, 20, 45, tzinfo=SAST)),
    ]
    assert [spec.as_stored() for spec in specs] == [
        {"day": -1, "open": "21:00", "close": "24:00"},
        {"day": 0, "open": "08:00", "close_before": 15},
    ]


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ({"day": -1, "open": "21:00", "close": "24:00"}, "the day before, 21:00 until midnight"),
        ({"day": 0, "open": "08:00", "close_before": 5}, "the draw day, 08:00 until 5 minutes before the draw"),
        ({"day": 0, "open": "08:00", "close_before": 0}, "the draw day, 08:00 until the draw starts"),
        ({"day": 0, "open": "08:00", "close": "12:55"}, "the draw day, 08:00 until 12:55"),
    ],
)
def test_a_window_reads_as_words(spec, words):
    assert [str(w) for w in windows_parse([spec])] == [words]
