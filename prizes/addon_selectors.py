"""The stored side of the once-a-day add-on (FL r118, A12): a member's add-on lines of one
promotion on one promotional day, as the LineSpecs prizes.addons.addon_lines takes."""

import datetime as dt

from django.apps import apps
from django.utils import timezone

from prizes.lines import LineKind, LineSource, LineSpec


def addon_lines_of_day(*, member_id: int, promotion_id: int, day: dt.date) -> list[LineSpec]:
    """Add-on lines of draws of the promotion held on `day` (Johannesburg), oldest first."""
    prize_line = apps.get_model("prizes", "PrizeLine")  # the prize record's model (boards' part of issue 14)
    start = timezone.make_aware(dt.datetime.combine(day, dt.time.min))
    rows = prize_line.objects.filter(
        member_id=member_id,
        source=LineSource.ADD_ON,
        draw__series__promotion_id=promotion_id,
        draw__scheduled_at__gte=start,
        draw__scheduled_at__lt=start + dt.timedelta(days=1),
    ).order_by("pk")
    return [
        LineSpec(LineKind(row.kind), row.amount_cents, LineSource(row.source), row.words, row.data or {})
        for row in rows
    ]
