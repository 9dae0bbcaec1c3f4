"""A draw's run on its page: Start, the outcome of each pick, keyed serials, ending short.
Each view is one POST that calls one service of draws.engine and goes back to the draw."""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.forms import Form
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from draws import engine, registers
from draws.models import Draw, DrawPick, PickOutcome
from draws.run_forms import EndShortForm, OutcomeForm, SerialForm, StartForm, WitnessForm
from members.identity import IdType
from members.staff import staff_act_refusal

REFUSED_KEYS_SHOWN = 5
# The stage's buttons: the outcome, its words, its key (shown on the button) and its style.
STAGE_BUTTONS = (
    (PickOutcome.PRESENT, "Present", "P", "btn-success", "present"),
    (PickOutcome.PROXY_PRESENT, "Proxy present", "X", "btn-success", "proxy-present"),
    (PickOutcome.DECLINED, "Declined: a winner, to contact", "D", "btn-primary", "declined"),
    (PickOutcome.NO_SHOW, "No-show: redraw", "N", "btn-outline-secondary", "no-show"),
    (PickOutcome.DISQUALIFIED, "Disqualified: redraw", "Q", "btn-outline-danger", "disqualified"),
)


def run_version(draw: Draw, picks: list[DrawPick]) -> str:
    """What the polled run changes with: the status, the number of picks, the last outcome."""
    last = picks[-1] if picks else None
    return f"{draw.status}:{len(picks)}:{last.outcome if last else ''}:{draw.witness_name != ''}"


def stage_buttons(draw: Draw, pick: DrawPick, now) -> list[dict]:
    """The outcome buttons for the awaiting pick, each with why the service would refuse it now
    (None: offered). No-show refused only for its window is shown, disabled, with the time;
    an outcome the registers rule out is not shown at all."""
    buttons = []
    for outcome, words, key, style, dom_id in STAGE_BUTTONS:
        refusal = engine.outcome_refusal(draw, pick, outcome, now)
        waiting = outcome == PickOutcome.NO_SHOW and refusal and now < pick.window_ends_at()
        if refusal and not waiting:
            continue
        if waiting and registers.live_decline(draw, pick.member):
            continue
        buttons.append(
            {"value": outcome, "words": words, "key": key, "style": style, "dom_id": dom_id, "refusal": refusal}
        )
    return buttons


def run_context(draw: Draw, user) -> dict:
    """What the draw page shows of the run, and which of its actions the server would accept now."""
    now = timezone.now()
    state = draw.state(now)
    picks = list(draw.picks.select_related("member")) if state.has_started else []
    awaiting = next((p for p in picks if p.awaits_outcome()), None)
    # Only the draw's own team runs it (the services refuse anyone else: members.staff).
    may_run = user.has_perm("draws.add_drawpick") and staff_act_refusal(user, draw.property) is None
    winners = [p for p in picks if p.is_winner()]
    stage = {}
    if awaiting is not None:
        awaiting.draw = draw
        nomination = registers.live_nomination(draw, awaiting.member) if draw.series.proxies_allowed else None
        stage = {
            "awaiting_nomination": nomination,
            "awaiting_declined": registers.live_decline(draw, awaiting.member),
            "awaiting_seconds_left": awaiting.seconds_left(now),
            "awaiting_window_ends": awaiting.window_ends_at(),
            "stage_buttons": stage_buttons(draw, awaiting, now) if may_run else [],
            "id_types": IdType.choices,
            "stand_in_allowed": not draw.series.proxies_allowed,
        }
    context = stage | {
        "run_version": run_version(draw, picks),
        # Who was drawn, with names and cards, is for the team running it and the auditors.
        "picks": picks if user.has_perm("draws.view_drawpick") else [],
        "winners": winners,
        "awaiting": awaiting,
        # The full card number is for the team running the draw; anyone else reading the page
        # (the desk on draw night) sees its last four digits, enough to match the winner's card.
        "awaiting_card": (awaiting.card_number if may_run else f"…{awaiting.card_number[-4:]}") if awaiting else "",
        "may_run": may_run,
        "state": state,
        "start_refusal": state.start_refusal,
        "start_form": StartForm(),
        "early_start": engine.early_start_warning(draw, now),
        "starts_early": state.starts_early,
        "outcome_choices": OutcomeForm.base_fields["outcome"].choices,
        "keying": may_run and state.key_serial_refusal is None and awaiting is None,
        "serial_form": SerialForm(),
        "witness_form": WitnessForm() if state.witness_refusal is None else None,
        "can_end_short": state.end_short_refusal is None and awaiting is None,
        "end_short_form": EndShortForm(),
        "stalled": state.may_pick and awaiting is None,
    }
    if state.key_serial_refusal is None:
        context["refused_keys"] = AuditEvent.objects.filter(
            action="draw.serial_refused", object_type="draws.draw", object_id=str(draw.pk)
        ).order_by("-created_at")[:REFUSED_KEYS_SHOWN]
    return context


@never_cache
@require_GET
@permission_required("draws.view_draw", raise_exception=True)
def run_partial(request, draw_id: int):
    """The draw's run alone (section#run), which the draw page polls every 1.5 s and swaps in
    when its version changes: the tick starting the draw, a pick, another manager's outcome."""
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    context = {"draw": draw, "elsewhere": staff_act_refusal(request.user, draw.property)}
    return render(request, "draws/_run.html", context | run_context(draw, request.user))


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
    if engine.draw_start(
        actor=actor,
        draw_id=draw.pk,
        witness_name=data["witness_name"],
        early_start_reason=data["early_start_reason"],
    ):
        return f"{draw.name} has started."
    draw.refresh_from_db()
    raise DomainError(
        engine.draw_start_refusal(draw, timezone.now()) or "This draw has already started.", code="cannot_start"
    )


@run_action(WitnessForm)
def witness(actor, draw, data):
    engine.draw_witness_record(actor=actor, draw_id=draw.pk, witness_name=data["witness_name"])
    return f"Witness recorded: {data['witness_name']}."


@run_action(OutcomeForm)
def outcome(actor, draw, data):
    pick = engine.pick_outcome_record(
        actor=actor,
        draw_id=draw.pk,
        pick_id=data["pick"],
        outcome=data["outcome"],
        reason=data["reason"],
        id_type_seen=data["id_type_seen"],
        receipt_seen=data["receipt_seen"],
        stand_in_name=data["stand_in_name"],
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
    raise DomainError(
        "No pick was made: no entrant left can win. End the draw with the reason.", code="no_entrant_left"
    )
