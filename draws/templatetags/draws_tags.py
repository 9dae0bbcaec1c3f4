"""Pieces of draw data shown on pages owned by apps below draws (the member page, the
promotion page). Those apps never import draws; their templates ask for these tags."""

from django import template
from django.utils import timezone

from draws.calendar import draw_calendar
from draws.models import Channel, Draw
from draws.selectors import member_upcoming_draws
from draws.services import activation_refusal

register = template.Library()


@register.inclusion_tag("draws/_member_draws.html", takes_context=True)
def member_draws(context, member):
    """The member page's draws in the next 7 days, each with the member's tickets and, for the
    desk, either the Activate link or why the desk cannot activate now (the service's own check)."""
    now = timezone.now()
    perms = context.get("perms")
    desk = bool(perms and perms["draws"]["add_activation"])
    rows = []
    for draw, standing, activation in member_upcoming_draws(member, now):
        refusal = None
        if desk and activation is None:
            refusal = activation_refusal(draw=draw, member=member, channel=Channel.DESK, standing=standing, now=now)
        rows.append((draw, standing, activation, refusal.message if refusal else None))
    return {"member": member, "draws": rows, "desk": desk, "perms": perms}


@register.inclusion_tag("draws/_calendar.html")
def promotion_calendar(promotion):
    """A month-by-month calendar of a promotion's draws."""
    draws = Draw.objects.filter(series__promotion=promotion).select_related("series").order_by("scheduled_at")
    return {"months": draw_calendar(draws)}
