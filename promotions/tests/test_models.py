"""What the promotion models say about themselves on pages."""

from promotions.tests.factories import make_series


def test_an_earning_period_reads_in_words(reference_data):
    assert make_series(period_kind="days_before", period_days=7).rule.period_words() == "the 7 days before the draw"
    assert make_series(period_kind="days_before", period_days=1).rule.period_words() == "the 1 day before the draw"
    assert make_series(period_kind="none").rule.period_words() == "No points needed"
