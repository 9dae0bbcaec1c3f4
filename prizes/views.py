"""Prize boards (managers fill them in; auditors read) and the prize record (managers and
auditors), with corrections by reversing lines (managers). Thin: selectors read, services change."""

import csv
from decimal import Decimal

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from core.formats import local_datetime, spreadsheet_safe
from core.forms import submit
from core.paging import page_of
from draws.models import Draw
from members.models import Property
from members.staff import staff_act_refusal
from prizes import board_slots, letter_services, services
from prizes.boards import boards_for_draw, missing_settings_of
from prizes.forms import BoardForm, RecordFilterForm, ReverseForm, SlotAddForm
from prizes.letter_pdf import draw_render_progress
from prizes.letter_pdf_views import may_render
from prizes.letter_selectors import draw_letters
from prizes.letter_services import letter_issue_refusal
from prizes.models import KIND_LABELS, LIVE_STATUSES, SOURCE_LABELS, Payout, PrizeBoard, PrizeLine
from prizes.record import draw_prizes, draw_totals, outcome_words, record_lines, record_totals
from promotions.models import DrawSeries, Promotion


@permission_required("prizes.view_prizeboard", raise_exception=True)
def series_boards(request, series_id: int):
    series = get_object_or_404(DrawSeries.objects.select_related("promotion", "property"), pk=series_id)
    boards = list(
        series.prize_boards.select_related("tier")
        .prefetch_related("slots", "slots__target_series")
        .order_by("draw_date", "tier__rank", "id")
    )
    rows = [(board, missing_settings_of(board)) for board in boards]
    return render(request, "prizes/series_boards.html", {"series": series, "rows": rows})


@permission_required("prizes.view_prizeboard", raise_exception=True)
def board_detail(request, board_id: int):
    board = get_object_or_404(
        PrizeBoard.objects.select_related("series", "series__promotion", "series__property", "tier"), pk=board_id
    )
    may_change = request.user.has_perm("prizes.change_prizeboard")
    if request.method == "POST" and not may_change:
        raise PermissionDenied
    refusal = staff_act_refusal(request.user, board.series.property, what="prize boards", done="set up")
    refusal = refusal or services.board_edit_refusal(board)
    form = BoardForm(request.POST or None, board=board)
    saved = None
    if may_change and not refusal:
        saved = submit(
            request,
            form,
            lambda: services.board_save(
                actor=Actor.from_request(request),
                board_id=board.pk,
                slots=form.slot_changes(),
                settings=form.settings(),
                total_cents=form.cleaned_data.get("total"),
            ),
        )
    elif request.method == "POST":
        messages.error(request, refusal)
        return redirect("prizes:board", board_id=board.pk)
    if saved:
        messages.success(request, f"Prize board of {saved} saved.")
        return redirect("prizes:board", board_id=board.pk)
    context = {
        "board": board,
        "form": form,
        "may_change": may_change and not refusal,
        "refusal": refusal if may_change else None,
        "missing": missing_settings_of(board),
    }
    return render(request, "prizes/board.html", context)


def draw_record(request, draw_id: int):
    # Managers and auditors read the prize record; the desk and the cash desk see it for the
    # winners' letters (issue 15).
    if not (request.user.has_perm("prizes.view_prizeline") or request.user.has_perm("prizes.view_prizeletter")):
        raise PermissionDenied
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    actor = Actor.from_request(request)
    winners = draw_prizes(draw)
    now = timezone.now()
    letters = draw_letters(draw)
    may_issue = request.user.has_perm("prizes.add_prizeletter") and not staff_act_refusal(
        request.user, draw.property, what="prize letters", done="issued"
    )
    may_pay_device = draw.series.paid_at_device and request.user.has_perm("prizes.record_device_payout")
    payouts = {p.prize_line_id: p for p in Payout.objects.filter(prize_line__draw=draw)}
    corrected = {line.reverses_id for winner in winners for line in winner.lines if line.reverses_id}
    for winner in winners:
        winner.pick.draw = draw  # the refusal reads the draw: no query per winner
        winner.letter = letters.get(winner.pick.pk)
        winner.letter_state = winner.letter.state(now) if winner.letter else None
        live = winner.letter if winner.letter and winner.letter.status in LIVE_STATUSES else None
        winner.issue_refusal = letter_issue_refusal(winner.pick, now, live=live) if may_issue else None
        winner.may_issue = may_issue and winner.issue_refusal is None
        winner.issue_note = winner.issue_refusal if live is None else None  # a live letter speaks for itself
        for line in winner.lines:
            line.paid = payouts.get(line.pk)
            line.may_pay_device = may_pay_device and (
                letter_services.device_payout_refusal(
                    actor, line, series=draw.series, corrected=line.pk in corrected, payout=line.paid
                )
                is None
            )
            line.outcome_text = outcome_words(line.data) if line.source != "reversal" else ""
            line.kind_label = KIND_LABELS.get(line.kind, line.kind)
            line.source_label = SOURCE_LABELS.get(line.source, line.source)
            line.may_reverse = services.prize_line_reverse_refusal(actor, line) is None and not staff_act_refusal(
                request.user, draw.property, what="prizes of draws", done="recorded"
            )
    context = {
        "draw": draw,
        "winners": winners,
        "totals": draw_totals(draw),
        "boards": boards_for_draw(draw),
        "show_letters": draw.state().is_complete and not draw.series.paid_at_device,
        "letters_progress": draw_render_progress(draw.pk) if letters else None,
        "may_render_letters": may_render(request.user),
    }
    return render(request, "prizes/draw.html", context)


@permission_required("prizes.reverse_prizeline", raise_exception=True)
def line_reverse(request, line_id: int):
    line = get_object_or_404(PrizeLine.objects.with_related(), pk=line_id)
    form = ReverseForm(request.POST or None)
    done = submit(
        request,
        form,
        lambda: services.prize_line_reverse(
            actor=Actor.from_request(request), line_id=line.pk, reason=form.cleaned_data["reason"]
        ),
    )
    if done:
        messages.success(request, f"Corrected: {line.words}. The reason is kept on the prize record.")
        return redirect("prizes:draw", draw_id=line.draw_id)
    refusal = services.prize_line_reverse_refusal(Actor.from_request(request), line) or staff_act_refusal(
        request.user, line.draw.property, what="prizes of draws", done="recorded"
    )
    return render(request, "prizes/reverse.html", {"line": line, "form": form, "refusal": refusal})


def _filtered(request):
    form = RecordFilterForm(request.GET or None)
    values = form.cleaned_data if form.is_valid() else {}
    lines = record_lines(
        promotion_id=values.get("promotion"),
        property_code=values.get("property") or "",
        date_from=values.get("date_from"),
        date_to=values.get("date_to"),
    )
    return form, values, lines


@permission_required("prizes.view_prizeline", raise_exception=True)
def record(request):
    form, values, lines = _filtered(request)
    totals = record_totals(lines)
    context = {
        "form": form,
        "totals": totals,
        "draws": page_of(request, totals["draw"]),
        "promotion": Promotion.objects.filter(pk=values.get("promotion")).first() if values.get("promotion") else None,
        "properties": Property.objects.order_by("name"),
        "chosen_property": values.get("property") or "",
        "query": request.GET.urlencode(),
    }
    return render(request, "prizes/record.html", context)


CSV_HEADER = [
    "draw",
    "draw time",
    "night",
    "promotion",
    "property",
    "pick",
    "card number",
    "winner",
    "kind",
    "source",
    "amount (R) or count",
    "what was won",
    "game outcome",
    "corrects line",
    "reason",
    "line",
    "recorded at",
    "recorded by",
]


@permission_required("prizes.view_prizeline", raise_exception=True)
def record_csv(request):
    _form, _values, lines = _filtered(request)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    stamp = timezone.localtime().strftime("%Y%m%d-%H%M")
    response["Content-Disposition"] = f'attachment; filename="prize-record-{stamp}.csv"'
    writer = csv.writer(response)
    writer.writerow(CSV_HEADER)
    for line in lines.select_related("pick").order_by("draw__scheduled_at", "draw_id", "pick__seq", "id"):
        money = line.kind not in ("place", "entries")
        row = [
            line.draw.name,
            local_datetime(line.draw.scheduled_at),
            line.night.isoformat(),
            line.draw.series.promotion.name,
            line.draw.property.name,
            line.pick.k,
            line.pick.card_number,
            f"{line.member.first_name} {line.member.last_name}",
            KIND_LABELS.get(line.kind, line.kind),
            SOURCE_LABELS.get(line.source, line.source),
            Decimal(line.amount_cents) / 100 if money else line.amount_cents,
            line.words,
            outcome_words(line.data),
            line.reverses_id or "",
            line.reason,
            line.pk,
            local_datetime(line.created_at),
            line.created_by,
        ]
        writer.writerow([spreadsheet_safe(value) for value in row])
    return response


def _changeable_board(request, board_id: int) -> tuple[PrizeBoard, str | None]:
    board = get_object_or_404(
        PrizeBoard.objects.select_related("series", "series__promotion", "series__property", "tier"), pk=board_id
    )
    refusal = staff_act_refusal(request.user, board.series.property, what="prize boards", done="set up")
    return board, refusal or services.board_edit_refusal(board)


@permission_required("prizes.change_prizeboard", raise_exception=True)
def board_slot_add(request, board_id: int):
    """A prize added at the end of the board (then ordered with the board's arrows)."""
    board, refusal = _changeable_board(request, board_id)
    form = SlotAddForm(request.POST or None, board=board)
    slot = None
    if not refusal:
        slot = submit(
            request,
            form,
            lambda: board_slots.board_slot_add(
                actor=Actor.from_request(request),
                board_id=board.pk,
                label=form.cleaned_data["label"],
                kind=form.cleaned_data["kind"],
                amount_cents=form.cleaned_data.get("amount"),
                target_series=form.cleaned_data.get("target_series"),
                count=form.cleaned_data.get("count"),
            ),
        )
    if slot:
        messages.success(request, f"{slot.label} added to the prize board of {board}.")
        return redirect("prizes:board", board_id=board.pk)
    return render(request, "prizes/board_slot_add.html", {"board": board, "form": form, "refusal": refusal})


@require_POST
@permission_required("prizes.change_prizeboard", raise_exception=True)
def board_slot_change(request, board_id: int):
    """Remove a prize, or move it up or down: the board's row buttons."""
    board, refusal = _changeable_board(request, board_id)
    # One form for every row's buttons (the board's own form cannot hold them): "up:12".
    action, _sep, slot_id = request.POST.get("action", "").partition(":")
    if not refusal and (action not in ("remove", "up", "down") or not slot_id.isdigit()):
        refusal = "Choose a prize of the board and what to do with it."
    if not refusal:
        actor = Actor.from_request(request)
        try:
            if action == "remove":
                board_slots.board_slot_remove(actor=actor, board_id=board.pk, slot_id=int(slot_id))
            else:
                board_slots.board_slot_move(actor=actor, board_id=board.pk, slot_id=int(slot_id), up=action == "up")
        except DomainError as error:
            refusal = error.message
    if refusal:
        messages.error(request, refusal)
    else:
        messages.success(request, "Prize removed from the board." if action == "remove" else "Prizes reordered.")
    return redirect("prizes:board", board_id=board.pk)
