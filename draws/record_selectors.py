"""Reads for the draw record pages: a draw's picks and a promotion's winners."""

from django.db.models import QuerySet

from draws.models import WINNING_OUTCOMES, Draw, DrawPick


def draw_for_record(*, draw_id: int) -> Draw:
    """The draw with what its record page and certificate show, in one query."""
    return Draw.objects.with_related().get(pk=draw_id)


def draw_picks(*, draw: Draw) -> QuerySet[DrawPick]:
    """Every pick of the draw in the order it was made, with the member (for the name)."""
    return draw.picks.select_related("member").order_by("seq")


def promotion_winning_picks(*, promotion_id: int) -> QuerySet[DrawPick]:
    """Every winning pick of the promotion's draws, draw by draw in date order, then in pick order."""
    return (
        DrawPick.objects.filter(draw__series__promotion_id=promotion_id, outcome__in=WINNING_OUTCOMES)
        .select_related("draw", "draw__property", "member")
        .order_by("draw__scheduled_at", "draw_id", "seq")
    )
