"""The series form: a whole-number input per tier and per weekday and tier, and rows of ticket
windows, instead of JSON text areas (issue 6, items 2.2 and 2.8)."""

import re

import pytest
from django.urls import reverse

from promotions.models import DrawSeries, EarningRule, Promotion
from promotions.tests.factories import make_series
from promotions.tests.test_manager_screens import series_post

pytestmark = pytest.mark.django_db


@pytest.fixture
def promotion(reference_data):
    promotion = Promotion.objects.create(
        code="heat", name="Turn Up the Heat", starts_on="2025-10-01", ends_on="2025-12-31"
    )
    promotion.properties.add(reference_data["properties"]["GRC"])
    return promotion


def post(client, promotion, reference_data, **fields):
    return client.post(reverse("promotions:series_new", args=[promotion.pk]), series_post(reference_data, **fields))


def test_the_structured_inputs_are_stored_in_the_rules_json_shapes(manager, reference_data, promotion):
    response = post(
        manager,
        promotion,
        reference_data,
        **{
            "rule-ppt_QUEEN": 180,
            "rule-ppt_KING": 150,
            "rule-free_QUEEN": 10,
            "rule-free_ACE": 0,
            "rule-cap_TEN": 20,
            "rule-weekday4_ACE": 50,
            "rule-weekday5_ACE": 30,
            "rule-weekday5_TEN": "",
            "series-window1_day": -1,
            "series-window1_open": "21:00",
            "series-window1_close": "24:00",
            "series-window1_close_before": "",
            "series-window2_day": 0,
            "series-window2_open": "08:00",
            "series-window2_close_before": 15,
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    rule = EarningRule.objects.get(series__promotion=promotion)
    assert rule.points_per_ticket_by_tier == {"QUEEN": 180, "KING": 150}
    assert rule.free_tickets_by_tier == {"QUEEN": 10, "ACE": 0}
    assert rule.cap_by_tier == {"TEN": 20}
    assert rule.free_tickets_by_weekday == {"4": {"ACE": 50}, "5": {"ACE": 30}}
    assert rule.series.ticket_windows == [
        {"day": -1, "open": "21:00", "close": "24:00"},
        {"day": 0, "open": "08:00", "close_before": 15},
    ]


# What a manager could type into a number box in place of the values that broke the pages.
@pytest.mark.parametrize(
    ("field", "typed", "message"),
    [
        ("rule-free_ACE", "abc", "Enter a whole number."),
        ("rule-free_ACE", "[5]", "Enter a whole number."),
        ("rule-ppt_ACE", "[1]", "Enter a whole number."),
        ("rule-ppt_ACE", "1e30", "Enter a whole number."),
        ("rule-ppt_ACE", "2.5", "Enter a whole number."),
        ("rule-free_ACE", str(2**63 - 1), "Ensure this value is less than or equal to 1000000."),
        ("rule-free_ACE", "-1", "Ensure this value is greater than or equal to 0."),
        ("rule-cap_KING", "x", "Enter a whole number."),
        ("rule-cap_KING", "0", "Ensure this value is greater than or equal to 1."),
        ("rule-weekday0_ACE", "{}", "Enter a whole number."),
        ("rule-weekday0_ACE", "1000001", "Ensure this value is less than or equal to 1000000."),
        ("rule-points_per_ticket", str(2**31), "Ensure this value is less than or equal to 1000000."),
        ("rule-bonus_per_visit", "10000000", "Ensure this value is less than or equal to 1000000."),
    ],
)
def test_it_refuses_a_bad_number_with_a_readable_message(manager, reference_data, promotion, field, typed, message):
    response = post(manager, promotion, reference_data, **{field: typed})
    page = response.content.decode()
    assert response.status_code == 200
    assert message in page
    assert "JSON" not in page
    assert not DrawSeries.objects.exists()


def test_a_tier_that_does_not_exist_has_no_box_and_is_not_stored(manager, reference_data, promotion):
    response = post(manager, promotion, reference_data, **{"rule-free_Kings": 5, "rule-free_Queen": 10})
    assert response.status_code == 302
    assert EarningRule.objects.get().free_tickets_by_tier == {"QUEEN": 10}  # series_post's own Queen box


def test_it_refuses_a_series_at_a_property_the_promotion_does_not_run_at(manager, reference_data, promotion):
    response = post(manager, promotion, reference_data, **{"series-property": reference_data["properties"]["GH"].pk})
    assert "Turn Up the Heat runs at Gold Reef City, not at Golden Horse" in response.content.decode()
    assert not DrawSeries.objects.exists()


def test_the_edit_form_shows_the_stored_numbers_in_their_boxes(manager, reference_data):
    series = make_series(
        windows=[{"day": -1, "open": "21:00", "close": "24:00"}],
        free_tickets_by_tier={"QUEEN": 10},
        free_tickets_by_weekday={"4": {"ACE": 50}},
    )
    context = manager.get(reverse("promotions:series_edit", args=[series.pk])).context
    form, rule_form = context["form"], context["rule_form"]
    assert rule_form["free_QUEEN"].value() == 10
    assert rule_form["weekday4_ACE"].value() == 50
    assert rule_form["free_ACE"].value() is None
    assert (form["window1_day"].value(), form["window1_close"].value()) == (-1, "24:00")


def test_the_edit_form_of_an_unreadable_rule_says_so_instead_of_failing(manager, reference_data):
    series = make_series()
    EarningRule.objects.filter(series=series).update(free_tickets_by_tier=[5])
    DrawSeries.objects.filter(pk=series.pk).update(ticket_windows="abc")
    response = manager.get(reverse("promotions:series_edit", args=[series.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Free tickets: give a number for each tier, not [5]." in page
    assert "Ticket windows: give at least one window." in page


def test_mistakes_in_both_the_series_and_its_rule_are_shown_together(manager, reference_data, promotion):
    response = post(manager, promotion, reference_data, **{"series-winners_per_draw": "x", "rule-free_ACE": "abc"})
    page = response.content.decode()
    assert response.status_code == 200
    assert page.count("Enter a whole number.") == 2
    assert not DrawSeries.objects.exists()


@pytest.mark.parametrize(("field", "typed"), [("series-name", "Cash\ufffd draw"), ("rule-assumptions", "a\x00b")])
def test_broken_characters_are_refused_on_the_series_page_too(manager, reference_data, promotion, field, typed):
    response = post(manager, promotion, reference_data, **{field: typed})
    assert response.status_code == 200
    assert not DrawSeries.objects.exists()


def test_a_fixed_period_in_year_one_is_a_form_error(manager, reference_data, promotion):
    response = post(
        manager, promotion, reference_data, **{"rule-period_kind": "fixed", "rule-fixed_start": "0001-01-01T00:30"}
    )
    assert response.status_code == 200
    assert "Enter a date between 1900 and 2100." in response.content.decode()
    assert not DrawSeries.objects.exists()


def test_the_new_series_page_has_one_input_per_time_and_shows_eight(manager, promotion):
    """The 08h00 defaults are a callable (promotions.models.eight_am): no hidden "initial-" copy."""
    page = manager.get(reverse("promotions:series_new", args=[promotion.pk])).content.decode()
    assert 'name="initial-' not in page
    for name in ("proxies_open", "period_start_time"):
        assert re.search(rf'name="[\w-]*{name}"[^>]*value="08:00', page) or re.search(
            rf'value="08:00[^"]*"[^>]*name="[\w-]*{name}"', page
        ), name
