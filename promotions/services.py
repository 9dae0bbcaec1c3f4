"""State changes of promotions and their draw series. Each is validated, atomic and audited."""

import datetime as dt

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from draws.models import Activation, Draw, DrawStatus
from draws.services import draw_schedule
from promotions.models import DrawSeries, EarningRule, PeriodKind, Promotion


def _changes(instance, fields: list[str]) -> dict:
    if instance.pk is None:
        return {}
    before = type(instance).objects.filter(pk=instance.pk).values(*fields).first() or {}
    return {f: [str(before.get(f)), str(getattr(instance, f))] for f in fields if before.get(f) != getattr(instance, f)}


def promotion_save(*, actor: Actor, promotion: Promotion, properties) -> Promotion:
    creating = promotion.pk is None
    fields = ["code", "name", "starts_on", "ends_on", "status"]
    try:
        promotion.full_clean()
    except ValidationError as error:
        raise DomainError(" ".join(error.messages), code="invalid") from None
    with transaction.atomic():
        changes = _changes(promotion, fields)
        promotion.save()
        promotion.properties.set(properties)
        audit_log(
            actor=actor,
            action="promotion.created" if creating else "promotion.updated",
            obj=promotion,
            data={"changes": changes, "properties": sorted(p.code for p in properties)},
        )
    return promotion


def validate_windows(spec) -> None:
    """Refuse a ticket-window spec the scheduler could not lay out, in words a manager reads."""
    if not isinstance(spec, list) or not spec:
        raise DomainError('Ticket windows: give a list such as [{"day": 0, "open": "08:00", "close_before": 5}].')
    probe = DrawSeries(ticket_windows=spec)
    at = timezone.make_aware(dt.datetime(2030, 1, 9, 20, 0))
    try:
        windows = probe.windows_for(at)
    except (KeyError, ValueError, TypeError) as error:
        raise DomainError(f"Ticket windows: {error!s} is not understood.", code="bad_window") from None
    for opens, closes in windows:
        if closes <= opens:
            raise DomainError("Ticket windows: each window must close after it opens.", code="bad_window")


def validate_rule(rule: EarningRule) -> None:
    if rule.period_kind == PeriodKind.FIXED and not rule.fixed_start:
        raise DomainError("A fixed earning period needs its start.", code="bad_rule")
    if rule.fixed_start and rule.fixed_end and rule.fixed_end <= rule.fixed_start:
        raise DomainError("The earning period must end after it starts.", code="bad_rule")
    if rule.equal_opportunity_tickets is None and not (
        rule.points_per_ticket
        or rule.points_per_ticket_by_tier
        or rule.free_tickets_by_tier
        or rule.free_tickets_by_weekday
        or rule.period_kind == PeriodKind.NONE
    ):
        raise DomainError("The rule gives no tickets: set points per ticket, free tickets or an equal count.")


def series_save(*, actor: Actor, series: DrawSeries, eligible_tiers, desk_tiers, rule: EarningRule) -> DrawSeries:
    creating = series.pk is None
    validate_windows(series.ticket_windows)
    validate_rule(rule)
    if not eligible_tiers:
        raise DomainError("Choose at least one eligible tier.", code="no_tiers")
    if not creating and Activation.objects.filter(draw__series=series, draw__status=DrawStatus.SCHEDULED).exists():
        # Members who activated earlier would hold tickets counted under another rule.
        raise DomainError(
            "Tickets are already activated for a draw of this series that has not closed: "
            "change the rule once that draw's window has closed.",
            code="series_live",
        )
    with transaction.atomic():
        changes = _changes(series, ["name", "method", "winners_per_draw", "win_once_scope", "ticket_windows"])
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
            data={"changes": changes, "rule_changes": rule_changes, "tiers": sorted(t.code for t in eligible_tiers)},
        )
    return series


def series_schedule_draws(*, actor: Actor, series: DrawSeries, moments: list[dt.datetime]) -> list[Draw]:
    """Schedule a draw at each moment not already taken by a draw of the series (a moved
    draw still takes its original moment, so re-running a weekly schedule does not bring it back)."""
    with transaction.atomic():
        DrawSeries.objects.select_for_update().get(pk=series.pk)  # one scheduler per series at a time
        taken = set(series.draws.values_list("scheduled_at", flat=True)) | set(
            series.draws.exclude(moved_from=None).values_list("moved_from", flat=True)
        )
        return [draw_schedule(actor=actor, series=series, scheduled_at=m) for m in sorted(set(moments) - taken)]
