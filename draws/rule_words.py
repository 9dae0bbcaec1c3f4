"""The earning rule of a draw in words, as a manager or auditor checks it against the terms."""

from draws.models import Draw
from members.models import Tier
from promotions.models import EarningRule
from promotions.rules import WEEKDAYS


def _by_tier(values: dict[str, int], names: dict[str, str], ranks: dict[str, int]) -> str:
    # Only the tiers given: a code of no eligible tier gives no member anything, so it is not promised.
    ordered = sorted((item for item in values.items() if item[0] in names), key=lambda item: ranks[item[0]])
    return ", ".join(f"{names[code]} {value:,}" for code, value in ordered)


def rule_in_words(draw: Draw, tiers: list[Tier]) -> list[str]:
    """The series' earning rule as the sentences a manager or auditor checks against the
    promotion's terms and conditions (tier-keyed numbers named and ordered by `tiers`).
    Raises promotions.rules.RuleUnreadable when the stored rule cannot be read."""
    rule: EarningRule = draw.series.rule
    values = rule.values()
    names = {tier.code: tier.name for tier in tiers}
    ranks = {tier.code: tier.rank for tier in tiers}
    if rule.equal_opportunity_tickets is not None:
        return [f"Equal opportunity: every eligible member gets {rule.equal_opportunity_tickets:,} tickets."]
    lines = []
    if draw.points_per_ticket:
        lines.append(f"{draw.points_per_ticket:,} points per ticket (this draw's own rate).")
    elif per_tier := _by_tier(values.points_per_ticket_by_tier, names, ranks):
        other = f"; other tiers {rule.points_per_ticket:,}" if rule.points_per_ticket else ""
        lines.append(f"Points per ticket: {per_tier}{other}.")
    elif rule.points_per_ticket:
        lines.append(f"{rule.points_per_ticket:,} points per ticket, every tier.")
    else:
        lines.append("No tickets are earned from points.")
    if rule.minimum_points:
        lines.append(f"Tickets are earned from {rule.minimum_points:,} points in the earning period.")
    if free := _by_tier(values.free_tickets_by_tier, names, ranks):
        lines.append(f"Free tickets: {free}.")
    for weekday, numbers in sorted(values.free_tickets_by_weekday.items()):
        if free_that_day := _by_tier(numbers, names, ranks):
            lines.append(f"Free tickets when activated on {WEEKDAYS[weekday]}: {free_that_day}.")
    bonuses = [
        (rule.bonus_app_registered, "if registered on the app"),
        (rule.bonus_age_50_plus, "if aged 50 or older on the draw day"),
        (rule.bonus_active_at_property, f"if active at {draw.property.name} in the earning period"),
        (rule.bonus_per_visit, "per gaming visit (a day with points at the property)"),
        (rule.bonus_per_visit_app, "more per gaming visit for app-registered members"),
    ]
    if any(count for count, _ in bonuses):
        lines.append("Bonus tickets: " + "; ".join(f"{count:,} {what}" for count, what in bonuses if count) + ".")
    if caps := _by_tier(values.cap_by_tier, names, ranks):
        other = f"; other tiers {rule.cap:,}" if rule.cap else ""
        lines.append(f"At most, per patron: {caps}{other} tickets.")
    elif rule.cap:
        lines.append(f"At most {rule.cap:,} tickets per patron.")
    return lines
