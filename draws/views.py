from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.db.models import Count, Sum
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from core.formats import local_datetime
from core.forms import submit
from draws import receipts, services
from draws.allocation import MemberDrawStanding, earning_period, member_allocation
from draws.forms import CardForm, DrawCancelForm, DrawListFilter, DrawMoveForm, ScheduleDrawsForm
from draws.models import Activation, Channel, Draw, DrawStatus
from draws.rule_words import rule_in_words
from draws.run_views import run_context
from draws.selectors import draw_standing_overview
from members.models import Member
from promotions.models import DrawMethod, DrawSeries, PromotionStatus

LATEST_ACTIVATIONS = 50


@permission_required("draws.view_draw", raise_exception=True)
def draw_list(request):
    when = DrawListFilter(request.GET).choice()
    now = timezone.now()
    draws = Draw.objects.with_related()
    if not request.user.has_perm("draws.change_draw"):  # a draft's draws are the managers' business
        draws = draws.filter(series__promotion__status=PromotionStatus.PUBLISHED)
    if when == "open":
        draws = draws.accepting_tickets_at(now).order_by("tickets_close_at", "id")
    elif when == "upcoming":
        draws = draws.filter(scheduled_at__gte=now).order_by("scheduled_at", "id")
    elif when == "past":
        draws = draws.filter(scheduled_at__lt=now).order_by("-scheduled_at", "-id")
    else:
        draws = draws.order_by("-scheduled_at", "-id")
    desk = request.user.has_perm("draws.add_activation")
    # Each row offers "Activate tickets" only when the desk could (the same check as the service).
    rows = [(draw, _desk_refusal(draw, now) if desk else None) for draw in draws.prefetch_related("windows")[:100]]
    context = {"rows": rows, "desk": desk, "when": when, "choices": DrawListFilter.WHEN}
    return render(request, "draws/list.html", context)


@permission_required("draws.view_draw", raise_exception=True)
def draw_detail(request, draw_id: int):
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    eligible_tiers = list(draw.series.eligible_tiers.all())
    raps = draw.method == DrawMethod.RAPS  # winners come from an active-player list: no tickets
    now = timezone.now()
    allocation, standing = (None, None) if raps else draw_standing_overview(draw)
    context = {
        "draw": draw,
        "raps": raps,
        "windows": draw.windows.all(),
        "earning_period": None if raps else earning_period(draw),
        "eligible_tiers": eligible_tiers,
        "desk_tiers": list(draw.series.desk_assisted_tiers.all()),
        "rule_lines": [] if raps else _rule_lines(draw, eligible_tiers),
        "entries": _entries(draw),
        "allocation": allocation,
        "standing": standing,
        "move_refusal": draw.move_refusal(),
        "cancel_refusal": draw.cancel_refusal(),
        "desk_refusal": _desk_refusal(draw, now),
        "activations": draw.activations.select_related("member").order_by("-first_serial")[:LATEST_ACTIVATIONS],
        "seed_revealed": draw.status == DrawStatus.DRAWN,
    } | run_context(draw, request.user)
    return render(request, "draws/detail.html", context)


@permission_required("draws.add_draw", raise_exception=True)
def series_schedule(request, series_id: int):
    series = get_object_or_404(DrawSeries.objects.select_related("promotion"), pk=series_id)
    form = ScheduleDrawsForm(request.POST or None)
    actor = Actor.from_request(request)
    draws = submit(
        request,
        form,
        lambda: services.series_schedule_draws(actor=actor, series=series, moments=form.cleaned_data["moments"]),
    )
    if draws is not None:
        messages.success(request, f"{len(draws)} draw(s) scheduled for {series.name}.")
        return redirect("promotions:detail", promotion_id=series.promotion_id)
    try:
        windows_text = "; ".join(str(window) for window in series.window_specs())
    except DomainError as error:  # unreadable stored windows: say so, the page still opens
        windows_text = error.message
    return render(request, "draws/schedule.html", {"form": form, "series": series, "windows_text": windows_text})


@permission_required("draws.change_draw", raise_exception=True)
def draw_move(request, draw_id: int):
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    form = DrawMoveForm(request.POST or None, initial={"scheduled_at": draw.scheduled_at})
    moved = submit(
        request,
        form,
        lambda: services.draw_move(
            actor=Actor.from_request(request),
            draw_id=draw.pk,
            scheduled_at=form.cleaned_data["scheduled_at"],
            reason=form.cleaned_data["reason"],
        ),
    )
    if moved:
        messages.success(request, f"{moved.name} is moved to {local_datetime(moved.scheduled_at)}.")
        return redirect("draws:detail", draw_id=draw.pk)
    return render(request, "draws/move.html", {"draw": draw, "form": form})


@require_POST
@permission_required("draws.change_draw", raise_exception=True)
def standing_refresh(request, draw_id: int):
    """A manager asks for the allocation to be counted again now (after a rule fix, say)."""
    draw = get_object_or_404(Draw, pk=draw_id)
    services.draw_standing_request(draw_id=draw.pk)
    messages.info(request, "The allocation is being counted again; this page shows it when it is ready.")
    return redirect("draws:detail", draw_id=draw.pk)


def _rule_lines(draw: Draw, eligible_tiers) -> list[str]:
    try:
        return rule_in_words(draw, eligible_tiers)
    except DomainError as error:  # an unreadable rule: this draw's page says so, nothing else breaks
        return [error.message]


def _desk_refusal(draw: Draw, now) -> str | None:
    """Why the desk cannot activate tickets for this draw now (before any card is swiped)."""
    refusal = services.draw_tickets_refusal(draw, now)
    return refusal.message if refusal else None


@permission_required("draws.change_draw", raise_exception=True)
def draw_cancel(request, draw_id: int):
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    form = DrawCancelForm(request.POST or None)
    actor = Actor.from_request(request)
    if submit(
        request, form, lambda: services.draw_cancel(actor=actor, draw_id=draw.pk, reason=form.cleaned_data["reason"])
    ):
        messages.success(request, f"{draw.name} is cancelled.")
        return redirect("draws:detail", draw_id=draw.pk)
    return render(request, "draws/cancel.html", {"draw": draw, "form": form})


@permission_required("draws.add_activation", raise_exception=True)
def draw_activate(request, draw_id: int):
    """The VIP desk: swipe the card, see the member's tickets for this draw, activate them."""
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    form = CardForm(request.POST if request.method == "POST" else request.GET or None)
    member = standing = activation = refusal = None
    now = timezone.now()
    if form.is_valid():
        card = form.cleaned_data["card"]
        if request.method == "POST":
            try:
                activation = services.activation_create(
                    actor=Actor.from_request(request), draw_id=draw.pk, card_number=card, channel=Channel.DESK
                )
            except DomainError as error:
                form.add_error(None, error.message)
            else:
                return redirect("draws:receipt", activation_id=activation.pk)
        member = Member.objects.with_related().filter(card_number=card).first()
        if member is None:
            form.add_error("card", f"No member has card number {card}.")
        else:
            activation = Activation.objects.filter(draw=draw, member=member).first()
            try:
                standing = member_allocation(draw, member, at=now)
            except DomainError as error:  # an unreadable rule: say so instead of failing
                standing = MemberDrawStanding(None, [error.message])
            if activation is None:
                refusal = services.activation_refusal(
                    draw=draw, member=member, channel=Channel.DESK, standing=standing, now=now
                )
    open_window = draw.open_window(now)
    context = {
        "draw": draw,
        "windows": draw.windows.all(),
        "open_window": open_window,
        "time_left": open_window.time_left(now) if open_window else None,
        "window_refusal": _desk_refusal(draw, now),
        "form": form,
        "member": member,
        "standing": standing,
        "activation": activation,
        "refusal": refusal.message if refusal else None,
    }
    return render(request, "draws/activate.html", context)


@permission_required("draws.view_activation", raise_exception=True)
def receipt(request, activation_id: int):
    activation = get_object_or_404(Activation.objects.select_related(*receipts.RECEIPT_RELATED), pk=activation_id)
    return render(request, "draws/receipt.html", receipts.receipt_context(activation))


@permission_required("draws.view_activation", raise_exception=True)
def receipt_pdf(request, activation_id: int):
    activation = get_object_or_404(Activation.objects.select_related(*receipts.RECEIPT_RELATED), pk=activation_id)
    response = HttpResponse(receipts.receipt_pdf(activation), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="receipt-{activation.receipt_number}.pdf"'
    return response


# --- Reads for the draw page ---------------------------------------------------------------


def _entries(draw: Draw) -> dict:
    if draw.entries_frozen_at:
        return {"count": draw.entries_count, "tickets": draw.tickets_total}
    totals = draw.activations.aggregate(count=Count("id"), tickets=Sum("tickets"))
    return {"count": totals["count"], "tickets": totals["tickets"] or 0}
