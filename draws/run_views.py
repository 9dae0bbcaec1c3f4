"""A draw's run on its page: Start, the outcome of each pick, keyed serials, ending short.
Each view is one POST that calls one service of draws.engine and goes back to the draw."""

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from draws import engine
from draws.models import Draw, DrawPick, DrawStatus
from draws.run_forms import EndShortForm, OutcomeForm, SerialForm, StartForm, WitnessForm
from promotions.models import DrawMethod

REFUSED_KEYS_SHOWN = 5


def run_context(draw: Draw, user) -> dict:
    """What the draw page shows of the run, and which of its actions the server would accept now."""
    picks = list(draw.picks.select_related("member")) if draw.status in (DrawStatus.RUNNING, DrawStatus.DRAWN) else []
    awaiting = next((p for p in picks if p.awaits_outcome()), None)
    running = draw.status == DrawStatus.RUNNING
    may_run = user.has_perm("draws.add_drawpick")
    winners = [p for p in picks if p.is_winner()]
    context = {
        "picks": picks,
        "winners": winners,
        "awaiting": awaiting,
        "may_run": may_run,
        "start_refusal": engine.draw_start_refusal(draw, timezone.now()),
        "start_form": StartForm(),
        "outcome_choices": OutcomeForm.base_fields["outcome"].choices,
        "keying": may_run and running and draw.method == DrawMethod.MANUAL and awaiting is None,
        "serial_form": SerialForm(),
        "witness_form": WitnessForm() if running and not draw.witness_name else None,
        "can_end_short": running and awaiting is None,
        "end_short_form": EndShortForm(),
        "stalled": running and awaiting is None and draw.method != DrawMethod.MANUAL,
    }
    if running and draw.method == DrawMethod.MANUAL:
        context["refused_keys"] = AuditEvent.objects.filter(
            action="draw.serial_refused", object_type="draws.draw", object_id=str(draw.pk)
        ).order_by("-created_at")[:REFUSED_KEYS_SHOWN]
    return context


def _back(draw_id: int):
    return redirect(reverse("draws:detail", args=[draw_id]) + "#run")


def _refused(request, form) -> None:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)


def _call(request, action) -> bool:
    try:
        action()
    except DomainError as error:
        messages.error(request, error.message)
        return False
    return True


@require_POST
@permission_required("draws.add_drawpick", raise_exception=True)
def start(request, draw_id: int):
    draw = get_object_or_404(Draw, pk=draw_id)
    form = StartForm(request.POST)
    if not form.is_valid():
        _refused(request, form)
        return _back(draw.pk)
    actor = Actor.from_request(request)
    started = []
    if _call(
        request,
        lambda: started.append(
            engine.draw_start(actor=actor, draw_id=draw.pk, witness_name=form.cleaned_data["witness_name"])
        ),
    ):
        if started[0]:
            messages.success(request, f"{draw.name} has started.")
        else:
            draw.refresh_from_db()
            messages.info(request, engine.draw_start_refusal(draw, timezone.now()))
    return _back(draw.pk)


@require_POST
@permission_required("draws.add_drawpick", raise_exception=True)
def witness(request, draw_id: int):
    draw = get_object_or_404(Draw, pk=draw_id)
    form = WitnessForm(request.POST)
    if form.is_valid():
        actor = Actor.from_request(request)
        name = form.cleaned_data["witness_name"]
        if _call(request, lambda: engine.draw_witness_record(actor=actor, draw_id=draw.pk, witness_name=name)):
            messages.success(request, f"Witness recorded: {name}.")
    else:
        _refused(request, form)
    return _back(draw.pk)


@require_POST
@permission_required("draws.add_drawpick", raise_exception=True)
def outcome(request, draw_id: int):
    draw = get_object_or_404(Draw, pk=draw_id)
    form = OutcomeForm(request.POST)
    if not form.is_valid():
        _refused(request, form)
        return _back(draw.pk)
    actor = Actor.from_request(request)
    data = form.cleaned_data
    if _call(
        request,
        lambda: engine.pick_outcome_record(
            actor=actor, draw_id=draw.pk, pick_id=data["pick"], outcome=data["outcome"], reason=data["reason"]
        ),
    ):
        pick = DrawPick.objects.get(pk=data["pick"])
        messages.success(request, f"Pick {pick.k} recorded — {pick.get_outcome_display()}.")
    return _back(draw.pk)


@require_POST
@permission_required("draws.add_drawpick", raise_exception=True)
def key_serial(request, draw_id: int):
    draw = get_object_or_404(Draw, pk=draw_id)
    form = SerialForm(request.POST)
    if not form.is_valid():
        _refused(request, form)
        return _back(draw.pk)
    actor = Actor.from_request(request)
    picked = []
    if _call(
        request,
        lambda: picked.append(engine.draw_key_serial(actor=actor, draw_id=draw.pk, serial=form.cleaned_data["serial"])),
    ):
        pick = picked[0]
        messages.success(request, f"Serial {pick.serial}: card {pick.card_number}, pick {pick.k}.")
    return _back(draw.pk)


@require_POST
@permission_required("draws.add_drawpick", raise_exception=True)
def end_short(request, draw_id: int):
    draw = get_object_or_404(Draw, pk=draw_id)
    form = EndShortForm(request.POST)
    if form.is_valid():
        actor = Actor.from_request(request)
        reason = form.cleaned_data["reason"]
        if _call(request, lambda: engine.draw_end_short(actor=actor, draw_id=draw.pk, reason=reason)):
            messages.success(request, f"{draw.name} has ended.")
    else:
        _refused(request, form)
    return _back(draw.pk)


@require_POST
@permission_required("draws.add_drawpick", raise_exception=True)
def resume(request, draw_id: int):
    """Make the next pick of a running electronic or RAPS draw that stopped between picks."""
    draw = get_object_or_404(Draw, pk=draw_id)
    actor = Actor.from_request(request)
    if (
        _call(request, lambda: engine.draw_advance(actor=actor, draw_id=draw.pk))
        and not Draw.objects.filter(pk=draw.pk, picks__outcome="").exists()
    ):
        messages.info(request, "No pick was made: no entrant left can win. End the draw with the reason.")
    return _back(draw.pk)
