import datetime as dt

from django.db import models

from draws.allocation import MemberDrawStanding, member_allocation
from draws.models import Activation, Draw, DrawQuerySet, DrawStatus
from members.models import Member, Property

Standing = tuple[Draw, MemberDrawStanding, Activation | None]


def _draws() -> DrawQuerySet:
    return Draw.objects.with_related().prefetch_related("series__eligible_tiers")


def _with_standings(member: Member, draws: list[Draw], now: dt.datetime) -> list[Standing]:
    """Each draw with the member's tickets (or the reasons for none) and any activation."""
    activations = {
        a.draw_id: a
        for a in Activation.objects.select_related("member", "draw", "draw__property").filter(
            member=member, draw__in=draws
        )
    }
    return [(draw, member_allocation(draw, member, at=now), activations.get(draw.pk)) for draw in draws]


def member_open_draws(member: Member, prop: Property, now: dt.datetime) -> list[Standing]:
    """Draws at `prop` accepting tickets now (what an eHost at `prop` offers)."""
    draws = list(_draws().filter(property=prop).accepting_tickets_at(now).order_by("scheduled_at"))
    return _with_standings(member, draws, now)


def member_upcoming_draws(member: Member, now: dt.datetime, *, days: int = 7, limit: int = 8) -> list[Standing]:
    """The member page's draws: those at the member's home property, or where they have
    activated tickets, from now to `days` ahead."""
    draws = list(
        _draws()
        .filter(scheduled_at__gte=now, scheduled_at__lt=now + dt.timedelta(days=days))
        .filter(models.Q(property=member.home_property_id) | models.Q(activations__member=member))
        .exclude(status=DrawStatus.CANCELLED)
        .distinct()
        .order_by("scheduled_at")[:limit]
    )
    return _with_standings(member, draws, now)
