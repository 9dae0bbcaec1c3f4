"""The conductor's buttons on the draw's run page (prizes/conduct.py does the work): each POST
records one thing that happened on stage, or finishes the game, then returns to the draw."""

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from draws.models import DrawPick
from prizes import conduct
from prizes.wild_card import wild_card_bin_record


def _pick_id(request, draw_id: int) -> int:
    """The winner's pick the buttons posted; a DomainError (said on the draw page) when it is
    missing or not of this draw."""
    posted = request.POST.get("pick", "")
    pick = DrawPick.objects.filter(draw_id=draw_id, pk=int(posted) if posted.isdigit() else 0)
    if not pick.exists():
        raise DomainError("Choose the winner whose game this is.", code="no_pick")
    return pick.values_list("pk", flat=True)[0]


def _back(draw_id: int):
    # No "#game" fragment: Chrome clears the focus when a fragment's target is not focusable, and
    # the page puts the focus (and so the scroll) on the next turn's control (run_follow.js).
    return redirect("draws:detail", draw_id=draw_id)


@require_POST
@permission_required(conduct.RUN_PERMISSION, raise_exception=True)
def game_event(request, draw_id: int):
    # The game's own fields (prizes/conducting): its event_clean keeps only those it knows.
    event = {key: value for key, value in request.POST.items() if key not in ("csrfmiddlewaretoken", "pick")}
    try:
        pick_id = _pick_id(request, draw_id)
        conduct.game_event_record(actor=Actor.from_request(request), pick_id=pick_id, event=event)
    except DomainError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, "Recorded.")
    return _back(draw_id)


@require_POST
@permission_required(conduct.RUN_PERMISSION, raise_exception=True)
def game_finish(request, draw_id: int):
    try:
        pick_id = _pick_id(request, draw_id)
        lines = conduct.game_finish(actor=Actor.from_request(request), pick_id=pick_id)
    except DomainError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request, f"The game is finished: {len(lines)} prize line{'s' if len(lines) != 1 else ''} recorded."
        )
    return _back(draw_id)


@require_POST
@permission_required(conduct.RUN_PERMISSION, raise_exception=True)
def wild_card_bin(request, draw_id: int):
    """RF r68, A14: the bin number drawn by hand on stage, recorded before the wild card draw starts."""
    posted = request.POST.get("bin_number", "").strip()
    try:
        if not posted.isdigit():
            raise DomainError("Type the number of the bin drawn by hand: 1 to 5.", code="wild_card_bin_number")
        row = wild_card_bin_record(actor=Actor.from_request(request), draw_id=draw_id, number=int(posted))
    except DomainError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Bin {row.number} recorded: the entrants are that bin's.")
    return _back(draw_id)
