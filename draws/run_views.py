"""A draw's run on its page: Start, the outcome of each pick, keyed serials, ending short.
Each view is one POST that calls one service of draws.engine and goes back to the draw."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.forms import Form
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from draws import engine
from draws.models import Draw, DrawStatus
from draws.run_forms import EndShortForm, OutcomeForm, SerialForm, StartForm, WitnessForm
from members.staff import staff_act_refusal
from promotions.models import DrawMethod

REFUSED_KEYS_SHOWN = 5


def run_context(draw: Draw, user) -> dict:
    """What the draw page shows of the run, and which of its actions the server would accept now."""
    started = draw.status in (DrawStatus.RUNNING, DrawStatus.DRAWN)
    picks = list(draw.picks.select_related("member")) if started else []
    awaiting = next((p for p in picks if p.awaits_outcome()), None)
    running = draw.status == DrawStatus.RUNNING
    # Only the draw's own team runs it (the services refuse anyone else: members.staff).
    may_run = user.has_perm("draws.add_drawpick") and staff_act_refusal(user, draw.property) is None
    winners = [p for p in picks if p.is_winner()]
    context = {
        # Who was drawn, with names and cards, is for the team running it and the auditors.
        "picks": picks if user.has_perm("draws.view_drawpick") else [],
        "winners": winners,
        "awaiting": awaiting,
        # The full card number is for the team running the draw; anyone else reading the page
        # (the desk on draw night) sees its last four digits, enough to match the winner's card.
        "awaiting_card": (awaiting.card_number if may_run else f"…{awaiting.card_number[-4:]}") if awaiting else "",
        "may_run": may_run,
        "start_refusal": engine.draw_start_refusal(draw, timezone.now()),
        "start_form": StartForm(),
        "early_start": engine.early_start_warning(draw, timezone.now()),
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


def _run_action(request, draw_id: int, form_class, action) -> HttpResponse:
    """The shape of every run action: a valid form calls `action(actor, draw, data)`, which
    returns the notice to show (or None); a refusal or a form error is shown instead, and the
    manager is back on the draw's run either way."""
    draw = get_object_or_404(Draw, pk=draw_id)
    form = form_class(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return _back(draw.pk)
    try:
        notice = action(Actor.from_request(request), draw, form.cleaned_data)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        if notice:
            messages.success(request, notice)
    return _back(draw.pk)


def run_action(form_class):
    """A POST-only run action for managers (draws.add_drawpick) around `_run_action`."""

    def decorate(action):
        @require_POST
        @permission_required("draws.add_drawpick", raise_exception=True)
        @wraps(action)
        def view(request, draw_id: int):
            return _run_action(request, draw_id, form_class, action)

        return view

    return decorate


@run_action(StartForm)
def start(actor, draw, data):
    if engine.draw_start(actor=actor, draw_id=draw.pk, witness_name=data["witness_name"]):
        return f"{draw.name} has started."
    draw.refresh_from_db()
    raise DomainError(engine.draw_start_refusal(draw, timezone.now()) or "This draw has already started.")


@run_action(WitnessForm)
def witness(actor, draw, data):
    engine.draw_witness_record(actor=actor, draw_id=draw.pk, witness_name=data["witness_name"])
    return f"Witness recorded: {data['witness_name']}."


@run_action(OutcomeForm)
def outcome(actor, draw, data):
    pick = engine.pick_outcome_record(
        actor=actor, draw_id=draw.pk, pick_id=data["pick"], outcome=data["outcome"], reason=data["reason"]
    )
    return f"Pick {pick.k} recorded — {pick.get_outcome_display()}."


@run_action(SerialForm)
def key_serial(actor, draw, data):
    pick = engine.draw_key_serial(actor=actor, draw_id=draw.pk, serial=data["serial"])
    return f"Serial {pick.serial}: card {pick.card_number}, pick {pick.k}."


@run_action(EndShortForm)
def end_short(actor, draw, data):
    engine.draw_end_short(actor=actor, draw_id=draw.pk, reason=data["reason"])
    return f"{draw.name} has ended."


@run_action(Form)
def resume(actor, draw, data):
    """Make the next pick of a running electronic or RAPS draw that stopped between picks."""
    before = draw.picks.count()
    if engine.draw_advance(actor=actor, draw_id=draw.pk) is not None:
        return None
    made = draw.picks.count() - before
    if made:
        return f"{made} automatic redraws made; press again to go on."
    raise DomainError("No pick was made: no entrant left can win. End the draw with the reason.")
