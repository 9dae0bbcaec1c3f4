"""The stage screen and tonight's draws (issue 13, items 8 and 9): read-only pages. The stage
screen's script (static/js/stage.js) asks for the partial every second and redraws it when it
changed; the countdown runs in the browser from the pick's stored time, sent by the server."""

from django.contrib.auth.decorators import permission_required
from django.http import Http404
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache

from draws.models import Draw
from draws.stage import stage_draw, stage_state, tonight_rows
from members.staff import staff_properties


def _draw(draw_id: int) -> Draw:
    try:
        return stage_draw(draw_id)
    except Draw.DoesNotExist:
        raise Http404("No such draw.") from None


@permission_required("draws.view_stage", raise_exception=True)
def stage(request, draw_id: int):
    draw = _draw(draw_id)
    now = timezone.now()
    context = {"state": stage_state(draw), "now_ms": int(now.timestamp() * 1000)}
    return render(request, "draws/stage.html", context)


@never_cache
@permission_required("draws.view_stage", raise_exception=True)
def stage_state_partial(request, draw_id: int):
    draw = _draw(draw_id)
    state = stage_state(draw)
    response = render(request, "draws/_stage_state.html", {"state": state})
    response["X-Stage-Version"] = state.version
    # The server's clock, for the countdown: the pick's stored time is the authority.
    response["X-Stage-Now"] = str(int(timezone.now().timestamp() * 1000))
    return response


@permission_required("draws.view_stage", raise_exception=True)
def tonight(request):
    now = timezone.now()
    properties = staff_properties(request.user)
    (start, end), rows = tonight_rows([p.pk for p in properties] if properties else None, now)
    upcoming = next((row for row in rows if row.is_next), None)
    context = {
        "now": now,
        "evening_start": start,
        "evening_end": end,
        "rows": rows,
        "upcoming": upcoming,
        "may_run": request.user.has_perm("draws.add_drawpick"),
        "where": " or ".join(p.name for p in properties) if properties else "any property",
    }
    return render(request, "draws/tonight.html", context)
