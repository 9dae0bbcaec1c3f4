import datetime as dt

from django.db import connection, models

from core.errors import DomainError
from core.prepared import prepared_cursor
from draws import activation_cache
from draws.allocation import Allocation, AllocationOverview, AllocationRow, MemberDrawStanding, member_allocation
from draws.models import Activation, DeviceToken, Draw, DrawQuerySet, DrawStanding, DrawStatus, accepting_tickets_sql
from members.eligibility import exclusion_possible_sql
from members.models import Member, Property
from promotions.models import PromotionStatus

Standing = tuple[Draw, MemberDrawStanding, Activation | None]


def _draws() -> DrawQuerySet:
    # Windows and desk tiers are read again for each draw by activation_refusal.
    return activation_cache.draws_as_copied()


def _with_standings(member: Member, draws: list[Draw], now: dt.datetime) -> list[Standing]:
    """Each draw with the member's tickets (or the reasons for none) and any activation."""
    activations = {
        a.draw_id: a
        for a in Activation.objects.select_related("member", "draw", "draw__property").filter(
            member=member, draw__in=draws
        )
    }
    return [(draw, _standing(draw, member, now), activations.get(draw.pk)) for draw in draws]


def _standing(draw: Draw, member: Member, now: dt.datetime, *, may_be_excluded: bool = True) -> MemberDrawStanding:
    """One draw's standing; a draw whose rule cannot be read says so in its own row instead of
    taking the member's other draws (or the kiosk's whole list) down with it."""
    try:
        return member_allocation(draw, member, at=now, may_be_excluded=may_be_excluded)
    except DomainError as error:
        return MemberDrawStanding(None, [error.message])


def member_open_draws(member: Member, prop: Property, now: dt.datetime, *, device=None) -> list[Standing]:
    """Draws at `prop` accepting tickets now (what an eHost at `prop` offers): their ids,
    versions and the member's activations in one statement (with whether an exclusion may bar
    the member, so the register is read again only then), each draw from this worker's copy
    (draws.activation_cache), then the member's allocation for each. With `device`, raises
    DeviceRevoked when its token is no longer active (asked in the same statement)."""
    if connection.vendor != "postgresql":
        return _member_open_draws_portably(member, prop, now, device=device)
    fields = ["id", "channel", "first_serial", "last_serial", "tickets", "receipt_number", "activated_at"]
    sql = f"""
        SELECT d.id, {activation_cache.draw_version_sql("d.id")}, {", ".join(f"a.{f}" for f in fields)},
               (SELECT {exclusion_possible_sql("m", "%(now)s")} FROM {Member._meta.db_table} m WHERE m.id = %(member)s),
               (SELECT t.is_active FROM {DeviceToken._meta.db_table} t WHERE t.id = %(device)s::bigint)
        FROM (SELECT 1) one
        LEFT JOIN {Draw._meta.db_table} d ON d.property_id = %(property)s AND {accepting_tickets_sql("d", "%(now)s")}
        LEFT JOIN LATERAL (
            SELECT * FROM {Activation._meta.db_table} x WHERE x.draw_id = d.id AND x.member_id = %(member)s
            ORDER BY x.first_serial DESC LIMIT 1
        ) a ON TRUE
        ORDER BY d.scheduled_at, d.id
    """  # noqa: S608 (table names from the models, every value a parameter)
    params = {"now": now, "member": member.pk, "device": device.pk if device else None, "property": prop.pk}
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    if device is not None and not rows[0][-1]:
        activation_cache.forget_device(device)
        raise activation_cache.DeviceRevoked()
    standings = []
    for draw_id, version, *activated, may_be_excluded, _active in rows:
        draw = activation_cache.cached_draw(draw_id, version) if draw_id else None
        if draw is None:  # no open draw (the one row of the device's answer), or gone since
            continue
        activation = None
        if activated[0] is not None:
            activation = Activation.from_db("default", fields, activated)
            activation.draw, activation.member = draw, member
        standings.append((draw, _standing(draw, member, now, may_be_excluded=may_be_excluded), activation))
    return standings


def _member_open_draws_portably(member: Member, prop: Property, now: dt.datetime, *, device=None) -> list[Standing]:
    """member_open_draws on `make run`'s SQLite, through the ORM (no worker copies there)."""
    activation_cache.refuse_if_revoked(device)
    draws = list(_draws().accepting_tickets_at(now).filter(property=prop).distinct().order_by("scheduled_at", "pk"))
    activations = {}
    for activation in Activation.objects.filter(member=member, draw__in=draws).order_by("first_serial"):
        activations[activation.draw_id] = activation  # the latest, as the statement above takes
    standings = []
    for draw in draws:
        activation = activations.get(draw.pk)
        if activation is not None:
            activation.draw, activation.member = draw, member
        standings.append((draw, _standing(draw, member, now), activation))
    return standings


def member_upcoming_draws(
    member: Member,
    now: dt.datetime,
    *,
    days: int = 7,
    limit: int = 8,
    here: models.Q | None = None,
) -> list[Standing]:
    """The member page's draws from now to `days` ahead: those at the member's home property,
    where they have activated tickets, and at the properties the filter `here` matches (the
    clerk's: a Golden Horse member playing at Gold Reef City is activated there). Draws `here`
    come first, so a home casino with a draw every hour does not push them off the list."""
    at_here = here if here is not None else models.Q(property__in=[])
    draws = list(
        _draws()
        .filter(scheduled_at__gte=now, scheduled_at__lt=now + dt.timedelta(days=days))
        .filter(models.Q(property=member.home_property_id) | at_here | models.Q(activations__member=member))
        .exclude(status=DrawStatus.CANCELLED)
        .filter(series__promotion__status=PromotionStatus.PUBLISHED)  # drafts never reach the desk
        .annotate(is_here=models.Case(models.When(at_here, then=True), default=False))
        .distinct()
        .order_by("-is_here", "scheduled_at")[:limit]
    )
    return _with_standings(member, draws, now)


def draw_standing_overview(draw: Draw) -> tuple[AllocationOverview | None, DrawStanding | None]:
    """The draw page's allocation overview as last counted in the background (cheap to read
    whatever the number of members), and the standing row that says when and any error."""
    standing = DrawStanding.objects.filter(draw=draw).first()
    if standing is None or standing.computed_at is None or standing.error:
        return None, standing
    top = [Allocation(**row) for row in standing.top]
    members = Member.objects.select_related("tier").in_bulk([a.member_id for a in top])
    overview = AllocationOverview(
        standing.members,
        standing.members_with_tickets,
        standing.tickets,
        [AllocationRow(a, members.get(a.member_id)) for a in top],
    )
    return overview, standing
