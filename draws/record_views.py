"""The draw record (DRAWS.md §6) for managers and auditors: the page, the two downloads, the
verification report, the certificate PDF and the winners list of a promotion."""

import csv

from django.contrib.auth.decorators import permission_required
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from core.formats import spreadsheet_safe
from core.paging import page_of
from draws import certificate
from draws.commitments import draw_verify, raps_uploads
from draws.models import Draw
from draws.record import (
    REGISTERS_SPEC_PATH,
    SPEC_PATH,
    entries_chunks,
    entries_summary,
    record_file_names,
    winners_wanted,
)
from draws.record import record_json as record_json_bytes
from draws.record_selectors import draw_for_record, draw_picks, promotion_winning_picks
from draws.verify_cache import cached_verify
from promotions.models import DrawMethod, Promotion

READ_RECORD = "draws.view_drawpick"
WINNERS_PER_PAGE = 100


def _draw(draw_id: int) -> Draw:
    try:
        return draw_for_record(draw_id=draw_id)
    except Draw.DoesNotExist:
        raise Http404("No such draw.") from None


@permission_required(READ_RECORD, raise_exception=True)
def record(request, draw_id: int):
    draw = _draw(draw_id)
    picks = list(draw_picks(draw=draw))
    context = {
        "draw": draw,
        "raps": draw.method == DrawMethod.RAPS,
        "raps_uploads": raps_uploads(draw) if draw.method == DrawMethod.RAPS else 0,
        "entries": entries_summary(draw),
        "seed": draw.revealed_seed(),
        "winners_wanted": winners_wanted(draw),
        "win_once": certificate.win_once_label(draw),
        "picks": picks,
        "winners_count": sum(pick.is_winner() for pick in picks),
        "spec_path": SPEC_PATH,
        "registers_spec_path": REGISTERS_SPEC_PATH,
    }
    return render(request, "draws/record.html", context)


def _download(data: bytes, name: str, content_type: str) -> HttpResponse:
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@permission_required(READ_RECORD, raise_exception=True)
def record_json(request, draw_id: int):
    draw = _draw(draw_id)
    return _download(record_json_bytes(draw), record_file_names(draw).json_name, "application/json; charset=utf-8")


@permission_required(READ_RECORD, raise_exception=True)
def record_entries(request, draw_id: int):
    """The entry list streamed in chunks: a draw of a million activations is never one bytes object."""
    draw = _draw(draw_id)
    response = StreamingHttpResponse(entries_chunks(draw), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{record_file_names(draw).entries_name}"'
    return response


@permission_required(READ_RECORD, raise_exception=True)
def record_verify(request, draw_id: int):
    """The check `manage.py verify_draw` makes, on exactly the bytes of the two downloads, and
    against the commitments the database and the audit log kept (draws.commitments). A read:
    GET (or the button's POST) changes nothing."""
    draw = _draw(draw_id)
    # A complete draw's record no longer changes: its report is computed once (draws.verify_cache).
    report = cached_verify(draw, lambda: draw_verify(draw))
    return render(request, "draws/record_verify.html", {"draw": draw, "report": report})


@permission_required(READ_RECORD, raise_exception=True)
def record_certificate(request, draw_id: int):
    draw = _draw(draw_id)
    response = HttpResponse(certificate.certificate_pdf(draw), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="draw-{draw.pk}-certificate.pdf"'
    return response


@permission_required(READ_RECORD, raise_exception=True)
def promotion_winners(request, promotion_id: int):
    promotion = get_object_or_404(Promotion, pk=promotion_id)
    page, query = page_of(request, promotion_winning_picks(promotion_id=promotion.pk), WINNERS_PER_PAGE)
    context = {"promotion": promotion, "page": page, "query": query}
    return render(request, "draws/record_promotion_winners.html", context)


@permission_required(READ_RECORD, raise_exception=True)
def promotion_winners_csv(request, promotion_id: int):
    promotion = get_object_or_404(Promotion, pk=promotion_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="winners-{promotion.code}.csv"'
    writer = csv.writer(response)
    writer.writerow(["draw_id", "draw", "scheduled_at", "property", "card_number", "name", "k", "outcome"])
    for pick in promotion_winning_picks(promotion_id=promotion.pk).iterator(chunk_size=2000):
        writer.writerow(
            map(
                spreadsheet_safe,
                [
                    pick.draw_id,
                    pick.draw.name,
                    timezone.localtime(pick.draw.scheduled_at).strftime("%Y-%m-%d %H:%M"),
                    pick.draw.property.code,
                    pick.card_number,
                    pick.member.full_name,
                    pick.k,
                    pick.get_outcome_display(),
                ],
            )
        )
    return response
