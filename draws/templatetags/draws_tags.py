"""Pieces of draw data shown on pages owned by apps below draws (the member page, the
promotion page). Those apps never import draws; their templates ask for these tags."""

import datetime as dt

from django import template
from django.utils import timezone

from draws.calendar import draw_calendar
from draws.models import Channel, Draw
from draws.selectors import member_upcoming_draws
from draws.services import activation_refusal
from members.staff import staff_properties_q

register = template.Library()


@register.inclusion_tag("draws/_member_act_now.html", takes_context=True)
def member_act_now(context, member):
    """What the desk can activate for the member now, at the top of the member page: large
    buttons apart by time (issue 13 item 13). The other draws follow in member_draws, plainly."""
    found = _member_draw_rows(context, member)
    return {"member": member, "act_now": found["act_now"], "show_property": found["show_property"]}


@register.inclusion_tag("draws/_member_draws.html", takes_context=True)
def member_draws(context, member):
    """The member page's other draws in the next 7 days, each with the member's tickets and, for
    the desk, why it cannot activate now (the service's own check) or the receipt."""
    found = _member_draw_rows(context, member)
    return {
        "member": member,
        "draws": found["rows"],
        "act_now": found["act_now"],
        "desk": found["desk"],
        "perms": context.get("perms"),
        "show_property": found["show_property"],
    }


def _member_draw_rows(context, member) -> dict:
    """The member's draws in the next 7 days, read once per page (both panels above ask; kept on
    the member object for this request). Besides the member's home property, the draws at the
    clerk's own (members.StaffProfile): the member is standing at this desk, whichever casino
    their card was issued at."""
    cached = getattr(member, "_desk_draw_rows", None)
    if cached is not None:
        return cached
    now = timezone.now()
    perms = context.get("perms")
    desk = bool(perms and perms["draws"]["add_activation"])
    user = context.get("user")
    here = staff_properties_q(user)  # inside the draws' query: no statement of its own
    everywhere = getattr(user, "is_superuser", False)
    rows = []
    for draw, standing, activation in member_upcoming_draws(member, now, here=here):
        refusal = None
        if desk and activation is None:
            if not (everywhere or draw.is_here):
                # members.staff's rule, read from the same query (is_here): the clerk's properties only.
                refusal = f"{draw.property.name}'s own desk activates tickets for this draw."
            else:
                found = activation_refusal(draw=draw, member=member, channel=Channel.DESK, standing=standing, now=now)
                refusal = found.message if found else None
        rows.append((draw, standing, activation, refusal))
    act_now = [
        {
            "draw": draw,
            "tickets": standing.tickets,
            "when": when_words(draw.scheduled_at, now),
            "closes_in": _closes_in(draw, now),
        }
        for draw, standing, activation, refusal in rows
        if desk and activation is None and refusal is None
    ]
    acting = {row["draw"].pk for row in act_now}
    member._desk_draw_rows = {
        "rows": [row for row in rows if row[0].pk not in acting],
        "act_now": act_now,
        "desk": desk,
        "show_property": len({draw.property_id for draw, *_ in rows}) > 1,
    }
    return member._desk_draw_rows


def when_words(moment, now) -> str:
    """ "today at 20:00", "tomorrow at 09:00", else "on Fri 04 Dec 2026 at 20:00" (Johannesburg)."""
    local, today = timezone.localtime(moment), timezone.localtime(now).date()
    if local.date() == today:
        return f"today at {local:%H:%M}"
    if local.date() == today + dt.timedelta(days=1):
        return f"tomorrow at {local:%H:%M}"
    return f"on {local:%a %d %b %Y} at {local:%H:%M}"


def _closes_in(draw: Draw, now) -> str:
    window = draw.open_window(now)  # the windows came prefetched with the draws
    return window.time_left(now) if window else ""


@register.inclusion_tag("draws/_calendar.html")
def promotion_calendar(promotion):
    """A month-by-month calendar of a promotion's draws."""
    draws = Draw.objects.filter(series__promotion=promotion).select_related("series").order_by("scheduled_at")
    return {"months": draw_calendar(draws)}
