"""State changes of draws: scheduling, moving, activation of tickets, closing windows."""

import copy
import datetime as dt
import hashlib
import json
import secrets
import uuid
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Max, Q, Sum
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import local_datetime
from core.models import AuditEvent
from core.prepared import prepared_cursor
from core.queueing import enqueue
from core.swipe import mask_swipes_in
from draws import activation_cache, entry_sources, registers
from draws.allocation import NOT_COUNTED, MemberDrawStanding, allocation_overview, allocation_sql, member_allocation
from draws.models import (
    Activation,
    Channel,
    DeviceKind,
    DeviceToken,
    Draw,
    DrawStanding,
    DrawStatus,
    TicketWindow,
    accepting_tickets_sql,
)
from draws.seeding import seed_commit
from members.eligibility import exclusion_possible_sql
from members.models import ImportJob, ImportKind, ImportStatus, Member, Property
from members.selectors import member_with_tier_from_row, member_with_tier_sql
from members.staff import check_staff_property
from promotions.models import DrawMethod, DrawSeries, Promotion, PromotionStatus
from promotions.rules import POINTS_MAX, RuleUnreadable

Windows = Sequence[tuple[dt.datetime, dt.datetime]]
# Who activates tickets; "carried" entries are written by the freeze only (draws.entry_sources).
ACTIVATION_CHANNELS = (Channel.EHOST, Channel.APP, Channel.DESK)


def _check_windows(windows: Windows, scheduled_at: dt.datetime, *, allow_past: bool = False) -> None:
    if not windows:
        raise DomainError("A draw needs at least one ticket window.", code="no_window")
    # allow_past: only for loading a calendar as it was published (the seed promotions).
    if not allow_past and max(closes for _, closes in windows) <= timezone.now():
        raise DomainError(
            "Every ticket window of this draw would already be closed: choose a later date or time.",
            code="in_the_past",
        )
    for opens, closes in windows:
        if closes <= opens:
            raise DomainError("A ticket window must close after it opens.", code="bad_window")
        if closes > scheduled_at:
            raise DomainError("Ticket windows must close by the time the draw starts.", code="bad_window")


def _apply_windows(draw: Draw, windows: Windows) -> None:
    windows = sorted(windows)
    draw.tickets_open_at, draw.tickets_close_at = windows[0][0], max(c for _, c in windows)
    day_start = timezone.make_aware(
        dt.datetime.combine(timezone.localtime(draw.scheduled_at).date(), draw.series.proxies_open)
    )
    draw.proxies_close_at = draw.scheduled_at - dt.timedelta(minutes=draw.series.proxies_close_minutes)
    # Proxy forms open on the draw day (08h00 in every seed), even when tickets print the
    # evening before; a draw whose day starts after its proxy cut-off opens with its tickets.
    draw.proxies_open_at = day_start if day_start < draw.proxies_close_at else draw.tickets_open_at
    # The decline-to-be-present register is open while entries are (Emnotweni rule 14).
    draw.declines_open_at, draw.declines_close_at = draw.tickets_open_at, draw.scheduled_at


def _check_in_promotion(series: DrawSeries, scheduled_at: dt.datetime) -> None:
    """A draw lies within its promotion's dates. The promotion row is locked (inside the
    caller's transaction) so promotion_save cannot shrink the dates past it meanwhile."""
    promotion = Promotion.objects.select_for_update(no_key=True).get(pk=series.promotion_id)
    refusal = promotion.date_refusal(scheduled_at)
    if refusal:
        raise DomainError(refusal, code="outside_promotion")


def _draw_name(series: DrawSeries, scheduled_at: dt.datetime) -> str:
    return f"{series.name}, {local_datetime(scheduled_at)}"


def draw_schedule(
    *,
    actor: Actor,
    series: DrawSeries,
    scheduled_at: dt.datetime,
    name: str = "",
    windows: Windows | None = None,
    points_per_ticket: int | None = None,
    allow_past: bool = False,
) -> Draw:
    """Schedule one draw of a series, with the series' windows unless others are given."""
    if points_per_ticket is not None and (
        isinstance(points_per_ticket, bool)
        or not isinstance(points_per_ticket, int)
        or not 1 <= points_per_ticket <= POINTS_MAX
    ):
        raise DomainError(
            f"A draw's own points per ticket must be a whole number from 1 to {POINTS_MAX:,}.", code="bad_rule"
        )
    check_staff_property(actor, series.property, done="scheduled")
    with transaction.atomic():
        _check_in_promotion(series, scheduled_at)
        windows = list(windows or series.windows_for(scheduled_at))
        _check_windows(windows, scheduled_at, allow_past=allow_past)
        draw = Draw(
            series=series,
            property=series.property,
            name=name or _draw_name(series, scheduled_at),
            scheduled_at=scheduled_at,
            method=series.method,
            points_per_ticket=points_per_ticket,
        )
        _apply_windows(draw, windows)
        draw.save()
        TicketWindow.objects.bulk_create(TicketWindow(draw=draw, opens_at=o, closes_at=c) for o, c in windows)
        audit_log(
            actor=actor,
            action="draw.scheduled",
            obj=draw,
            data={
                "scheduled_at": scheduled_at.isoformat(),
                "windows": [[o.isoformat(), c.isoformat()] for o, c in windows],
            },
        )
    return draw


@dataclass(frozen=True)
class PlannedDraw:
    """One moment of a schedule: the draw it would create (with its ticket windows), or why not."""

    scheduled_at: dt.datetime
    windows: tuple[tuple[dt.datetime, dt.datetime], ...] = ()
    refusal: str | None = None
    already_there: bool = False  # the series has (or had) a draw at this moment: skipped, not an error


def series_schedule_plan(*, series: DrawSeries, moments: Sequence[dt.datetime]) -> list[PlannedDraw]:
    """What series_schedule_draws would do with `moments`, before anything is written: each moment,
    in order, with the draw's windows or the reason it is refused (the checks draw_schedule makes).
    A moment the series already has, or had before a draw was moved away from it, is skipped."""
    promotion = Promotion.objects.get(pk=series.promotion_id)
    at_moment = {draw.scheduled_at: draw for draw in series.draws.all()}
    moved_away = {draw.moved_from: draw for draw in series.draws.exclude(moved_from=None)}
    plan = []
    for moment in sorted(set(moments)):
        if moment in at_moment:
            draw = at_moment[moment]
            state = " (cancelled: a cancelled draw keeps its time on record)" if draw.state().is_cancelled else ""
            plan.append(PlannedDraw(moment, refusal=f"{series.name} already has this draw{state}.", already_there=True))
        elif moment in moved_away:
            moved = local_datetime(moved_away[moment].scheduled_at)
            refusal = f"The draw of this time was moved to {moved}; it is not scheduled again."
            plan.append(PlannedDraw(moment, refusal=refusal, already_there=True))
        else:
            plan.append(_plan_one(series, promotion, moment))
    return plan


def _plan_one(series: DrawSeries, promotion: Promotion, moment: dt.datetime) -> PlannedDraw:
    refusal = promotion.date_refusal(moment)
    if refusal:
        return PlannedDraw(moment, refusal=refusal)
    try:
        windows = sorted(series.windows_for(moment))
        _check_windows(windows, moment)
    except DomainError as error:
        return PlannedDraw(moment, refusal=error.message)
    return PlannedDraw(moment, windows=tuple(windows))


def series_schedule_draws(*, actor: Actor, series: DrawSeries, moments: list[dt.datetime]) -> list[Draw]:
    """Schedule a draw at each moment not already taken by a draw of the series (a moved
    draw still takes its original moment, so re-running a weekly schedule does not bring it back).
    All or nothing: a moment refused for another reason (see series_schedule_plan) refuses the lot."""
    check_staff_property(actor, series.property, done="scheduled")
    with transaction.atomic():
        DrawSeries.objects.select_for_update().get(pk=series.pk)  # one scheduler per series at a time
        plan = series_schedule_plan(series=series, moments=moments)
        refused = [p for p in plan if p.refusal and not p.already_there]
        if refused:
            first = refused[0]
            raise DomainError(f"{local_datetime(first.scheduled_at)}: {first.refusal}", code="schedule_refused")
        return [draw_schedule(actor=actor, series=series, scheduled_at=p.scheduled_at) for p in plan if not p.refusal]


def draw_move(
    *,
    actor: Actor,
    draw_id: int,
    scheduled_at: dt.datetime,
    reason: str,
    windows: Windows | None = None,
    allow_past: bool = False,
) -> Draw:
    """Move one draw (e.g. 22 October to Tuesday 21 October 13h00). Its windows are laid anew
    from the series for the new day and time (Thursday 20h00 moved to Sunday 13h00 sells
    tickets on Sunday morning); the other draws of the series stay as they are."""
    if not reason.strip():
        raise DomainError("Say why the draw is moved: the reason is kept on the draw.", code="no_reason")
    with transaction.atomic():
        # The promotion, then the series, then the draw: the order in which series_save and
        # promotion_save lock them (the promotion, then its draws' versions: draws 0022).
        owners = Draw.objects.filter(pk=draw_id).values_list("series__promotion_id", "series_id").first()
        if owners is not None:
            Promotion.objects.select_for_update(no_key=True).filter(pk=owners[0]).exists()
            DrawSeries.objects.select_for_update().filter(pk=owners[1]).exists()  # one scheduler at a time
        draw = Draw.objects.select_for_update(of=("self",)).select_related("series", "property").get(pk=draw_id)
        check_staff_property(actor, draw.property, done="scheduled")
        if draw.name == _draw_name(draw.series, draw.scheduled_at):  # a generated name carries the date
            draw.name = _draw_name(draw.series, scheduled_at)
        refusal = draw.move_refusal()  # the status and the tickets out: no clock read
        if refusal:
            raise DomainError(refusal, code="not_movable")
        if not allow_past and scheduled_at <= timezone.now():
            raise DomainError("A draw can only be moved to a time that is still ahead.", code="in_the_past")
        if draw.series.draws.filter(scheduled_at=scheduled_at).exclude(pk=draw.pk).exists():
            raise DomainError(
                f"{draw.series.name} already has a draw at {local_datetime(scheduled_at)} "
                "(a cancelled draw keeps its time on record): choose another time.",
                code="time_taken",
            )
        _check_in_promotion(draw.series, scheduled_at)
        windows = list(windows or draw.series.windows_for(scheduled_at))
        _check_windows(windows, scheduled_at, allow_past=allow_past)
        draw.windows.all().delete()
        TicketWindow.objects.bulk_create(TicketWindow(draw=draw, opens_at=o, closes_at=c) for o, c in windows)
        original = draw.moved_from or draw.scheduled_at
        draw.moved_from, draw.scheduled_at, draw.change_reason = original, scheduled_at, reason.strip()
        _apply_windows(draw, windows)
        draw.save()
        audit_log(
            actor=actor,
            action="draw.moved",
            obj=draw,
            data={"from": original.isoformat(), "to": scheduled_at.isoformat(), "reason": reason.strip()},
        )
    return draw


def draw_cancel(*, actor: Actor, draw_id: int, reason: str) -> Draw:
    return draws_cancel(actor=actor, draw_ids=[draw_id], reason=reason)[0]


DRAWS_CANCEL_MAX = 200  # a page of the draws list is 50: more at once is a slip


def draws_cancel(*, actor: Actor, draw_ids: Sequence[int], reason: str) -> list[Draw]:
    """Cancel several draws with one reason (a venue closed for a week), all or nothing: if one
    of them cannot be cancelled (Draw.cancel_refusal: it started, or is drawn), none is, and the
    refusal names each such draw, so the manager never has to work out which half went through.
    Each cancelled draw keeps the reason and gets its own audit event."""
    reason = reason.strip()
    if not reason:
        raise DomainError("Say why the draw is cancelled: the reason is kept on the draw.", code="no_reason")
    ids = sorted(set(draw_ids))
    if not ids:
        raise DomainError("Choose at least one draw to cancel.", code="nothing_chosen")
    if len(ids) > DRAWS_CANCEL_MAX:
        raise DomainError(f"Cancel at most {DRAWS_CANCEL_MAX} draws at once.", code="too_many")
    with transaction.atomic():
        # Locked in id order, so two managers cancelling overlapping sets cannot deadlock.
        draws = list(Draw.objects.select_for_update().filter(pk__in=ids).order_by("pk"))
        if len(draws) != len(ids):
            raise DomainError("One of the chosen draws does not exist: choose the draws again.", code="unknown_draw")
        where = Property.objects.in_bulk({draw.property_id for draw in draws})
        check_staff_property(actor, *sorted(where.values(), key=lambda p: p.name), done="scheduled")
        now = timezone.now()
        refused = [(draw, refusal) for draw in draws if (refusal := draw.state(now).cancel_refusal)]
        if len(draws) == 1 and refused:
            raise DomainError(refused[0][1], code="not_cancellable")
        if refused:
            named = " ".join(f"{draw.name}: {refusal}" for draw, refusal in refused)
            raise DomainError(f"{named} No draw was cancelled.", code="not_cancellable")
        for draw in draws:
            draw.status, draw.change_reason = DrawStatus.CANCELLED, reason
            draw.save(update_fields=["status", "change_reason"])
            data = {"reason": reason} | ({"together_with": len(draws) - 1} if len(draws) > 1 else {})
            audit_log(actor=actor, action="draw.cancelled", obj=draw, data=data)
    return draws


# --- Activation ----------------------------------------------------------------------------


def activation_create(
    *,
    actor: Actor,
    draw_id: int,
    card_number: str,
    channel: str,
    device: DeviceToken | None = None,
    now: dt.datetime | None = None,
) -> Activation:
    """Activate a member's tickets for one draw: once, inside a ticket window, by an eligible
    member; the tickets get the next contiguous range of the draw's serials.

    Seed rules: receipts are valid for one draw only; activation happens on the draw day within
    the advertised eHost times (e.g. 08h00-12h55 for the 13h00 draw); the app only admits a
    member who is actively playing; the VIP desk prints for its own tiers (Fast Lane rule 75).

    Everything is checked first without a lock: one statement finds the member, the draw's
    version (the draw itself comes from this worker's copy, draws.activation_cache), whether the
    member activated already or is a proxy, and whether the device is still active, and counts
    the member's tickets with the worker's copy (used only if that copy is the current version;
    else the allocation is asked on its own). The draw row, which is the serial counter, is locked last, by
    one statement that commits by itself (_activate_at_once): it takes the serials only while a
    window is open and the draw is still as the first look saw it, and writes the activation and
    its audit event. The lock is thus held only while PostgreSQL runs that statement and
    commits, with no round trip to this process (well under a millisecond on a quiet server).
    When the draw changed since the first look, that statement writes nothing and the
    re-checking path runs: a guarded UPDATE, one statement that re-checks what another request
    could have changed meanwhile (a proxy registered, this member activated, the rule) and writes,
    then COMMIT, and the refusal names what changed.
    """
    now = now or timezone.now()
    if transaction.get_connection().vendor != "postgresql":
        return _activate_portably(actor, draw_id, card_number, channel, device, now)
    look = _first_look(card_number, draw_id, device, now)
    if look is None:
        raise DomainError(f"No member has card number {card_number}.", code="unknown_card")
    member = look.member
    if channel not in ACTIVATION_CHANNELS:
        raise DomainError(f"Unknown channel {channel!r}: use ehost, app or desk.", code="unknown_channel")
    draw = activation_cache.cached_draw(draw_id, look.draw_version) if look.draw_version is not None else None
    if draw is None:
        raise DomainError(f"There is no draw {draw_id}.", code="unknown_draw")
    check_staff_property(actor, draw.property, what="tickets", done="activated")
    rule_before = _rule_fingerprint(draw)
    _check_can_activate(draw, member, channel, device, now, look=look)  # the cheap checks before the allocation
    # The first look asked whether any exclusion of the member's number is in force from now on,
    # and counted the member's tickets with this worker's copy: valid if the copy is current.
    counted = look.allocation if look.counted_with is draw else NOT_COUNTED
    standing = member_allocation(draw, member, at=now, may_be_excluded=look.may_be_excluded, counted=counted)
    refusal = _standing_refusal(member, standing)
    if refusal:
        raise refusal
    tickets = standing.tickets
    activation = _activate_at_once(
        actor=actor, draw=draw, member=member, channel=channel, device=device, now=now, standing=standing
    )  # fmt: skip
    if activation is not None:
        return activation

    with transaction.atomic():
        first = _take_serials(draw, tickets, now)
        if first is None:  # the guard refused: say why from the draw as it is now
            activation_cache.forget_draw(draw.pk)
            raise _unlocked_refusal(draw.pk, member, now)
        locked = _write_activation(
            actor=actor, draw=draw, member=member, channel=channel, device=device, now=now,
            first=first, standing=standing,
        )  # fmt: skip
        if _rule_fingerprint(locked.draw) != rule_before:
            # series_save changed the rule between the count above and this lock.
            activation_cache.forget_draw(draw.pk)
            raise DomainError(
                "The earning rule of this draw was changed a moment ago: please try again.", code="rule_changed"
            )
    return locked


def _activated_data(draw_id: int, member: Member, channel: str, device, serials: list[int] | None = None) -> dict:
    """The data of an activation's audit event (tickets.activated), whichever path writes it."""
    data = {"draw": draw_id, "card_number": member.card_number, "channel": channel}
    if serials is not None:
        data["serials"] = serials
    return data | {"device": device.name if device else None}


def _activate_portably(actor: Actor, draw_id: int, card_number: str, channel: str, device, now) -> Activation:
    """activation_create on a database other than PostgreSQL (`make run`'s SQLite, which has
    none of the statements above): the same checks through the ORM, then the serials taken under
    the draw's row lock (SQLite: the database's write lock) after the checks another request could
    have changed. No worker copies: the draw is read each time."""
    activation_cache.refuse_if_revoked(device)
    member = Member.objects.select_related("tier").filter(card_number=card_number).first()
    if member is None:
        raise DomainError(f"No member has card number {card_number}.", code="unknown_card")
    if channel not in ACTIVATION_CHANNELS:
        raise DomainError(f"Unknown channel {channel!r}: use ehost, app or desk.", code="unknown_channel")
    draw = activation_cache.load_draw(draw_id)
    if draw is None:
        raise DomainError(f"There is no draw {draw_id}.", code="unknown_draw")
    check_staff_property(actor, draw.property, what="tickets", done="activated")
    _check_can_activate(draw, member, channel, device, now)
    standing = member_allocation(draw, member, at=now)
    refusal = _standing_refusal(member, standing)
    if refusal:
        raise refusal
    tickets = standing.tickets
    with transaction.atomic():
        # The serials first: SQLite's write lock, held to the COMMIT, before anything is re-read.
        Draw.objects.filter(pk=draw_id).update(next_serial=F("next_serial") + tickets)
        locked = activation_cache.load_draw(draw_id)
        _check_open_and_not_activated(locked, member, now)
        counted = (draw.scheduled_at, draw.points_per_ticket, _rule_fingerprint(draw))
        if (locked.scheduled_at, locked.points_per_ticket, _rule_fingerprint(locked)) != counted:
            raise DomainError(
                "This draw or its earning rule was changed a moment ago: please try again.", code="rule_changed"
            )
        first = locked.next_serial - tickets
        activation = Activation.objects.create(
            draw=locked, member=member, channel=channel, first_serial=first, last_serial=first + tickets - 1,
            tickets=tickets, breakdown=standing.allocation.as_dict(), receipt_number=f"{draw_id}-{first:08d}",
            activated_at=now, device=device, user=actor.user,
        )  # fmt: skip
        data = _activated_data(draw_id, member, channel, device, serials=[first, first + tickets - 1])
        audit_log(actor=actor, action="tickets.activated", obj=activation, data=data)
    return activation


@dataclass(frozen=True)
class _FirstLook:
    member: Member
    draw_version: uuid.UUID | None  # None: no such draw
    is_proxy: bool
    existing: tuple | None  # (tickets, activated_at, receipt_number) of the member's activation
    may_be_excluded: bool  # an exclusion of the member's number is in force now or later
    # The member's allocation row (None: no row) counted with this worker's copy of the draw
    # `counted_with`, which is right only if that copy has the version above.
    counted_with: Draw | None = None
    allocation: tuple | None = None


# allocation_sql's columns, named for the LATERAL subquery of the first look.
_ALLOCATION_NAMES = ("member_id", "points", "earned", "free", "bonus", "tickets")
_ALLOCATION_COLUMNS = ", ".join(_ALLOCATION_NAMES)
_ALLOCATION_SELECTED = ", ".join(f"al.{name}" for name in _ALLOCATION_NAMES)


def _first_look(card_number: str, draw_id: int, device: DeviceToken | None, now: dt.datetime) -> _FirstLook | None:
    """The member with their tier (None: no such card), the draw's version, and what the checks
    before the allocation ask the database (whether an exclusion may bar the member, so the
    exclusion register is read again only then), in one statement. A device revoked since this worker
    read its token is refused here (401), as the token lookup would.

    When this worker has a copy of the draw, the same statement also counts the member's tickets
    with it (the allocation statement as a LATERAL subquery): one round trip less for the usual
    activation. The count is used only if the version says the copy is current."""
    columns, tables = member_with_tier_sql("fm", "ft")  # not m and t: the allocation's own aliases
    params = {"draw": draw_id, "device": device.pk if device else None, "card": card_number, "now": now}
    params["carried"] = Channel.CARRIED
    copy = activation_cache.copy_of(draw_id)
    counting = ""
    if copy is not None:
        try:
            tiers = list(copy.series.eligible_tiers.all())
            allocation, allocation_params = allocation_sql(copy, at=now, tiers=tiers, member_ref="fm.id")
        except RuleUnreadable:  # refused in words by the allocation after the checks
            copy = None
        else:
            # Named columns, so that a column the allocation gains cannot shift the row's end.
            counting = f"LEFT JOIN LATERAL ({allocation}) al ({_ALLOCATION_COLUMNS}) ON TRUE"
            params = allocation_params | params  # disjoint names: the allocation's are its own
    sql = f"""
        SELECT {columns},
               {activation_cache.draw_version_sql("%(draw)s")},
               (SELECT d.is_active FROM {DeviceToken._meta.db_table} d WHERE d.id = %(device)s::bigint),
               {registers.proxy_of_sql("draw", "fm")},
               {exclusion_possible_sql("fm", "%(now)s")},
               a.tickets, a.activated_at, a.receipt_number{", " + _ALLOCATION_SELECTED if counting else ""}
        FROM {tables}
        LEFT JOIN {Activation._meta.db_table} a
          ON a.draw_id = %(draw)s AND a.member_id = fm.id AND a.channel <> %(carried)s
        {counting}
        WHERE fm.card_number = %(card)s
        ORDER BY fm.id, a.first_serial
        LIMIT 1
    """  # noqa: S608 (table and column names from the models, every value a parameter)
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        activation_cache.refuse_if_revoked(device)
        return None
    member, rest = member_with_tier_from_row(row)
    allocation = None
    if copy is not None:
        rest, allocation = rest[: -len(_ALLOCATION_NAMES)], rest[-len(_ALLOCATION_NAMES) :]
        allocation = allocation if allocation[0] is not None else None
    version, device_active, is_proxy, may_be_excluded, *existing = rest
    if device is not None and not device_active:
        activation_cache.forget_device(device)
        raise activation_cache.DeviceRevoked()
    existing = tuple(existing) if existing[0] is not None else None
    return _FirstLook(member, version, bool(is_proxy), existing, may_be_excluded, copy, allocation)


def _take_serials(draw: Draw, tickets: int, now: dt.datetime) -> int | None:
    """Lock the draw row and take `tickets` serials, only while it is the draw that was counted
    (its time and points per ticket), scheduled, not a RAPS session, of a published promotion
    and with a ticket window open at `now`: the first serial, or None (nothing changed). A
    window that closed, a freeze or a move is thus enforced by the database here, whatever a
    worker's copy of the draw says; a freeze or a move that commits while this waits for the
    lock changes the row, which PostgreSQL re-checks against the guard."""
    sql = f"""
        UPDATE {Draw._meta.db_table} d SET next_serial = d.next_serial + %(tickets)s
        WHERE {_SERIALS_GUARD}
        RETURNING d.next_serial - %(tickets)s
    """  # noqa: S608 (table names from the models, every value a parameter)
    with prepared_cursor() as cursor:
        cursor.execute(sql, _serials_guard_params(draw, tickets, now))
        row = cursor.fetchone()
    return row[0] if row else None


# The draw aliased d is the one counted and still takes tickets (_take_serials).
_SERIALS_GUARD = f"""d.id = %(draw)s AND d.method <> %(raps)s
          AND d.scheduled_at = %(scheduled_at)s AND d.points_per_ticket IS NOT DISTINCT FROM %(ppt)s::integer
          AND {accepting_tickets_sql("d", "%(now)s")}"""


def _serials_guard_params(draw: Draw, tickets: int, now: dt.datetime) -> dict:
    return {
        "tickets": tickets,
        "draw": draw.pk,
        "raps": DrawMethod.RAPS,
        "scheduled_at": draw.scheduled_at,
        "ppt": draw.points_per_ticket,
        "now": now,
    }


def _activate_at_once(
    *, actor: Actor, draw: Draw, member: Member, channel: str, device, now, standing
) -> Activation | None:
    """The usual activation, in one statement that commits by itself (autocommit; a savepoint
    inside a caller's transaction): take the serials as _take_serials does, but only while the
    draw's activation epoch and version are those of the copy this request counted with (its
    rule, tiers and windows: draws/migrations/0022_draw_cache_version.py), then write the
    activation and its audit event from the serials taken. None: the draw changed, nothing was
    written (the caller re-checks under the lock and says why).

    The statement's snapshot is older than its wait for the lock, so it cannot see a proxy
    registered or a rule saved meanwhile; both change the draw's row (its epoch, its version), and
    PostgreSQL re-checks the UPDATE's condition against the row it waited for. The member
    activating twice at once is refused by the unique index, with the first activation's words."""
    tickets = standing.tickets
    data = _activated_data(draw.pk, member, channel, device)  # the serials added by the statement
    a, e = Activation._meta.db_table, AuditEvent._meta.db_table
    sql = f"""
        WITH taken AS (
            UPDATE {Draw._meta.db_table} d SET next_serial = d.next_serial + %(tickets)s
            WHERE {_SERIALS_GUARD} AND d.activation_epoch = %(epoch)s AND d.cache_version = %(version)s
            RETURNING d.next_serial - %(tickets)s AS first
        ),
        made AS (
            INSERT INTO {a} (draw_id, member_id, channel, first_serial, last_serial, tickets, breakdown,
                             receipt_number, activated_at, device_id, user_id)
            SELECT %(draw)s, %(member)s, %(channel)s, first, first + %(tickets)s - 1, %(tickets)s, %(breakdown)s::jsonb,
                   %(receipt)s || lpad(first::text, greatest(8, length(first::text)), '0'), %(now)s,
                   %(device)s::bigint, %(user)s::integer
            FROM taken
            RETURNING id, first_serial
        ),
        audited AS (
            INSERT INTO {e} (actor_id, actor_label, action, object_type, object_id, data, ip)
            SELECT %(user)s::integer, %(label)s, 'tickets.activated', %(object_type)s, made.id::text,
                   %(data)s::jsonb || jsonb_build_object('serials',
                       jsonb_build_array(made.first_serial, made.first_serial + %(tickets)s - 1)),
                   %(ip)s::inet
            FROM made
        )
        SELECT id, first_serial FROM made
    """  # noqa: S608 (table names from the models, every value a parameter)
    params = _serials_guard_params(draw, tickets, now) | {
        "epoch": draw.activation_epoch,
        "version": draw.cache_version,
        "member": member.pk,
        "channel": channel,
        "breakdown": json.dumps(standing.allocation.as_dict()),
        "receipt": f"{draw.pk}-",
        "device": device.pk if device else None,
        "user": actor.user.pk if actor.user is not None else None,
        "label": actor.label,
        "object_type": Activation._meta.label_lower,
        "data": json.dumps(mask_swipes_in(data)),
        "ip": actor.ip,
    }
    # Outside a transaction the statement is its own: the lock ends with it, no COMMIT to send.
    alone = nullcontext() if not transaction.get_connection().in_atomic_block else transaction.atomic()
    try:
        with alone, prepared_cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
    except IntegrityError as error:
        if "one_activation_per_member_per_draw" not in str(error):
            raise
        raise _already_activated_now(draw, member) from None
    if row is None:
        return None
    made, first = row
    # The rule is the one counted with (the statement's condition): the worker's copy says it.
    return _activation(
        actor=actor, draw=draw, member=member, channel=channel, device=device, now=now, first=first,
        standing=standing, pk=made,
    )  # fmt: skip


def _activation(
    *, actor: Actor, draw: Draw, member: Member, channel: str, device, now, first: int, standing, pk: int,
    rule: str | None = None,
) -> Activation:  # fmt: skip
    """The activation just written, as a model instance (no statement). `rule`: the draw's rule
    as the lock saw it, when it may differ from the worker's copy's."""
    tickets = standing.tickets
    activation = Activation(
        pk=pk, draw=draw, member=member, channel=channel, first_serial=first, last_serial=first + tickets - 1,
        tickets=tickets, breakdown=standing.allocation.as_dict(), receipt_number=f"{draw.pk}-{first:08d}",
        activated_at=now, device=device, user=actor.user,
    )  # fmt: skip
    activation._state.adding, activation._state.db = False, "default"
    if rule is not None and rule != draw.rule_fingerprint:
        # For _rule_fingerprint; the worker's copy is left alone.
        activation.draw = copy.copy(draw)
        activation.draw.rule_fingerprint = rule
    return activation


def _already_activated_now(draw: Draw, member: Member) -> DomainError:
    """already_activated for an activation of the member that committed a moment ago."""
    existing = (
        Activation.objects.filter(draw=draw, member=member)
        .exclude(channel=Channel.CARRIED)
        .order_by("first_serial")
        .values_list("tickets", "activated_at", "receipt_number")
        .first()
    )
    if existing is None:  # cannot be: the unique index named it
        return DomainError(f"{member.full_name} already activated tickets for this draw.", code="already_activated")
    return _already_activated(member, *existing)


def _unlocked_refusal(draw_id: int, member: Member, now: dt.datetime) -> DomainError:
    """Why the guarded UPDATE took no serials, from the draw as it is now (rare: a window that
    closed, a freeze, a move since the first look)."""
    draw = activation_cache.load_draw(draw_id)
    refusal = draw and draw_tickets_refusal(draw, now, point_to_open=True, member=member)
    if refusal:
        return refusal
    return DomainError(
        "This draw was changed a moment ago (its time or points per ticket): please try again.", code="rule_changed"
    )


def _write_activation(
    *, actor: Actor, draw: Draw, member: Member, channel: str, device, now, first: int, standing
) -> Activation:
    """Under the draw's lock, one statement: re-check what another request could have changed
    since the first look (a nomination registering this member as a proxy, an activation of the
    same member: both take this lock, so they are visible now; the rule, read fresh for
    _rule_fingerprint), then write the activation and its audit event (core.audit_log's row,
    written here in the same statement). Raises is_proxy or already_activated, writing nothing."""
    tickets = standing.tickets
    last = first + tickets - 1
    receipt = f"{draw.pk}-{first:08d}"
    data = _activated_data(draw.pk, member, channel, device, serials=[first, last])
    a, e = Activation._meta.db_table, AuditEvent._meta.db_table
    sql = f"""
        WITH checks AS (
            SELECT {registers.proxy_of_sql("draw", "m")} AS is_proxy,
                   {activation_cache.rule_fingerprint_sql("%(series)s")} AS rule_fingerprint
            FROM {Member._meta.db_table} m WHERE m.id = %(member)s
        ),
        existing AS (
            SELECT tickets, activated_at, receipt_number FROM {a}
            WHERE draw_id = %(draw)s AND member_id = %(member)s AND channel <> %(carried)s
            ORDER BY first_serial LIMIT 1
        ),
        made AS (
            INSERT INTO {a} (draw_id, member_id, channel, first_serial, last_serial, tickets, breakdown,
                             receipt_number, activated_at, device_id, user_id)
            SELECT %(draw)s, %(member)s, %(channel)s, %(first)s, %(last)s, %(tickets)s, %(breakdown)s::jsonb,
                   %(receipt)s, %(now)s, %(device)s::bigint, %(user)s::integer
            FROM checks WHERE NOT checks.is_proxy AND NOT EXISTS (SELECT 1 FROM existing)
            RETURNING id
        ),
        audited AS (
            INSERT INTO {e} (actor_id, actor_label, action, object_type, object_id, data, ip)
            SELECT %(user)s::integer, %(label)s, 'tickets.activated', %(object_type)s, made.id::text, %(data)s::jsonb,
                   %(ip)s::inet
            FROM made
            RETURNING id
        )
        SELECT (SELECT id FROM made), (SELECT count(*) FROM audited), checks.is_proxy, checks.rule_fingerprint,
               x.tickets, x.activated_at, x.receipt_number
        FROM checks LEFT JOIN existing x ON TRUE
    """  # noqa: S608 (table names from the models, every value a parameter)
    user_id = actor.user.pk if actor.user is not None else None
    params = {
        "draw": draw.pk,
        "series": draw.series_id,
        "member": member.pk,
        "carried": Channel.CARRIED,
        "channel": channel,
        "first": first,
        "last": last,
        "tickets": tickets,
        "breakdown": json.dumps(standing.allocation.as_dict()),
        "receipt": receipt,
        "now": now,
        "device": device.pk if device else None,
        "user": user_id,
        "label": actor.label,
        "object_type": Activation._meta.label_lower,
        "data": json.dumps(mask_swipes_in(data)),
        "ip": actor.ip,
    }
    try:
        with prepared_cursor() as cursor:
            cursor.execute(sql, params)
            made, _audited, is_proxy, fingerprint, *existing = cursor.fetchone()
    except IntegrityError as error:
        # The re-check above sees every activation of the draw (each takes this lock first); the
        # unique constraint stays the last word should anything write one without it.
        if "one_activation_per_member_per_draw" not in str(error):
            raise
        raise DomainError(
            f"{member.full_name} already activated tickets for this draw.", code="already_activated"
        ) from None
    if is_proxy:
        raise _proxy_refusal(draw, member)
    if made is None:
        raise _already_activated(member, *existing)
    return _activation(
        actor=actor, draw=draw, member=member, channel=channel, device=device, now=now, first=first,
        standing=standing, pk=made, rule=fingerprint,
    )  # fmt: skip


def _proxy_refusal(draw: Draw, member: Member) -> DomainError:
    return DomainError(
        f"{member.full_name} is registered as a proxy for another participant in {draw.name} "
        "and may not take part in it.",
        code="is_proxy",
    )


def _already_activated(member: Member, tickets: int, activated_at: dt.datetime, receipt_number: str) -> DomainError:
    return DomainError(
        f"{member.full_name} already activated {tickets} tickets for this draw "
        f"at {timezone.localtime(activated_at):%H:%M} (receipt {receipt_number}).",
        code="already_activated",
    )


def activation_refusal(
    *,
    draw: Draw,
    member: Member,
    channel: str,
    now: dt.datetime,
    device: DeviceToken | None = None,
    standing: MemberDrawStanding | None = None,
) -> DomainError | None:
    """Why activation_create would refuse this member's tickets for this draw now, or None.
    The one check behind the service and every page that offers the Activate button, so a page
    never offers what the service refuses. `standing` saves a second allocation when known."""
    try:
        _check_can_activate(draw, member, channel, device, now)
    except DomainError as refusal:
        return refusal
    return _standing_refusal(member, standing or member_allocation(draw, member, at=now))


def _standing_refusal(member: Member, standing: MemberDrawStanding) -> DomainError | None:
    if standing.refusals:
        return DomainError("Not eligible for this draw: " + " ".join(standing.refusals), code="not_eligible")
    if standing.tickets <= 0:
        return DomainError(
            f"{member.full_name} has no tickets for this draw "
            f"({standing.allocation.points} points in the earning period).",
            code="no_tickets",
        )
    return None


def _rule_fingerprint(draw: Draw) -> str:
    """What the ticket count depends on in the series: its earning rule and eligible tiers, as
    read with the draw (draws.activation_cache: before the lock, with the rule the allocation
    reads; under it, by the statement that writes the activation)."""
    return draw.rule_fingerprint


def _check_can_activate(
    draw: Draw, member: Member, channel: str, device: DeviceToken | None, now, *, look: "_FirstLook | None" = None
) -> None:
    if device is not None and device.property_id != draw.property_id:
        raise DomainError(
            f"This device belongs to {device.property.name}; {draw.name} is at {draw.property.name}.",
            code="wrong_property",
        )
    _check_open_and_not_activated(draw, member, now, look=look)
    fresh = member.playing_updated_at and now - member.playing_updated_at <= dt.timedelta(
        minutes=settings.PLAYING_FRESH_MINUTES
    )
    # Play counts only where it was reported: another casino's feed does not open this draw.
    at_draw_property = member.playing_property_id == draw.property_id
    if channel == Channel.APP and not (member.playing_now and fresh and at_draw_property):
        raise DomainError(
            f"The app accepts entries only while the member is actively playing at {draw.property.name}.",
            code="not_active_on_floor",
        )
    if channel == Channel.DESK:
        desk_tiers = {t.pk: t.name for t in draw.series.desk_assisted_tiers.all()}
        if member.tier_id not in desk_tiers:
            raise DomainError(
                f"The desk prints tickets only for {', '.join(desk_tiers.values()) or 'no tier'} members "
                "in this draw; send the member to an eHost.",
                code="desk_tier",
            )


def draw_tickets_refusal(
    draw: Draw, now: dt.datetime, *, point_to_open: bool = False, member: Member | None = None
) -> DomainError | None:
    """Why no one's tickets can be activated for this draw now (its method, its promotion, its
    windows), or None. The draw page asks it before any card is swiped; activation asks it too,
    with `point_to_open`: a closed window then names the draw of the series open now."""
    if draw.method == DrawMethod.RAPS:
        return DomainError(
            "RAPS sessions pick players who are actively playing; there are no tickets to activate.",
            code="raps_session",
        )
    promotion = draw.series.promotion
    if promotion.status != PromotionStatus.PUBLISHED:
        return DomainError(
            f"{promotion.name} is {promotion.get_status_display().lower()}, not published: its draws take no tickets.",
            code="not_published",
        )
    refusal = draw.state(now).tickets_refusal
    if refusal and point_to_open:
        refusal += open_instead_words(draw, now, member=member)
    return DomainError(refusal, code="window_closed") if refusal else None


def draw_open_instead(draw: Draw, now: dt.datetime, *, member: Member | None = None) -> Draw | None:
    """The next draw of the same series at the same property taking tickets now (and, given a
    member, not yet activated by them): where a desk refused at a closed window sends the member."""
    others = Draw.objects.accepting_tickets_at(now).filter(series_id=draw.series_id, property_id=draw.property_id)
    if member is not None:
        others = others.exclude(activations__member=member)
    return others.exclude(pk=draw.pk).order_by("scheduled_at", "pk").first()


def open_instead_words(draw: Draw, now: dt.datetime, *, member: Member | None = None) -> str:
    """ " Tickets are open now for Fast Lane, Sat 05 Dec 2026 20:00 — activate there." or ""."""
    other = draw_open_instead(draw, now, member=member)
    return f" Tickets are open now for {other.name} \N{EM DASH} activate there." if other else ""


def _check_open_and_not_activated(draw: Draw, member: Member, now, *, look: _FirstLook | None = None) -> None:
    """What another request can change between the first look and the lock (activation_create
    passes its first look, which has asked the database already)."""
    refusal = draw_tickets_refusal(draw, now, point_to_open=True, member=member)
    if refusal:
        raise refusal
    # Through draws.registers (proxies sits above draws). Checked again under the draw lock,
    # which a nomination takes too, so a nominee and their activation cannot cross.
    if look.is_proxy if look else registers.proxy_of(draw, member) is not None:
        raise _proxy_refusal(draw, member)
    if look is not None:
        if look.existing:
            raise _already_activated(member, *look.existing)
        return
    existing = Activation.objects.filter(draw=draw, member=member).first()
    if existing:
        raise _already_activated(member, existing.tickets, existing.activated_at, existing.receipt_number)


# --- Closing windows (the beat tick) -------------------------------------------------------


def canonical_entries(draw: Draw) -> bytes:
    """The entry list the draw is run on, in one fixed text form: a line per activation,
    "first_serial,last_serial,member_id", ordered by serial. Its SHA-256 is published."""
    rows = draw.activations.order_by("first_serial").values_list("first_serial", "last_serial", "member_id")
    return "".join(f"{first},{last},{member}\n" for first, last, member in rows.iterator()).encode()


def draw_close_window(*, draw_id: int, now: dt.datetime | None = None) -> bool:
    """Freeze a draw's entries once its last ticket window has closed: record the SHA-256 of the
    canonical entry list and of a fresh secret seed. True if this call closed it; a second call
    (another worker, a late tick) finds it closed and changes nothing; a draw locked by another
    transaction is left to the next tick."""
    now = now or timezone.now()
    with transaction.atomic():
        draw = (
            Draw.objects.select_for_update(skip_locked=True)
            .filter(pk=draw_id, status=DrawStatus.SCHEDULED, tickets_close_at__lte=now)
            .first()
        )
        if draw is None:
            return False
        if entry_sources.takes_carried_only(draw):
            # A finalist draw freezes when it starts: a place won in a draw running late (the 9pm
            # draw before the 21h15 car draw) still reaches it.
            return False
        freeze_entries(draw, now=now)
    return True


def freeze_entries(draw: Draw, *, now: dt.datetime) -> None:
    """Freeze the entries of a scheduled draw whose windows have closed. The caller holds the
    draw's row lock (draw_close_window, or draws.engine.draw_start when Start comes first).
    Entries carried from earlier draws (draws.entry_sources) are written first, after the draw's
    own activations, so the frozen list and its SHA-256 hold them."""
    carried = _write_carried_entries(draw, now=now)
    entries = canonical_entries(draw)
    totals = draw.activations.aggregate(n=Count("id"), t=Sum("tickets"))
    draw.status = DrawStatus.CLOSED
    draw.entries_frozen_at = now
    draw.entries_count = totals["n"] or 0
    draw.tickets_total = totals["t"] or 0
    draw.entries_sha256 = hashlib.sha256(entries).hexdigest()
    seed_commit(draw)
    draw.save()
    audit_log(
        actor=Actor.system("tick"),
        action="draw.entries_frozen",
        obj=draw,
        data={
            "entries": draw.entries_count,
            "tickets": draw.tickets_total,
            "entries_sha256": draw.entries_sha256,
            "seed_sha256": draw.seed_sha256,
            "carried": carried,
        },
    )


def _write_carried_entries(draw: Draw, *, now: dt.datetime) -> list[dict]:
    """Write each carried member as one activation (channel "carried") with the next serials;
    what was written, for the freeze's audit event. A finalist draw takes no tickets of its own:
    one activated anyway (before its places were known) is refused here, in words."""
    carried = entry_sources.carried_entries(draw)
    if carried is None:
        return []
    if carried.only and draw.activations.exists():
        raise DomainError(
            f"{draw.name} is a finalist draw: its entrants are the places carried from earlier draws, "
            "but tickets were activated for it. Cancel those tickets' draw or ask support.",
            code="finalist_draw_has_tickets",
        )
    first = draw.next_serial
    written = []
    for n, entry in enumerate(carried.entries, start=1):
        Activation.objects.create(
            draw=draw,
            member_id=entry.member_id,
            channel=Channel.CARRIED,
            first_serial=first,
            last_serial=first + entry.tickets - 1,
            tickets=entry.tickets,
            breakdown={"carried": entry.why},
            receipt_number=f"{draw.pk}-C{n:07d}",
            activated_at=now,
        )
        written.append({"member_id": entry.member_id, "serials": [first, first + entry.tickets - 1]})
        first += entry.tickets
    draw.next_serial = first
    return written


def draws_close_due(*, now: dt.datetime | None = None) -> int:
    """Close every draw whose ticket windows have all passed; the number closed."""
    now = now or timezone.now()
    due = Draw.objects.filter(status=DrawStatus.SCHEDULED, tickets_close_at__lte=now).values_list("pk", flat=True)
    return sum(draw_close_window(draw_id=pk, now=now) for pk in list(due[:500]))


# --- The draw page's standing (derived data, counted in the background) -------------------

# Recounted after each points import, and at least this often while tickets are out (free
# tickets by weekday and exclusions change with time). A million-member count takes seconds of
# worker time, so not more often.
STANDING_MAX_AGE = dt.timedelta(minutes=30)
STANDING_REQUEUE_AFTER = dt.timedelta(minutes=5)  # a request lost with its worker is made again
STANDING_HORIZON = dt.timedelta(days=7)  # draws further ahead are counted when asked for
STANDING_TOP = 50
# Counts waiting for the worker at once, all draws together: the tick queues no more than this,
# so the worker's queue never buries the next tick behind recounts.
STANDING_QUEUED_MAX = 10


def draw_standing_refresh(*, draw_id: int, now: dt.datetime | None = None) -> DrawStanding:
    """Count the draw's allocation overview now and keep it for the draw page. A rule that
    cannot be read is kept as the count's error, for the page to show, instead of failing."""
    now = now or timezone.now()
    # Taken off the queue as it starts: a request made from here on (after a rule fix, say)
    # queues one new count, as this one may read what was there before.
    DrawStanding.objects.filter(draw_id=draw_id).update(requested_at=None)
    draw = Draw.objects.with_related().prefetch_related("series__eligible_tiers").get(pk=draw_id)
    try:
        overview = allocation_overview(draw, at=now, limit=STANDING_TOP)
    except DomainError as error:
        values = {"error": error.message}
    else:
        values = {
            "members": overview.members,
            "members_with_tickets": overview.members_with_tickets,
            "tickets": overview.tickets,
            "top": [{"member_id": row.allocation.member_id, **row.allocation.as_dict()} for row in overview.top],
            "error": "",
        }
    standing, _ = DrawStanding.objects.update_or_create(draw_id=draw_id, defaults={**values, "computed_at": now})
    return standing


def draw_standing_request(*, draw_id: int, now: dt.datetime | None = None) -> bool:
    """Queue a recount of one draw's standing (after this transaction commits); False, queuing
    nothing, when one is already waiting for the worker (requested less than
    STANDING_REQUEUE_AFTER ago and not yet started): 200 presses of "Count again" queue one."""
    from draws.tasks import draw_standing_refresh_task  # tasks import this module

    now = now or timezone.now()
    DrawStanding.objects.bulk_create([DrawStanding(draw_id=draw_id)], ignore_conflicts=True)
    # One conditional UPDATE: of two requests at once, the second waits for the first's row
    # lock, then finds requested_at set and queues nothing.
    queued = (
        DrawStanding.objects.filter(draw_id=draw_id)
        .filter(Q(requested_at__isnull=True) | Q(requested_at__lte=now - STANDING_REQUEUE_AFTER))
        .update(requested_at=now)
    )
    if queued:
        enqueue(draw_standing_refresh_task, draw_id)  # lost with the broker: the tick asks again
    return bool(queued)


def draw_standing_recount(*, actor: Actor, draw_id: int, now: dt.datetime | None = None) -> bool:
    """A manager's "Count again": only at their own properties (members.staff), then queued as
    draw_standing_request queues it (False when a count is already on its way)."""
    draw = Draw.objects.select_related("property").get(pk=draw_id)
    check_staff_property(actor, draw.property)
    return draw_standing_request(draw_id=draw.pk, now=now)


def draw_standings_refresh_due(*, now: dt.datetime | None = None) -> int:
    """The tick: queue a recount for each draw taking tickets in the next days whose standing is
    missing, older than the last points import, or older than STANDING_MAX_AGE, or asked for over
    STANDING_REQUEUE_AFTER ago and not started (the broker lost it), while fewer than
    STANDING_QUEUED_MAX counts wait for the worker. The number queued."""
    now = now or timezone.now()
    stale_before = now - STANDING_MAX_AGE
    last_import = ImportJob.objects.filter(kind=ImportKind.POINTS, status=ImportStatus.SUCCEEDED).aggregate(
        at=Max("finished_at")
    )["at"]
    if last_import and last_import > stale_before:
        stale_before = last_import
    due = (
        Draw.objects.filter(
            status=DrawStatus.SCHEDULED,
            series__promotion__status=PromotionStatus.PUBLISHED,
            tickets_close_at__gt=now,
            scheduled_at__lte=now + STANDING_HORIZON,
        )
        .exclude(method=DrawMethod.RAPS)
        .filter(
            Q(standing__isnull=True)
            | Q(standing__computed_at__isnull=True)
            | Q(standing__computed_at__lt=stale_before)
            # asked for and never started (its message lost with the broker): asked again below
            | Q(standing__requested_at__isnull=False)
        )
        .exclude(standing__requested_at__gt=now - STANDING_REQUEUE_AFTER)
        .values_list("pk", flat=True)
    )
    waiting = DrawStanding.objects.filter(requested_at__gt=now - STANDING_REQUEUE_AFTER).count()
    room = max(0, STANDING_QUEUED_MAX - waiting)  # the rest are due again at the next tick
    queued = 0
    with transaction.atomic():
        for draw_id in list(due[:room]) if room else []:
            queued += draw_standing_request(draw_id=draw_id, now=now)
    return queued


# --- Device tokens -------------------------------------------------------------------------


def device_token_create(*, actor: Actor, prop, name: str, kind: str = DeviceKind.EHOST) -> tuple[DeviceToken, str]:
    """A new token for an eHost or the app gateway of one property. The token itself is shown
    once and never stored; only its SHA-256 is."""
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        if DeviceToken.objects.filter(property=prop, name=name).exists():
            raise DomainError(f"{prop.name} already has a device called {name!r}.", code="duplicate_device")
        device = DeviceToken.objects.create(
            property=prop, name=name, kind=kind, key_prefix=token[:8], key_sha256=DeviceToken.hash(token)
        )
        audit_log(
            actor=actor,
            action="device.token_created",
            obj=device,
            data={"property": prop.code, "name": name, "kind": kind},
        )
    return device, token


def device_token_set_active(*, actor: Actor, device_id: int, active: bool) -> DeviceToken:
    """Revoke (or restore) a device's token; a revoked token is refused at once."""
    with transaction.atomic():
        device = DeviceToken.objects.select_for_update().get(pk=device_id)
        device.is_active = active
        device.save(update_fields=["is_active"])
        audit_log(actor=actor, action="device.restored" if active else "device.revoked", obj=device)
    activation_cache.forget_device(device)  # this worker at once; the others check it (activation_cache)
    return device
