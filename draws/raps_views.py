"""RAPS sessions: the manager uploads the active-player list and sees what will be drawn from."""

from django.contrib.auth.decorators import permission_required
from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from core.audit import Actor
from core.errors import DomainError
from draws.models import Draw, RapsList, RapsPool
from draws.raps import (
    HEADER,
    LEFT_OUT_REASONS,
    MAX_ROWS,
    RapsListRefused,
    default_quotas,
    rand,
    raps_list_upload,
    raps_upload_refusal,
)
from draws.raps_forms import RapsUploadForm
from members.staff import staff_act_refusal

SHOWN_ROWS = 1000  # bad or left-out rows listed on the page; the count says how many more

SAMPLE = (
    ",".join(HEADER) + "\n"
    "6000000001,slot,A17,1500.00\n"
    "6000000002,slot,A18,250.5\n"
    "6000000003,table,BJ3,4000\n"
    "6000000001,table,RO1,300.00\n"
)


@permission_required("draws.add_rapslist", raise_exception=True)
def raps_upload(request, draw_id: int):
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    current = RapsList.objects.filter(draw=draw).first()
    form = RapsUploadForm(
        request.POST or None, request.FILES or None, initial=_initial(draw, current), replacing=current is not None
    )
    line_errors, report = [], None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            current = raps_list_upload(
                actor=Actor.from_request(request),
                draw_id=draw.pk,
                file_name=data["file"].name,
                text=data["text"],
                min_spend_cents=data["min_spend"],
                excluded_devices=data["excluded"],
                slot_quota=data["slot_quota"],
                table_quota=data["table_quota"],
                reason=data.get("reason", ""),
            )
        except RapsListRefused as error:
            form.add_error(None, error.message)
            line_errors = error.line_errors
        except DomainError as error:
            on_reason = error.code == "raps_replace_reason" and "reason" in form.fields
            form.add_error("reason" if on_reason else None, error.message)
        else:
            report = current.report
            draw.refresh_from_db()
    context = {
        "draw": draw,
        "form": form,
        # Another property's list is read here, uploaded by its own team (members.staff).
        "refusal": staff_act_refusal(request.user, draw.property) or raps_upload_refusal(draw, now=timezone.now()),
        "current": _list_summary(current) if current else None,
        "report": report,
        "left_out_shown": report.left_out[:SHOWN_ROWS] if report else [],
        "line_errors": line_errors[:SHOWN_ROWS],
        "line_errors_more": max(0, len(line_errors) - SHOWN_ROWS),
        "header": ",".join(HEADER),
        "max_rows": MAX_ROWS,
        "shown_rows": SHOWN_ROWS,
    }
    return render(request, "draws/raps_upload.html", context)


@permission_required("draws.add_rapslist", raise_exception=True)
def raps_sample(request):
    response = HttpResponse(SAMPLE, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="raps-active-players-sample.csv"'
    return response


def _initial(draw: Draw, current: RapsList | None) -> dict:
    """The current list's settings, or the series' quotas and no minimum, for a first upload."""
    if current:
        return {
            "min_spend": f"{current.min_spend_cents // 100}.{current.min_spend_cents % 100:02d}",
            "excluded": ", ".join(current.excluded_devices),
            "slot_quota": current.slot_quota,
            "table_quota": current.table_quota,
        }
    slot, table = default_quotas(draw.series)
    return {"min_spend": "0.00", "slot_quota": slot, "table_quota": table}


def _list_summary(raps_list: RapsList) -> dict:
    sizes = dict(raps_list.entries.order_by().values("pool").annotate(n=Count("id")).values_list("pool", "n"))
    pools = [
        {"label": label, "players": sizes.get(pool, 0), "quota": raps_list.quota(pool)}
        for pool, label in RapsPool.choices
    ]
    return {
        "list": raps_list,
        "pools": pools,
        "left_out": [
            (LEFT_OUT_REASONS.get(reason, reason), count) for reason, count in raps_list.left_out.items() if count
        ],
        "min_spend": rand(raps_list.min_spend_cents),
        "qualifying": sum(pool["players"] for pool in pools),
    }
