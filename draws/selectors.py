import datetime as dt

from draws.allocation import MemberDrawStanding, member_allocation
from draws.models import Activation, Draw
from members.models import Member, Property


def member_open_draws(
    member: Member, prop: Property, now: dt.datetime
) -> list[tuple[Draw, MemberDrawStanding, Activation | None]]:
    """Draws at `prop` accepting tickets now, each with the member's standing and activation."""
    draws = list(Draw.objects.with_related().filter(property=prop).accepting_tickets_at(now).order_by("scheduled_at"))
    activations = {
        a.draw_id: a
        for a in Activation.objects.select_related("member", "draw", "draw__property").filter(
            member=member, draw__in=draws
        )
    }
    return [(draw, member_allocation(draw, member, at=now), activations.get(draw.pk)) for draw in draws]
