"""What each role's start page shows (issue 9, item 3): the desk's draws of the day, what needs
the manager's attention, the auditor's latest draws. It reads draws, proxies, imports and
promotions, so it sits above every app (config/), like the URLs.

Every piece costs a fixed number of statements whatever the amount of data: lists stop at
their limit (the page links to the full list) and counts come in the statement of the rows."""

import datetime as dt
from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, Exists, IntegerField, Min, OuterRef, Q, QuerySet, Subquery, Sum, Window
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.formats import local_datetime
from core.models import AuditEvent, AuditSeal, WorkerHeartbeat
from draws.models import WINNING_OUTCOMES, Activation, Draw, DrawPick, DrawStatus, RapsList
from draws.states import DrawPhase
from members.models import ImportJob, ImportStatus
from promotions.models import DrawMethod, DrawSeries, Promotion, PromotionStatus
from proxies.models import DeclineRegistration, ProxyNomination

DESK_LIMIT = 30  # a property's draws of one day; more than this links to the draws list
LIMIT = 10
ENDING_WITHIN_DAYS = 14
REJECTED_WITHIN_DAYS = 7
HEARTBEAT_STALE_SECONDS = 120  # the tick runs every 15-30 s


def day_bounds(now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """The Johannesburg day around `now`, as aware datetimes [start, end)."""
    today = timezone.localdate(now)
    start = timezone.make_aware(dt.datetime.combine(today, dt.time.min))
    return start, timezone.make_aware(dt.datetime.combine(today + dt.timedelta(days=1), dt.time.min))


def clock(moment: dt.datetime, now: dt.datetime) -> str:
    """A moment as short as reads unambiguously today: "12:55" today, the full form otherwise."""
    local = timezone.localtime(moment)
    return f"{local:%H:%M}" if local.date() == timezone.localdate(now) else local_datetime(moment)


def _at(draws: QuerySet, property_ids: list[int] | None, field: str = "property") -> QuerySet:
    return draws if property_ids is None else draws.filter(**{f"{field}__in": property_ids})


def _per_draw(queryset: QuerySet, total) -> Coalesce:
    """One number per draw from `queryset` (its rows' draw column), inside the draws' statement."""
    rows = queryset.filter(draw=OuterRef("pk")).order_by().values("draw").annotate(n=total).values("n")[:1]
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


# --- The desk --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TodayDraw:
    draw: Draw
    tickets: str  # "Open until 12:55 (2 h 05 min left)", "Opens at 08:00", "Closed at 12:55", ...
    open_now: bool
    activations: int
    tickets_count: int
    proxies: int
    declines: int


def desk_today(property_ids: list[int] | None, now: dt.datetime) -> tuple[list[TodayDraw], bool]:
    """Today's draws at the properties (None: all), with their ticket windows and counts, and
    whether there are more than the page shows."""
    start, end = day_bounds(now)
    draws = (
        _at(Draw.objects.with_related(), property_ids)
        .filter(scheduled_at__gte=start, scheduled_at__lt=end)
        .filter(series__promotion__status=PromotionStatus.PUBLISHED)  # drafts never reach the desk
        .annotate(
            n_activations=_per_draw(Activation.objects.all(), Count("pk")),
            n_tickets=_per_draw(Activation.objects.all(), Sum("tickets")),
            n_proxies=_per_draw(ProxyNomination.objects.live(), Count("pk")),
            n_declines=_per_draw(DeclineRegistration.objects.live(), Count("pk")),
        )
        .prefetch_related("windows")
        .order_by("scheduled_at", "id")
    )
    found = list(draws[: DESK_LIMIT + 1])
    rows = [
        TodayDraw(
            draw=draw,
            tickets=tickets_words(draw, now),
            open_now=draw.state(now).phase == DrawPhase.OPEN,
            activations=draw.n_activations,
            tickets_count=draw.n_tickets,
            proxies=draw.n_proxies,
            declines=draw.n_declines,
        )
        for draw in found[:DESK_LIMIT]
    ]
    return rows, len(found) > DESK_LIMIT


def tickets_words(draw: Draw, now: dt.datetime) -> str:
    """Where the draw's tickets stand, in a clerk's words (windows prefetched)."""
    state = draw.state(now)
    if state.is_cancelled:
        return "Cancelled" + (f": {draw.change_reason}" if draw.change_reason else ".")
    if state.is_complete:
        return f"Drawn at {clock(draw.completed_at or draw.scheduled_at, now)}."
    if state.is_running:
        return "Drawing now."
    if state.entries_frozen:
        return f"Tickets closed; entries frozen at {clock(draw.entries_frozen_at or draw.tickets_close_at, now)}."
    window = draw.open_window(now)
    if window is not None:
        return f"Open until {clock(window.closes_at, now)} ({window.time_left(now)} left)."
    upcoming = [w for w in draw.windows.all() if w.opens_at > now]
    if upcoming:
        return f"Opens at {clock(upcoming[0].opens_at, now)}."
    return f"Closed at {clock(draw.tickets_close_at, now)}."


# --- The manager -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawNote:
    draw: Draw
    note: str


@dataclass(frozen=True)
class SeriesWithoutRule:
    series: DrawSeries
    draws: int
    first_at: dt.datetime


@dataclass(frozen=True)
class Heartbeat:
    running: bool
    words: str


@dataclass(frozen=True)
class Attention:
    closing_today: list[DrawNote]
    to_run: list[DrawNote]
    imports: list[ImportJob]
    without_rule: list[SeriesWithoutRule]
    promotions_ending: list[Promotion]

    def is_empty(self) -> bool:
        return not (self.closing_today or self.to_run or self.imports or self.without_rule or self.promotions_ending)


def manager_attention(property_ids: list[int] | None, now: dt.datetime) -> Attention:
    return Attention(
        closing_today=closing_today(property_ids, now),
        to_run=draws_to_run(property_ids, now),
        imports=imports_to_watch(now),
        without_rule=series_without_rule(property_ids, now),
        promotions_ending=promotions_ending(property_ids, now),
    )


def closing_today(property_ids: list[int] | None, now: dt.datetime) -> list[DrawNote]:
    """Draws whose ticket windows close later today."""
    _, end = day_bounds(now)
    draws = _at(Draw.objects.with_related(), property_ids).filter(
        status=DrawStatus.SCHEDULED,
        series__promotion__status=PromotionStatus.PUBLISHED,
        tickets_close_at__gt=now,
        tickets_close_at__lt=end,
    )
    return [
        DrawNote(d, f"Tickets close at {clock(d.tickets_close_at, now)}.")
        for d in draws.order_by("tickets_close_at", "id")[:LIMIT]
    ]


TO_RUN_WITHIN = dt.timedelta(days=7)


def draws_to_run(property_ids: list[int] | None, now: dt.datetime) -> list[DrawNote]:
    """Entries frozen and waiting for Start, or drawing now, due within the last week or later:
    the oldest first (a draw left unrun is the one to see). Older ones, such as a seed
    promotion's past season loaded today, stay in the draws list without crowding this one."""
    draws = (
        _at(Draw.objects.with_related(), property_ids)
        .filter(status__in=(DrawStatus.CLOSED, DrawStatus.RUNNING), scheduled_at__gte=now - TO_RUN_WITHIN)
        .annotate(
            n_winners=_per_draw(DrawPick.objects.filter(outcome__in=WINNING_OUTCOMES), Count("pk")),
            has_list=Exists(RapsList.objects.filter(draw=OuterRef("pk"))),
        )
        .order_by("scheduled_at", "id")
    )
    return [DrawNote(d, _run_note(d, now)) for d in draws[:LIMIT]]


def _run_note(draw: Draw, now: dt.datetime) -> str:
    if draw.state(now).is_running:
        return f"Drawing now: {draw.n_winners} of {draw.winners_wanted or draw.series.winners_per_draw} winners."
    when = clock(draw.scheduled_at, now)
    if draw.method == DrawMethod.RAPS and not draw.has_list:
        return f"Upload the active-player list before {when}."
    if draw.method == DrawMethod.ELECTRONIC and draw.scheduled_at > now:
        return f"Entries frozen; the system starts it at {when}."
    if draw.scheduled_at > now:
        return f"Entries frozen; waiting for Start at {when}."
    return f"Was due at {when}: waiting for Start."


def imports_to_watch(now: dt.datetime) -> list[ImportJob]:
    """Imports waiting or running, and those rejected in the last days."""
    recent = now - dt.timedelta(days=REJECTED_WITHIN_DAYS)
    jobs = ImportJob.objects.filter(
        Q(status__in=(ImportStatus.QUEUED, ImportStatus.RUNNING))
        | Q(status=ImportStatus.FAILED, created_at__gte=recent)
    )
    return list(jobs.order_by("-created_at", "-id")[:LIMIT])


def series_without_rule(property_ids: list[int] | None, now: dt.datetime) -> list[SeriesWithoutRule]:
    """Series with draws to come but no earning rule: nobody can earn tickets for them."""
    upcoming = Q(draws__scheduled_at__gte=now) & ~Q(draws__status=DrawStatus.CANCELLED)
    series = (
        _at(DrawSeries.objects.select_related("promotion", "property"), property_ids)
        .filter(rule__isnull=True)
        .filter(upcoming)
        .annotate(n_draws=Count("draws", filter=upcoming), first_at=Min("draws__scheduled_at", filter=upcoming))
        .order_by("first_at", "id")
    )
    return [SeriesWithoutRule(s, s.n_draws, s.first_at) for s in series[:LIMIT]]


def promotions_ending(property_ids: list[int] | None, now: dt.datetime) -> list[Promotion]:
    today = timezone.localdate(now)
    promotions = Promotion.objects.filter(
        status=PromotionStatus.PUBLISHED,
        ends_on__gte=today,
        ends_on__lte=today + dt.timedelta(days=ENDING_WITHIN_DAYS),
    )
    if property_ids is not None:
        promotions = promotions.filter(
            pk__in=Promotion.properties.through.objects.filter(property_id__in=property_ids).values("promotion_id")
        )
    return list(promotions.order_by("ends_on", "name")[:LIMIT])


def heartbeat(now: dt.datetime) -> Heartbeat:
    """The background jobs (the tick closing windows and starting electronic draws), in words."""
    beat = WorkerHeartbeat.objects.filter(name="beat").first()
    if beat is None:
        return Heartbeat(False, "Background jobs have not run yet: ticket windows will not close by themselves.")
    age = max(0, int((now - beat.last_tick_at).total_seconds()))
    if age <= HEARTBEAT_STALE_SECONDS:
        return Heartbeat(True, f"Background jobs: running, last check {age} s ago.")
    return Heartbeat(
        False,
        f"Background jobs have stopped: the last check was at {local_datetime(beat.last_tick_at)}. "
        "Ticket windows will not close and electronic draws will not start by themselves: call IT.",
    )


# --- The auditor -----------------------------------------------------------------------------


def recent_draws(property_ids: list[int] | None, now: dt.datetime) -> list[Draw]:
    """The latest completed draws, each with its number of winners (n_winners)."""
    draws = (
        _at(Draw.objects.with_related(), property_ids)
        .filter(status=DrawStatus.DRAWN)
        .annotate(n_winners=_per_draw(DrawPick.objects.filter(outcome__in=WINNING_OUTCOMES), Count("pk")))
        .order_by("-completed_at", "-id")
    )
    return list(draws[:LIMIT])


def records_running(property_ids: list[int] | None) -> list[Draw]:
    """Draws being drawn now: their records are being written."""
    draws = _at(Draw.objects.with_related(), property_ids).filter(status=DrawStatus.RUNNING)
    return list(draws.order_by("started_at", "id")[:LIMIT])


def audit_entries_today(now: dt.datetime) -> int:
    start, _ = day_bounds(now)
    return AuditEvent.objects.filter(created_at__gte=start).count()


@dataclass
class SealSummary:
    """The audit log's latest seal (docs/audit-seal.md), how many days its chain holds and how
    many past days are overdue for theirs."""

    latest: AuditSeal | None
    days: int
    waiting: int
    # make run's SQLite never seals (core.audit_seal.seal_due): the page says so rather than
    # promising a seal after midnight.
    sealing: bool = True


def audit_seal(now: dt.datetime) -> SealSummary:
    # One statement: the latest seal and, as a window over every row, how many there are (the
    # chain has no gap, an empty day has its seal too, so that is the number of days chained).
    latest = AuditSeal.objects.annotate(chained=Window(Count("pk"))).order_by("-day").first()
    if latest is None:
        return SealSummary(None, 0, 0, sealing=connection.vendor == "postgresql")
    # Yesterday is due from 01h00: the tick seals it a few minutes after midnight.
    due = timezone.localdate(now - dt.timedelta(hours=1)) - dt.timedelta(days=1)
    return SealSummary(latest, latest.chained, max(0, (due - latest.day).days))
