"""The promotion page a manager can trust (issue 9, item 7): each series' earning rule in words,
its assumptions as visible text, breadcrumbs back, and links to its draws."""

import datetime as dt
import html
import re

import pytest
from django.urls import reverse

from promotions.models import EarningRule, PeriodKind
from promotions.rule_words import period_sentence
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))


def text(response) -> str:
    return html.unescape(response.content.decode())


def series_row(response, series) -> str:
    page = text(response)
    start = page.index(f'id="series-{series.pk}"')
    return page[start : page.index("</tbody>", start)]


def test_each_series_shows_its_earning_rule_in_words(auditor, reference_data):
    series = make_series(
        tiers=("QUEEN", "KING"),
        points_per_ticket=None,
        points_per_ticket_by_tier={"KING": 200, "QUEEN": 100},
        free_tickets_by_tier={"QUEEN": 10},
        cap=50,
    )
    row = series_row(auditor.get(reverse("promotions:detail", args=[series.promotion_id])), series)
    assert "Points earned in the 7 days before the draw count." in row
    assert "Points per ticket: Queen 100, King 200." in row
    assert "Free tickets: Queen 10." in row
    assert "At most 50 tickets per patron." in row
    assert "Tiers: Queen, King" in row


def test_the_assumptions_are_text_on_the_page_not_a_tooltip(manager, reference_data):
    series = make_series()
    EarningRule.objects.filter(series=series).update(assumptions="Rule 4's table is missing: 100 points per ticket.")
    response = manager.get(reverse("promotions:detail", args=[series.promotion_id]))
    row = series_row(response, series)
    visible = re.sub(r"<[^>]+>", "", row)
    assert "Assumed values: Rule 4's table is missing: 100 points per ticket." in visible
    assert 'title="Rule 4' not in row


def test_an_unreadable_rule_is_said_for_its_series_and_the_page_still_opens(manager, reference_data):
    series = make_series()
    EarningRule.objects.filter(series=series).update(free_tickets_by_tier=[5])
    response = manager.get(reverse("promotions:detail", args=[series.promotion_id]))
    assert response.status_code == 200
    assert "The earning rule of Test promotion: Test cash draw cannot be read" in series_row(response, series)


def test_the_page_links_back_to_the_promotions_and_on_to_its_draws(desk, reference_data):
    series = make_series()
    page = desk.get(reverse("promotions:detail", args=[series.promotion_id])).content.decode()
    assert 'aria-label="Breadcrumb"' in page
    assert f'<a href="{reverse("promotions:list")}">Promotions</a>' in page
    assert f"{reverse('draws:list')}?promotion={series.promotion_id}&amp;property=all&amp;when=all" in page


def test_the_series_edit_page_has_the_way_back(manager, reference_data):
    series = make_series()
    page = manager.get(reverse("promotions:series_edit", args=[series.pk])).content.decode()
    assert f'href="{reverse("promotions:detail", args=[series.promotion_id])}#series-{series.pk}"' in page


@pytest.mark.parametrize(
    ("changes", "sentence"),
    [
        (
            {"period_kind": PeriodKind.DAYS_BEFORE, "period_days": 1},
            "Points earned in the 1 day before the draw count.",
        ),
        ({"period_kind": PeriodKind.MONTH_TO_DATE}, "Points earned from 08:00 on the 1st of the draw's month count."),
        (
            {
                "period_kind": PeriodKind.FIXED,
                "fixed_start": dt.datetime(2025, 9, 27, 8, 0, tzinfo=SAST),
                "fixed_end": dt.datetime(2025, 12, 27, 20, 55, tzinfo=SAST),
            },
            "Points earned from Sat 27 Sep 2025 08:00 to Sat 27 Dec 2025 20:55 count.",
        ),
        ({"period_kind": PeriodKind.NONE}, "No points are needed."),
    ],
)
def test_the_earning_period_reads_as_a_sentence(reference_data, changes, sentence):
    series = make_series()
    EarningRule.objects.filter(series=series).update(**changes)
    assert period_sentence(EarningRule.objects.get(series=series)) == sentence
