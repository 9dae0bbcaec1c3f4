"""The prize record (issue 14, item 7): each winner's lines per draw, and the totals per draw,
per night (the Johannesburg date of the draw), per promotion and per property. Reads only.

Money is summed per kind (cash, +Play, a vehicle's stated value, other); places and entries
are counted, not summed: they are not money. A correction's negative line is in the sums.
"""

import datetime as dt
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Count, Q, QuerySet, Sum
from django.db.models.functions import TruncDate

from draws.models import Draw, DrawPick
from prizes.lines import LineKind, LineSource
from prizes.models import PrizeLine

MONEY_KINDS = (LineKind.CASH, LineKind.PLAY, LineKind.VEHICLE, LineKind.OTHER)


def _kind_sums() -> dict:
    sums = {f"{kind.value}_cents": Sum("amount_cents", filter=Q(kind=kind), default=0) for kind in MONEY_KINDS}
    return {
        **sums,
        "money_cents": Sum("amount_cents", filter=Q(kind__in=MONEY_KINDS), default=0),
        # A place's line is 0: its correction takes the place back.
        "places": Count("id", filter=Q(kind=LineKind.PLACE) & ~Q(source=LineSource.REVERSAL))
        - Count("id", filter=Q(kind=LineKind.PLACE, source=LineSource.REVERSAL)),
        "entries": Sum("amount_cents", filter=Q(kind=LineKind.ENTRIES), default=0),
        "lines": Count("id"),
    }


def record_lines(
    *,
    promotion_id: int | None = None,
    property_code: str = "",
    date_from: dt.date | None = None,
    date_to: dt.date | None = None,
) -> QuerySet:
    """The prize lines the record shows, filtered; each with its draw's night (`night`)."""
    lines = PrizeLine.objects.with_related().annotate(
        night=TruncDate("draw__scheduled_at", tzinfo=ZoneInfo(settings.TIME_ZONE))
    )
    if promotion_id:
        lines = lines.filter(draw__series__promotion_id=promotion_id)
    if property_code:
        lines = lines.filter(draw__property__code=property_code)
    if date_from:
        lines = lines.filter(night__gte=date_from)
    if date_to:
        lines = lines.filter(night__lte=date_to)
    return lines


def record_totals(lines: QuerySet) -> dict[str, list[dict]]:
    """The totals of `lines` by property, promotion, night and draw (newest first)."""
    sums = _kind_sums()
    plain = lines.order_by()
    return {
        "property": list(plain.values("draw__property__name").annotate(**sums).order_by("draw__property__name")),
        "promotion": list(
            plain.values("draw__series__promotion_id", "draw__series__promotion__name")
            .annotate(**sums)
            .order_by("draw__series__promotion__name")
        ),
        "night": list(plain.values("night").annotate(**sums).order_by("-night")),
        "draw": list(
            plain.values("draw_id", "draw__name", "draw__scheduled_at", "draw__property__name")
            .annotate(**sums)
            .order_by("-draw__scheduled_at", "-draw_id")
        ),
        "all": [plain.aggregate(**sums)],
    }


@dataclass
class WinnerPrizes:
    pick: DrawPick
    lines: list[PrizeLine] = field(default_factory=list)

    @property
    def money_cents(self) -> int:
        return sum(line.amount_cents for line in self.lines if line.kind in MONEY_KINDS)


def draw_prizes(draw: Draw) -> list[WinnerPrizes]:
    """Each winner of the draw, in pick order, with their lines (corrections under the line)."""
    winners = {
        pick.pk: WinnerPrizes(pick) for pick in draw.picks.select_related("member").order_by("seq") if pick.is_winner()
    }
    for line in PrizeLine.objects.filter(draw=draw).select_related("reverses").order_by("id"):
        holder = winners.get(line.pick_id)
        if holder is not None:
            holder.lines.append(line)
    return list(winners.values())


def draw_totals(draw: Draw) -> dict:
    return PrizeLine.objects.filter(draw=draw).order_by().aggregate(**_kind_sums())


def outcome_words(data: dict) -> str:
    """A line's game outcome as "ball: pink · balls left: 2" (never JSON on screen)."""
    parts = []
    for key, value in (data or {}).items():
        if isinstance(value, dict):
            value = outcome_words(value)
        elif isinstance(value, list | tuple):
            value = ", ".join(outcome_words(v) if isinstance(v, dict) else str(v) for v in value)
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        parts.append(f"{str(key).replace('_', ' ')}: {value}")
    return " · ".join(parts)
