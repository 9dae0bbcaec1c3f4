"""A series' earning rule in words, as a manager or auditor checks it against the promotion's
terms: on the promotion page for each series, and on each draw's page (draws.rule_words, which
adds the draw's own rate when it has one)."""

from core.formats import local_datetime
from members.models import Tier
from promotions.models import DrawSeries, EarningRule, PeriodKind
from promotions.rules import WEEKDAYS


def _by_tier(values: dict[str, int], names: dict[str, str], ranks: dict[str, int]) -> str:
    # Only the tiers given: a code of no eligible tier gives no member anything, so it is not promised.
    ordered = sorted((item for item in values.items() if item[0] in names), key=lambda item: ranks[item[0]])
    return ", ".join(f"{names[code]} {value:,}" for code, value in ordered)


def series_rule_in_words(
    series: DrawSeries, tiers: list[Tier], *, points_per_ticket: int | None = None, property_name: str = ""
) -> list[str]:
    """The series' earning rule as sentences (tier-keyed numbers named and ordered by `tiers`).
    `points_per_ticket` is a draw's own rate, replacing the series'. Raises
    promotions.rules.RuleUnreadable when the stored rule cannot be read."""
    rule: EarningRule = series.rule
    values = rule.values()
    names = {tier.code: tier.name for tier in tiers}
    ranks = {tier.code: tier.rank for tier in tiers}
    if rule.equal_opportunity_tickets is not None:
        return [f"Equal opportunity: every eligible member gets {rule.equal_opportunity_tickets:,} tickets."]
    lines = []
    if points_per_ticket:
        lines.append(f"{points_per_ticket:,} points per ticket (this draw's own rate).")
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
    where = property_name or series.property.name
    bonuses = [
        (rule.bonus_app_registered, "if registered on the app"),
        (rule.bonus_age_50_plus, "if aged 50 or older on the draw day"),
        (rule.bonus_active_at_property, f"if active at {where} in the earning period"),
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


def period_sentence(rule: EarningRule) -> str:
    """Which points count, in a sentence: "Points earned in the 7 days before the draw count." """
    if rule.period_kind == PeriodKind.MONTH_TO_DATE:
        return f"Points earned from {rule.period_start_time:%H:%M} on the 1st of the draw's month count."
    if rule.period_kind == PeriodKind.FIXED:
        if rule.fixed_start and rule.fixed_end:
            return f"Points earned from {local_datetime(rule.fixed_start)} to {local_datetime(rule.fixed_end)} count."
        if rule.fixed_start:
            return f"Points earned from {local_datetime(rule.fixed_start)} until the draw count."
        return "Points earned in a fixed range count (its dates are not set)."
    if rule.period_kind == PeriodKind.NONE:
        return "No points are needed."
    return f"Points earned in {rule.period_words()} count."
