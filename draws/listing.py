"""The draws list (SCREENS.md rule 6): which draws a user sees, filtered, with the counts by
status, and each row as the page shows it."""

import datetime as dt
from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, QuerySet
from django.utils import timezone

from core.formats import local_datetime
from draws.forms import ALL_PROPERTIES, DrawListFilter
from draws.models import Draw, TicketWindow
from members.models import Property
from members.staff import staff_property
from promotions.models import Promotion, PromotionStatus


def draws_visible_to(user) -> QuerySet:
    """Every draw the user may see: a draft promotion's draws are the managers' business."""
    draws = Draw.objects.with_related()
    if not user.has_perm("draws.change_draw"):
        draws = draws.filter(series__promotion__status=PromotionStatus.PUBLISHED)
    return draws


def draw_list_filter(params, user) -> DrawListFilter:
    """The filter form, its choices limited to what the user may see, starting at their property."""
    promotions = Promotion.objects.order_by("-starts_on", "name")
    if not user.has_perm("draws.change_draw"):
        promotions = promotions.filter(status=PromotionStatus.PUBLISHED)
    home = staff_property(user)
    return DrawListFilter(
        params, properties=Property.objects.all(), promotions=promotions, default_property=home.code if home else None
    )


def draws_filtered(form: DrawListFilter, user, now: dt.datetime) -> QuerySet:
    """The listed draws in the order the preset reads best (upcoming: soonest first; past and
    all: latest first; open: closing first); the form's status counts are filled in. A filter
    with an error lists nothing, so a mistyped date is never taken for "every draw"."""
    if not form.is_valid():
        return Draw.objects.none()
    data = form.cleaned_data
    draws = draws_visible_to(user)
    if data["property"] and data["property"] != ALL_PROPERTIES:
        draws = draws.filter(property__code=data["property"])
    if data["promotion"]:
        draws = draws.filter(series__promotion_id=data["promotion"])
    if data["date_from"]:
        draws = draws.filter(scheduled_at__gte=_start_of(data["date_from"]))
    if data["date_to"]:
        draws = draws.filter(scheduled_at__lt=_start_of(data["date_to"] + dt.timedelta(days=1)))
    when = form.preset()
    if when == "open":
        window_open = TicketWindow.objects.filter(draw=OuterRef("pk"), opens_at__lte=now, closes_at__gt=now)
        draws = draws.filter(Exists(window_open), status=Draw.OPEN_STATUS).order_by("tickets_close_at", "id")
    elif when == "upcoming":
        draws = draws.filter(scheduled_at__gte=now).order_by("scheduled_at", "id")
    elif when == "past":
        draws = draws.filter(scheduled_at__lt=now).order_by("-scheduled_at", "-id")
    else:
        draws = draws.order_by("-scheduled_at", "-id")
    counts = draws.order_by().values("status").annotate(n=Count("id"))
    form.count_statuses({row["status"]: row["n"] for row in counts})
    if data["status"]:
        draws = draws.filter(status=data["status"])
    return draws.prefetch_related("windows")


def _start_of(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


@dataclass(frozen=True)
class DrawRow:
    draw: Draw
    title: str  # the name without the date it carries: the When column has it
    tickets: str  # the ticket window, short: "08:00 - 12:55" on the draw day
    activate_refusal: str | None  # None: the desk may activate now
    cancellable: bool


def draw_row(draw: Draw, *, activate_refusal: str | None, elsewhere: str | None = None) -> DrawRow:
    """`elsewhere`: why the user may not act at the draw's property (members.staff), or None."""
    return DrawRow(
        draw=draw,
        title=draw.name.removesuffix(f", {local_datetime(draw.scheduled_at)}"),
        tickets=tickets_span(draw),
        activate_refusal=elsewhere or activate_refusal,
        cancellable=elsewhere is None and draw.cancel_refusal() is None,
    )


def tickets_span(draw: Draw) -> str:
    """When tickets can be activated, from the first window's opening to the last's closing."""
    return moment_span(draw.tickets_open_at, draw.tickets_close_at, draw.scheduled_at)


def moment_span(opens: dt.datetime, closes: dt.datetime, draw_at: dt.datetime) -> str:
    """A window as short as reads unambiguously beside its draw: times alone on the draw day, the
    weekday added for another day of its week ("Fri 21:00 - Sat 19:55"), the date beyond that."""
    day = timezone.localtime(draw_at).date()

    def short(moment: dt.datetime) -> str:
        local = timezone.localtime(moment)
        if local.date() == day:
            return f"{local:%H:%M}"
        if abs((local.date() - day).days) < 7:
            return f"{local:%a %H:%M}"
        return f"{local:%d %b %H:%M}"

    return f"{short(opens)} \N{EN DASH} {short(closes)}"
