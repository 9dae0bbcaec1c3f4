"""The progressives (issue 14, item 5): each jackpot's value and every change, with the draw that
caused it, who and when (managers and auditors). Changes are made on stage and by the services
only; a manager's two forms: a Golden Horse vault draw's jackpots (GH r9, A4) and a jackpot put
back to its base with a reason."""

import datetime as dt

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.db import transaction
from django.db.models import Count, OuterRef, Subquery
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone

from core.audit import Actor
from core.formats import rand_cents
from core.forms import submit
from core.paging import page_of
from draws.models import Draw
from members.staff import staff_act_refusal
from prizes.boards import board_for
from prizes.forms import ProgressiveResetForm, VaultPrizesForm
from prizes.models import Progressive, ProgressiveEntry
from prizes.progressives import progressive_reset as progressive_reset_service
from prizes.progressives import progressive_value
from prizes.vault_jackpots import WHITE, vault_missing, vault_prizes_set, vault_progressive_draws, vault_tiers

NEXT_DAYS = dt.timedelta(days=7)  # a reset names a draw held so far, or one of the coming week


@permission_required("prizes.view_progressive", raise_exception=True)
def progressive_list(request):
    last = ProgressiveEntry.objects.filter(progressive=OuterRef("pk")).order_by("-pk").values("balance_cents")[:1]
    progressives = (
        Progressive.objects.select_related("promotion", "series")
        .annotate(last_balance=Subquery(last), changes=Count("entries"))
        .order_by("promotion__name", "name")
    )
    paging = page_of(request, progressives)
    return render(request, "prizes/progressives.html", {"page": paging.page, "query": paging.query})


@permission_required("prizes.view_progressive", raise_exception=True)
def progressive_detail(request, progressive_id: int):
    progressive = get_object_or_404(Progressive.objects.select_related("promotion", "series"), pk=progressive_id)
    entries = progressive.entries.select_related("draw", "pick").order_by("-pk")
    paging = page_of(request, entries)
    last = entries.values_list("balance_cents", flat=True).first()
    context = {
        "progressive": progressive,
        "value": progressive.base_cents if last is None else last,
        "page": paging.page,
        "query": paging.query,
        "vault_draws": vault_progressive_draws(progressive),
        "may_reset": not progressive.entries.filter(kind="share_out").exists(),
    }
    return render(request, "prizes/progressive.html", context)


@permission_required("prizes.change_progressive", raise_exception=True)
def progressive_reset(request, progressive_id: int):
    """A manager puts a jackpot back to its base, naming the draw and the reason."""
    progressive = get_object_or_404(Progressive.objects.select_related("promotion", "series"), pk=progressive_id)
    draws = Draw.objects.filter(series_id=progressive.series_id, scheduled_at__lte=timezone.now() + NEXT_DAYS)
    form = ProgressiveResetForm(request.POST or None, draws=draws.order_by("-scheduled_at"))
    done = submit(
        request,
        form,
        lambda: [  # a list, so that "already at its base" (None) is still a success
            progressive_reset_service(
                actor=Actor.from_request(request),
                progressive_id=progressive.pk,
                draw_id=form.cleaned_data["draw"].pk,
                reason=form.cleaned_data["reason"],
            )
        ],
    )
    if done is not None:
        words = "is back to its base" if done[0] else "was already at its base: nothing changed"
        messages.success(request, f"{progressive.name} {words} ({rand_cents(progressive.base_cents)}).")
        return redirect("prizes:progressive", progressive_id=progressive.pk)
    context = {"progressive": progressive, "value": progressive_value(progressive), "form": form}
    return render(request, "prizes/progressive_reset.html", context)


@permission_required("prizes.change_progressive", raise_exception=True)
def vault_prizes(request, draw_id: int):
    """GH r9, A4: a manager sets the vault's jackpot and consolation of each tier for one draw."""
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    tiers = vault_tiers(draw)
    if not tiers:
        raise Http404("This draw has no vault.")
    rows = [(tier, progressive, *_current(draw, tier, progressive)) for tier, progressive in tiers]
    form = VaultPrizesForm(request.POST or None, rows=rows)
    actor = Actor.from_request(request)

    def set_all():
        for tier, jackpot, consolation in form.amounts():
            vault_prizes_set(
                actor=actor, draw_id=draw.pk, tier_id=tier.pk, jackpot_cents=jackpot, consolation_cents=consolation
            )
        return True

    with transaction.atomic():  # every tier or none
        done = submit(request, form, set_all)
        if request.method == "POST" and not done:
            transaction.set_rollback(True)
    if done:
        messages.success(request, f"Vault prizes of {draw.name} set.")
        return redirect("draws:detail", draw_id=draw.pk)
    refusal = staff_act_refusal(request.user, draw.property, what="jackpots", done="set")
    if not refusal and not draw.state().before_start:
        refusal = f"{draw.name} has started: its vault prizes are set before the draw."
    context = {"draw": draw, "form": form, "refusal": refusal, "missing": vault_missing(draw)}
    return render(request, "prizes/vault_prizes.html", context)


def _current(draw: Draw, tier, progressive: Progressive) -> tuple[int | None, int | None]:
    """The amounts already set for this draw (to change them), else empty."""
    board = board_for(draw, tier)
    slots = {slot.group: slot.amount_cents for slot in board.slots.all()} if board else {}
    last = progressive.entries.order_by("-pk").first()
    jackpot = last.balance_cents if last and last.kind == "set" and last.draw_id == draw.pk else None
    return jackpot, slots.get(WHITE)
