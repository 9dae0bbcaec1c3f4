import datetime as dt

from django.db import models

from draws.allocation import MemberDrawStanding, member_allocation
from draws.models import Activation, Draw, DrawStatus
from members.models import Member, Property


def member_open_draws(
    member: Member, prop: Property, now: dt.datetime
) -> list[tuple[Draw, MemberDrawStanding, Activation | None]]:
    """Draws at `prop` accepting tickets now, each with the member's standing and activation."""
    draws = list(
        Draw.objects.with_related()
        .prefetch_related("series__eligible_tiers")
        .filter(property=prop)
        .accepting_tickets_at(now)
        .order_by("scheduled_at")
    )
    activations = {
        a.draw_id: a
        for a in Activation.objects.select_related("member", "draw", "draw__property").filter(
            member=member, draw__in=draws
        )
    }
    return [(draw, member_allocation(draw, member, at=now), activations.get(draw.pk)) for draw in draws]


def member_upcoming_draws(
    member: Member, now: dt.datetime, *, days: int = 7, limit: int = 8
) -> list[tuple[Draw, MemberDrawStanding, Activation | None]]:
    """The member page's draws: those at the member's home property, or where they have
    activated tickets, from now to `days` ahead, each with the standing and activation."""
    draws = list(
        Draw.objects.with_related()
        .prefetch_related("series__eligible_tiers")
        .filter(scheduled_at__gte=now, scheduled_at__lt=now + dt.timedelta(days=days))
        .filter(models.Q(property=member.home_property_id) | models.Q(activations__member=member))
        .exclude(status=DrawStatus.CANCELLED)
        .distinct()
        .order_by("scheduled_at")[:limit]
    )
    activations = {
        a.draw_id: a
        for a in Activation.objects.select_related("member", "draw", "draw__property").filter(
            member=member, draw__in=draws
        )
    }
    return [(draw, member_allocation(draw, member, at=now), activations.get(draw.pk)) for draw in draws]
