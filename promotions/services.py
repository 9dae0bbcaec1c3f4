"""State changes of promotions and their draw series. Each is validated, atomic and audited."""

from django.core.exceptions import ValidationError
from django.db import transaction

from core.audit import Actor, audit_log, text_change, text_sha256
from core.errors import DomainError
from core.forms import DATE_MAX, DATE_MIN
from members.models import Property, Tier
from members.staff import check_staff_property
from promotions import draw_links
from promotions.models import DrawSeries, EarningRule, PeriodKind, Promotion
from promotions.rules import RULE_FIELDS, rule_values_validate, windows_parse


def _changes(instance, fields: list[str]) -> dict:
    if instance.pk is None:
        return {}
    before = type(instance).objects.filter(pk=instance.pk).values(*fields).first() or {}
    return {f: [str(before.get(f)), str(getattr(instance, f))] for f in fields if before.get(f) != getattr(instance, f)}


def promotion_save(*, actor: Actor, promotion: Promotion, properties) -> Promotion:
    creating = promotion.pk is None
    fields = ["code", "name", "starts_on", "ends_on", "status", "collection_days", "collection_place"]
    try:
        promotion.full_clean()
    except ValidationError as error:
        raise DomainError(" ".join(error.messages), code="invalid") from None
    with transaction.atomic():
        if not creating:
            # The lock draw_schedule and draw_move take: no draw lands outside the new dates meanwhile.
            Promotion.objects.select_for_update().filter(pk=promotion.pk).exists()
        # A promotion's dates, terms and status govern the draws at every property it runs at:
        # a manager sets up only a promotion all of whose properties (before and after) are theirs.
        before = [] if creating else list(Property.objects.filter(promotions__pk=promotion.pk))
        touched = {p.pk: p for p in [*before, *properties]}
        check_staff_property(actor, *sorted(touched.values(), key=lambda p: p.name), what="promotions", done="set up")
        if not creating:
            refusal = promotion.shrink_refusal(properties=properties)
            if refusal:
                raise DomainError(refusal, code="outside_promotion")
        changes = _changes(promotion, fields)
        # The terms are the promotion's contract with members: which text was in force is kept
        # as its digest, and each change as what changed.
        terms_before = "" if creating else Promotion.objects.get(pk=promotion.pk).rules_text
        terms = {"sha256": text_sha256(promotion.rules_text)}
        if terms_before != promotion.rules_text and not creating:
            terms["change"] = text_change(terms_before, promotion.rules_text)
        promotion.save()
        promotion.properties.set(properties)
        audit_log(
            actor=actor,
            action="promotion.created" if creating else "promotion.updated",
            obj=promotion,
            data={"changes": changes, "properties": sorted(p.code for p in properties), "terms": terms},
        )
    return promotion


def validate_windows(spec) -> None:
    """Refuse a ticket-window list the scheduler could not lay out (promotions.rules.windows_parse:
    days -7..0, HH:MM times, a closing time after the opening or 0-720 minutes before the draw),
    every reason at once, in words a manager reads."""
    windows_parse(spec)


def validate_rule(rule: EarningRule) -> None:
    """Refuse a rule whose numbers could not be counted (promotions.rules.rule_values_validate:
    whole numbers within bounds, tier keys that are tier codes) or that gives no tickets."""
    tier_codes = list(Tier.objects.order_by("rank").values_list("code", flat=True))
    rule_values_validate({name: getattr(rule, name) for name in RULE_FIELDS}, tier_codes=tier_codes)
    if rule.period_kind == PeriodKind.FIXED and not rule.fixed_start:
        raise DomainError("A fixed earning period needs its start.", code="bad_rule")
    if rule.fixed_start and rule.fixed_end and rule.fixed_end <= rule.fixed_start:
        raise DomainError("The earning period must end after it starts.", code="bad_rule")
    for moment in (rule.fixed_start, rule.fixed_end):
        # A year-1 date stored in UTC is BC, which the database driver cannot read back.
        if moment is not None and not DATE_MIN <= moment.date() <= DATE_MAX:
            raise DomainError("The earning period must lie between the years 1900 and 2100.", code="bad_rule")
    if rule.equal_opportunity_tickets is None and not (
        rule.points_per_ticket
        or rule.points_per_ticket_by_tier
        or rule.free_tickets_by_tier
        or rule.free_tickets_by_weekday
        or rule.bonus_app_registered
        or rule.bonus_age_50_plus
        or rule.bonus_active_at_property
        or rule.bonus_per_visit
        or rule.period_kind == PeriodKind.NONE
    ):
        raise DomainError(
            "The rule gives no tickets: set points per ticket, free tickets or an equal count.", code="bad_rule"
        )


def series_save(*, actor: Actor, series: DrawSeries, eligible_tiers, desk_tiers, rule: EarningRule) -> DrawSeries:
    creating = series.pk is None
    validate_windows(series.ticket_windows)
    validate_rule(rule)
    if not eligible_tiers:
        raise DomainError("Choose at least one eligible tier.", code="no_tiers")
    with transaction.atomic():
        # Under the promotion's lock, as promotion_save takes it: a property cannot be dropped
        # from the promotion between this check and the save.
        promotion = Promotion.objects.select_for_update().get(pk=series.promotion_id)
        # Its property now and, when it is moved, before: both are run by the property's own team.
        before = None if creating else DrawSeries.objects.filter(pk=series.pk).values_list("property", flat=True)[0]
        touched = {series.property_id, before} - {None}
        where = sorted(Property.objects.filter(pk__in=touched), key=lambda p: p.name)
        check_staff_property(actor, *where, what="draw series", done="set up")
        refusal = promotion.property_refusal(series.property)
        if refusal:
            raise DomainError(refusal, code="outside_promotion")
        # Checked under the lock activation takes (the draw row), so no activation can land
        # between this check and the new rule: members who activated earlier would hold
        # tickets counted under another rule.
        if not creating and series.has_tickets_out(lock=True):
            raise DomainError(
                "Tickets are already activated for a draw of this series that has not closed: "
                "change the rule once that draw's window has closed.",
                code="series_live",
            )
        changes = _changes(
            series,
            [
                "code",
                "name",
                "property_id",
                "method",
                "winners_per_draw",
                "win_once_scope",
                "schedule_text",
                "ticket_windows",
                "proxies_allowed",
                "proxies_open",
                "proxies_close_minutes",
                "presentation_seconds",
                "one_selection_per_draw",
                "paid_at_device",
            ],
        )
        if "property_id" in changes and draw_links.has_live_draws(series):
            # Each draw keeps the property it was scheduled at; moving the series would split them.
            raise DomainError(
                "This series already has draws at its property: cancel them, or start a new series "
                "for the other property.",
                code="series_has_draws",
            )
        series.save()
        series.eligible_tiers.set(eligible_tiers)
        series.desk_assisted_tiers.set(desk_tiers)
        rule.series = series
        rule_changes = _changes(rule, [f.name for f in EarningRule._meta.fields if f.name not in ("id", "series")])
        rule.save()
        audit_log(
            actor=actor,
            action="series.created" if creating else "series.updated",
            obj=series,
            data={
                "changes": changes,
                "rule_changes": rule_changes,
                "tiers": sorted(t.code for t in eligible_tiers),
                "desk_tiers": sorted(t.code for t in desk_tiers),
            },
        )
    return series
