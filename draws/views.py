from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.db.models import Count, Sum
from django.http import HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from core.formats import local_datetime
from core.forms import submit
from core.paging import page_of, query_without
from core.swipe import looks_like_swipe
from draws import listing, receipts, scheduling, services
from draws.allocation import MemberDrawStanding, earning_period, member_allocation
from draws.forms import CardForm, DrawCancelForm, DrawListFilter, DrawMoveForm, ScheduleDrawsForm
from draws.models import Activation, Channel, Draw
from draws.rule_words import rule_in_words
from draws.run_views import run_context
from draws.selectors import draw_standing_overview
from members.models import Member
from members.staff import staff_act_refusal
from promotions.models import DrawMethod, DrawSeries

LATEST_ACTIVATIONS = 50


@permission_required("draws.view_draw", raise_exception=True)
def draw_list(request):
    now = timezone.now()
    form = listing.draw_list_filter(request.GET, request.user)
    page, query = page_of(request, listing.draws_filtered(form, request.user, now))
    desk = request.user.has_perm("draws.add_activation")
    # Each row offers "Activate tickets" only when the desk could (the same check as the service).
    rows = [
        listing.draw_row(
            draw,
            activate_refusal=_desk_refusal(draw, now) if desk else None,
            elsewhere=staff_act_refusal(request.user, draw.property),
        )
        for draw in page
    ]
    context = {
        "form": form,
        "page": page,
        "query": query,
        "rows": rows,
        "desk": desk,
        "when": form.preset() if form.is_valid() else "",
        "presets": DrawListFilter.WHEN,
        "presets_query": query_without(request, "when", "page"),
        "can_cancel": request.user.has_perm("draws.change_draw"),
        "list_query": query_without(request),
    }
    return render(request, "draws/list.html", context)


@permission_required("draws.view_draw", raise_exception=True)
def draw_detail(request, draw_id: int):
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    eligible_tiers = list(draw.series.eligible_tiers.all())
    raps = draw.method == DrawMethod.RAPS  # winners come from an active-player list: no tickets
    now = timezone.now()
    allocation, standing = (None, None) if raps else draw_standing_overview(draw)
    # The buttons of the draw's own team: another property's staff read the page only.
    elsewhere = staff_act_refusal(request.user, draw.property)
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
        "move_refusal": elsewhere or draw.move_refusal(),
        "cancel_refusal": elsewhere or draw.cancel_refusal(),
        "desk_refusal": staff_act_refusal(request.user, draw.property, what="tickets", done="activated")
        or _desk_refusal(draw, now),
        "elsewhere": elsewhere,
        "activations": draw.activations.select_related("member").order_by("-first_serial")[:LATEST_ACTIVATIONS],
        "seed_revealed": draw.state(now).seed_revealed,
    } | run_context(draw, request.user)
    return render(request, "draws/detail.html", context)


@permission_required("draws.add_draw", raise_exception=True)
def series_schedule(request, series_id: int):
    """Schedule draws in two steps: the preview (what will be created, what is refused and why,
    nothing written), then the confirm of exactly that preview."""
    series = get_object_or_404(DrawSeries.objects.select_related("promotion", "property"), pk=series_id)
    form = ScheduleDrawsForm(request.POST or None)
    preview = changed = None
    if request.method == "POST" and form.is_valid():
        preview = scheduling.preview_of(
            services.series_schedule_plan(series=series, moments=form.cleaned_data["moments"])
        )
        confirmed = request.POST.get("confirm")
        changed = bool(confirmed) and confirmed != preview.digest
        if confirmed and not changed and preview.new:
            try:
                draws = services.series_schedule_draws(
                    actor=Actor.from_request(request), series=series, moments=preview.moments
                )
            except DomainError as error:  # something changed between this preview and the lock
                form.add_error(None, error.message)
            else:
                messages.success(request, _scheduled_message(series, draws))
                return redirect("promotions:detail", promotion_id=series.promotion_id)
    try:
        windows_text = "; ".join(str(window) for window in series.window_specs())
    except DomainError as error:  # unreadable stored windows: say so, the page still opens
        windows_text = error.message
    context = {
        "form": form,
        "series": series,
        "windows_text": windows_text,
        "preview": preview,
        "new_rows": [(p, scheduling.windows_words(p)) for p in preview.new] if preview else [],
        "changed": changed,
    }
    return render(request, "draws/schedule.html", context)


def _scheduled_message(series: DrawSeries, draws: list[Draw]) -> str:
    if len(draws) == 1:
        return f"1 draw scheduled for {series.name}: {local_datetime(draws[0].scheduled_at)}."
    first, last = local_datetime(draws[0].scheduled_at), local_datetime(draws[-1].scheduled_at)
    return f"{len(draws)} draws scheduled for {series.name}, from {first} to {last}."


@permission_required("draws.change_draw", raise_exception=True)
def draw_move(request, draw_id: int):
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    form = DrawMoveForm(request.POST or None, initial={"scheduled_at": draw.scheduled_at})
    before = draw.scheduled_at
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
        messages.success(request, move_message(moved, before))
        return redirect("draws:detail", draw_id=draw.pk)
    return render(request, "draws/move.html", {"draw": draw, "form": form})


def move_message(draw: Draw, before) -> str:
    """ "Moved from Thu 23 Oct 2025 20:00 to Sun 26 Oct 2025 13:00 because the stage is booked." """
    when = f"Moved from {local_datetime(before)} to {local_datetime(draw.scheduled_at)}"
    return f"{draw.series.name}: {when} because {draw.change_reason.rstrip('.')}."


@require_POST
@permission_required("draws.change_draw", raise_exception=True)
def standing_refresh(request, draw_id: int):
    """A manager asks for the allocation to be counted again now (after a rule fix, say)."""
    draw = get_object_or_404(Draw, pk=draw_id)
    try:
        queued = services.draw_standing_recount(actor=Actor.from_request(request), draw_id=draw.pk)
    except DomainError as error:  # another property's draw
        messages.error(request, error.message)
        return redirect("draws:detail", draw_id=draw.pk)
    if queued:
        messages.info(request, "The allocation is being counted again; this page shows it when it is ready.")
    else:
        messages.info(request, "A count is already on its way; this page shows it when it is ready.")
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
    return render(request, "draws/cancel.html", {"draw": draw, "form": form, "refusal": draw.cancel_refusal()})


@permission_required("draws.change_draw", raise_exception=True)
def draws_cancel_many(request):
    """Cancel the draws chosen on the draws list with one reason, all or none (draws_cancel)."""
    params = request.POST if request.method == "POST" else request.GET
    ids = _draw_ids(params.getlist("draw"))
    back = _list_url(params.get("back", ""))
    form = DrawCancelForm(request.POST or None)
    form.fields["reason"].widget.attrs["autofocus"] = True
    actor = Actor.from_request(request)
    cancelled = submit(
        request, form, lambda: services.draws_cancel(actor=actor, draw_ids=ids, reason=form.cleaned_data["reason"])
    )
    if cancelled:
        messages.success(request, f"{len(cancelled)} draw{'s' if len(cancelled) != 1 else ''} cancelled.")
        return redirect(back)
    draws = Draw.objects.with_related().filter(pk__in=ids).order_by("scheduled_at", "id")
    rows = [(draw, staff_act_refusal(request.user, draw.property) or draw.cancel_refusal()) for draw in draws]
    context = {
        "form": form,
        "chosen": [draw for draw, refusal in rows if not refusal],
        "refused": [(draw, refusal) for draw, refusal in rows if refusal],
        "back": back,
        "back_query": params.get("back", ""),
    }
    return render(request, "draws/cancel_many.html", context)


def _draw_ids(values: list[str]) -> list[int]:
    """The chosen draws' ids; anything that is not one is left out (the page lists what it got)."""
    return [
        int(value)
        for value in values[: services.DRAWS_CANCEL_MAX + 1]
        if value.isascii() and value.isdigit() and len(value) < 12
    ]


def _list_url(query: str) -> str:
    """The draws list with the filters the manager came from (only ever the list: never a redirect elsewhere)."""
    clean = QueryDict(query).copy()
    clean.pop("page", None)
    for key, values in list(clean.lists()):  # no card swipe in an address (core.swipe)
        if looks_like_swipe(key) or any(looks_like_swipe(value) for value in values):
            clean.pop(key)
    return reverse("draws:list") + (f"?{clean.urlencode()}" if clean else "")


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
    # A closed window names the series' draw open now (for this member, once swiped), with its button.
    window_refusal = services.draw_tickets_refusal(draw, now, point_to_open=True, member=member)
    context = {
        "draw": draw,
        "windows": draw.windows.all(),
        "open_window": open_window,
        "time_left": open_window.time_left(now) if open_window else None,
        "window_refusal": window_refusal.message if window_refusal else None,
        "open_instead": services.draw_open_instead(draw, now, member=member) if window_refusal else None,
        "form": form,
        "member": member,
        "standing": standing,
        "activation": activation,
        "refusal": refusal.message if refusal else None,
        # Enter activates: the button, not the card field, takes the focus once it is offered.
        "may_activate": member is not None and activation is None and refusal is None,
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
