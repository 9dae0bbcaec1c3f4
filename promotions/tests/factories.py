from members.models import Property, Tier
from promotions.models import DrawSeries, EarningRule, Promotion, PromotionStatus


def make_series(
    *,
    property_code: str = "GRC",
    tiers: tuple[str, ...] = ("TEN", "JACK", "QUEEN", "KING", "ACE"),
    desk_tiers: tuple[str, ...] = ("QUEEN", "KING", "ACE"),
    windows: list | None = None,
    **rule,
) -> DrawSeries:
    """A promotion with one series and its earning rule (the keyword arguments)."""
    prop = Property.objects.get(code=property_code)
    promotion, _ = Promotion.objects.get_or_create(
        code="test-promo",
        defaults={
            "name": "Test promotion",
            "starts_on": "2025-01-01",
            "ends_on": "2099-12-31",  # far ahead: tests that schedule near now() work in any year
            "status": PromotionStatus.PUBLISHED,
        },
    )
    promotion.properties.add(prop)
    series = DrawSeries.objects.create(
        promotion=promotion,
        code=f"series-{DrawSeries.objects.count() + 1}",
        name="Test cash draw",
        property=prop,
        winners_per_draw=5,
        ticket_windows=windows if windows is not None else [{"day": 0, "open": "08:00", "close": "12:55"}],
    )
    series.eligible_tiers.set(Tier.objects.filter(code__in=tiers))
    series.desk_assisted_tiers.set(Tier.objects.filter(code__in=desk_tiers))
    EarningRule.objects.create(series=series, **({"points_per_ticket": 100} | rule))
    return series
