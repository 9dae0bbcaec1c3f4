"""draws' answers to promotions.draw_links: what a promotion's series have of draws."""

from django.db.models import Count, Q

from draws.models import Draw, DrawStatus
from promotions.draw_links import Provider


def draws_outside(promotion, first, after_last):
    outside = (
        Draw.objects.filter(series__promotion=promotion)
        .exclude(status=DrawStatus.CANCELLED)
        .filter(Q(scheduled_at__lt=first) | Q(scheduled_at__gte=after_last))
        .order_by("scheduled_at")
    )
    count = outside.count()
    return count, (outside[0].scheduled_at if count else None)


def has_tickets_out(series, lock):
    open_draws = Draw.objects.filter(series=series, status=DrawStatus.SCHEDULED)
    if lock:
        # series_save goes on to change the rule: activations in flight must re-check it.
        locked = list(open_draws.select_for_update().order_by("pk").values_list("pk", flat=True))
        Draw.objects.filter(pk__in=locked).bump_activation_epoch()
    return open_draws.filter(activations__isnull=False).exists()


def has_live_draws(series):
    return Draw.objects.filter(series=series).exclude(status=DrawStatus.CANCELLED).exists()


def draw_counts(series_ids):
    rows = Draw.objects.filter(series_id__in=series_ids).values("series_id").annotate(n=Count("pk"))
    return {row["series_id"]: row["n"] for row in rows.order_by()}


PROVIDER = Provider(
    draws_outside=draws_outside,
    has_tickets_out=has_tickets_out,
    has_live_draws=has_live_draws,
    draw_counts=draw_counts,
)
