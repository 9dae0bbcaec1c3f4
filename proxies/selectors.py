"""Reads for the proxy and decline pages."""

import datetime as dt

from django.db.models import Q, QuerySet

from draws.models import Draw, DrawStatus
from members.models import Member
from promotions.models import DrawMethod, PromotionStatus
from proxies.models import DeclineRegistration, ProxyNomination
from proxies.services import decline_refusal, proxy_refusal

# A nomination or a decline is made on the day of the draw or the evening before.
AHEAD = dt.timedelta(days=2)


def member_candidate_draws(member: Member, now: dt.datetime) -> list[Draw]:
    """The draws in the next two days the member could be a participant in: wherever they
    activated tickets, plus the RAPS draws (no tickets) at their home property."""
    return list(
        Draw.objects.with_related()
        .filter(scheduled_at__gte=now, scheduled_at__lt=now + AHEAD)
        .filter(Q(activations__member=member) | Q(method=DrawMethod.RAPS, property=member.home_property_id))
        .exclude(status=DrawStatus.CANCELLED)
        .filter(series__promotion__status=PromotionStatus.PUBLISHED)
        .distinct()
        .order_by("scheduled_at", "pk")
    )


def draws_for_proxy(member: Member, now: dt.datetime) -> tuple[list[Draw], list[tuple[Draw, str]]]:
    """The draws the service would accept a nomination for now (its own check), and the others
    with the reason the desk reads out ("Proxy nominations ... open at 08:00")."""
    return _split(member, now, lambda d: proxy_refusal(draw=d, participant=member, now=now))


def draws_for_decline(member: Member, now: dt.datetime) -> tuple[list[Draw], list[tuple[Draw, str]]]:
    """As draws_for_proxy, for the decline register."""
    return _split(member, now, lambda d: decline_refusal(draw=d, member=member, now=now))


def _split(member: Member, now: dt.datetime, refusal) -> tuple[list[Draw], list[tuple[Draw, str]]]:
    open_now, refused = [], []
    for draw in member_candidate_draws(member, now):
        reason = refusal(draw)
        if reason is None:
            open_now.append(draw)
        else:
            refused.append((draw, reason))
    return open_now, refused


def member_live_nominations(member: Member) -> QuerySet[ProxyNomination]:
    return (
        ProxyNomination.objects.live().filter(participant=member).select_related("draw").order_by("draw__scheduled_at")
    )


def member_live_declines(member: Member) -> QuerySet[DeclineRegistration]:
    return (
        DeclineRegistration.objects.live().filter(member=member).select_related("draw").order_by("draw__scheduled_at")
    )


def draw_register(draw: Draw) -> tuple[list[ProxyNomination], list[DeclineRegistration]]:
    """Every nomination and decline of the draw, live or revoked, for the stage team."""
    nominations = list(
        ProxyNomination.objects.filter(draw=draw)
        .select_related("participant", "revoked_by")
        .order_by("participant__last_name", "participant__first_name", "registered_at")
    )
    declines = list(
        DeclineRegistration.objects.filter(draw=draw)
        .select_related("member", "revoked_by")
        .order_by("member__last_name", "member__first_name", "registered_at")
    )
    return nominations, declines
