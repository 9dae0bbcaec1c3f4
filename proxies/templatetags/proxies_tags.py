"""Proxy and decline pieces shown on pages owned by apps below proxies (the member page, the
draw page). Those apps never import proxies; their templates ask for these tags."""

from django import template
from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from draws.models import Draw
from members.staff import staff_may_act_at
from proxies.models import DeclineRegistration, ProxyNomination
from proxies.selectors import (
    desk_decline_choices,
    desk_proxy_choices,
    member_candidate_draws,
    member_live_declines,
    member_live_nominations,
)
from proxies.services import decline_revoke_refusal, nomination_revoke_refusal

register = template.Library()


@register.inclusion_tag("proxies/_member_proxies.html", takes_context=True)
def member_proxies(context, member):
    """The member's live nominations and declines, with Print form / Revoke and the two
    buttons for the desk."""
    perms = context.get("perms")
    # Revoke and Withdraw are offered only where the service would accept them (not once the
    # draw has started): the page asks the service's own refusal.
    nominations = list(member_live_nominations(member))
    for nomination in nominations:
        nomination.revoke_refusal = nomination_revoke_refusal(nomination)
    declines = list(member_live_declines(member))
    for registration in declines:
        registration.revoke_refusal = decline_revoke_refusal(registration)
    user = context.get("user")
    can_nominate = bool(perms and perms["proxies"]["add_proxynomination"])
    can_decline = bool(perms and perms["proxies"]["add_declineregistration"])
    now = timezone.now()
    candidates = member_candidate_draws(member, now) if can_nominate or can_decline else []
    return {
        "member": member,
        "can_view": bool(perms and perms["proxies"]["view_proxynomination"]),
        "nominations": nominations,
        "declines": declines,
        # Revoked only by the desk of the draw's property (members.staff; the service refuses others).
        "elsewhere": {r.draw_id for r in [*nominations, *declines] if not staff_may_act_at(user, r.draw.property_id)},
        "can_nominate": can_nominate,
        "can_decline": can_decline,
        # Each button only when a draw would take one now (the pages' own lists), else why not.
        "nominate": _offer(desk_proxy_choices(member, user, now, candidates), "proxy") if can_nominate else None,
        "decline": _offer(desk_decline_choices(member, user, now, candidates), "decline") if can_decline else None,
        "can_revoke_nomination": bool(perms and perms["proxies"]["change_proxynomination"]),
        "can_revoke_decline": bool(perms and perms["proxies"]["change_declineregistration"]),
        "csrf_token": context.get("csrf_token"),
    }


def _offer(choices, what: str) -> dict:
    """{"open": True} when a draw takes a `what` now, else {"open": False, "why": the soonest
    draw's refusal, or that no draw of the member's comes up}."""
    offered, refused = choices
    if offered:
        return {"open": True}
    if refused:
        _draw, reason = min(refused, key=lambda pair: pair[0].scheduled_at)
        return {"open": False, "why": reason}
    return {"open": False, "why": f"No draw in the next two days could take a {what}."}


@register.inclusion_tag("proxies/_draw_count.html", takes_context=True)
def draw_proxy_count(context, draw):
    """ "Proxies: N · Declines: M" on the draw page, linking to the stage team's list."""
    perms = context.get("perms")
    # Both counts in one statement: the draw page keeps a small, fixed query budget.
    nominations, declines = (
        Draw.objects.filter(pk=draw.pk)
        .annotate(
            live_nominations=_live_count(ProxyNomination.objects.live().filter(draw=OuterRef("pk"))),
            live_declines=_live_count(DeclineRegistration.objects.live().filter(draw=OuterRef("pk"))),
        )
        .values_list("live_nominations", "live_declines")
        .get()
    )
    return {
        "draw": draw,
        "nominations": nominations,
        "declines": declines,
        "can_view": bool(perms and perms["proxies"]["view_proxynomination"]),
    }


def _live_count(rows: QuerySet) -> Coalesce:
    counted = rows.order_by().values("draw").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)
