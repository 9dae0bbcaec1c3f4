"""The earning rule of a draw in words, as a manager or auditor checks it against the terms."""

from draws.models import Draw
from members.models import Tier
from promotions.rule_words import series_rule_in_words


def rule_in_words(draw: Draw, tiers: list[Tier]) -> list[str]:
    """The draw's series' earning rule in words (promotions.rule_words), with the draw's own
    points per ticket when it has one. Raises promotions.rules.RuleUnreadable when the stored
    rule cannot be read."""
    return series_rule_in_words(
        draw.series, tiers, points_per_ticket=draw.points_per_ticket, property_name=draw.property.name
    )
