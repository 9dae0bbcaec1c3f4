"""Reads for the proxy and decline pages."""

import datetime as dt

from django.db.models import Q, QuerySet

from draws.models import Draw, DrawStatus
from members.models import Member
from members.staff import staff_act_refusal
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


Choices = tuple[list[Draw], list[tuple[Draw, str]]]


def desk_proxy_choices(member: Member, user, now: dt.datetime, candidates: list[Draw] | None = None) -> Choices:
    """The draws the service would accept a nomination for now (its own check) at the clerk's own
    properties, and the others with the reason the desk reads out ("Proxy nominations ... open at
    08:00"). The nominate page offers the first; the member page shows "Nominate a proxy" only
    when there is one. `candidates`: member_candidate_draws, when the caller read them already."""
    split = _split(member, now, lambda d: proxy_refusal(draw=d, participant=member, now=now), candidates)
    return _at_own_properties(user, *split, what="proxies")


def desk_decline_choices(member: Member, user, now: dt.datetime, candidates: list[Draw] | None = None) -> Choices:
    """As desk_proxy_choices, for the decline register."""
    split = _split(member, now, lambda d: decline_refusal(draw=d, member=member, now=now), candidates)
    return _at_own_properties(user, *split, what="declines")


def _at_own_properties(user, draws, refused, *, what: str) -> Choices:
    """The draws offered, less those at properties the clerk does not work at (members.staff),
    which join the refused ones with the reason: the service would refuse them."""
    offered, refused = [], list(refused)
    for draw in draws:
        elsewhere = staff_act_refusal(user, draw.property, what=what, done="registered")
        if elsewhere:
            refused.append((draw, elsewhere))
        else:
            offered.append(draw)
    return offered, refused


def _split(member: Member, now: dt.datetime, refusal, candidates: list[Draw] | None = None) -> Choices:
    open_now, refused = [], []
    for draw in member_candidate_draws(member, now) if candidates is None else candidates:
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
