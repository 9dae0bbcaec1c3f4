"""The letters' reports (issue 15, items 8 and 10): letters by state per promotion and property
(managers, auditors), the cash desk's payouts of a day as a page, CSV and PDF (the cash desk,
managers, auditors), the winners still to collect (the desk, managers, auditors). A user with a
staff profile sees their own properties only; one without sees every property. Thin: the
figures come from prizes.letter_reports."""

import csv
from decimal import Decimal

from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone

from core.formats import local_datetime, spreadsheet_safe
from core.pdf import render_pdf
from members.staff import staff_property_ids
from prizes.letter_reports import EXPIRING_DAYS, letter_counts, payout_summary, uncollected_winners
from prizes.models import KIND_LABELS
from prizes.report_forms import LetterReportFilter, PayoutSummaryFilter


def _chosen_ids(form, mine: list[int] | None) -> list[int] | None:
    """The property the filter chose (always one of the user's), else every one of theirs."""
    chosen = form.cleaned_data.get("property") if form.is_valid() else None
    return [chosen.pk] if chosen else mine


@permission_required("prizes.view_prizeline", raise_exception=True)
def letter_report(request):
    mine = staff_property_ids(request.user)
    form = LetterReportFilter(request.GET or None, property_ids=mine)
    promotion = form.cleaned_data.get("promotion") if form.is_valid() else None
    now = timezone.now()
    rows, total = letter_counts(
        now=now, property_ids=_chosen_ids(form, mine), promotion_id=promotion.pk if promotion else None
    )
    context = {"form": form, "rows": rows, "total": total, "now": now, "expiring_days": EXPIRING_DAYS}
    return render(request, "prizes/letter_report.html", context)


CSV_HEADER = [
    "paid at",
    "property",
    "letter",
    "card number",
    "winner",
    "kind",
    "amount (R)",
    "prize",
    "paid by",
    "ID type seen",
    "payout",
]


def _summary_csv(summary, name: str) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.writer(response)
    writer.writerow(CSV_HEADER)
    for payout in summary.payouts:
        member = payout.prize_line.member
        row = [
            local_datetime(payout.paid_at),
            payout.property.code,
            payout.letter.number if payout.letter else "",
            member.card_number,
            member.full_name,
            KIND_LABELS.get(payout.kind, payout.kind),
            Decimal(payout.amount_cents).scaleb(-2),  # "200.00"
            payout.prize_line.words,
            payout.paid_by,
            payout.get_id_type_seen_display(),
            payout.pk,
        ]
        writer.writerow([spreadsheet_safe(value) for value in row])
    return response


@permission_required("prizes.view_payout", raise_exception=True)
def payout_summary_page(request):
    """?day=YYYY-MM-DD&property=CODE; &format=csv or pdf for the downloads."""
    mine = staff_property_ids(request.user)
    form = PayoutSummaryFilter(request.GET or None, property_ids=mine)
    day = form.chosen_day()
    chosen = form.cleaned_data.get("property") if form.is_valid() else None
    summary = payout_summary(day=day, property_ids=_chosen_ids(form, mine))
    where = chosen.name if chosen else ("your properties" if mine is not None else "every property")
    name = f"payouts-{chosen.code if chosen else 'all'}-{day:%Y-%m-%d}"
    context = {"form": form, "summary": summary, "day": day, "where": where, "printed_at": timezone.now()}
    wanted = request.GET.get("format", "")
    if wanted == "csv":
        return _summary_csv(summary, name)
    if wanted == "pdf":
        pdf = render_pdf("prizes/payout_summary_pdf.html", context, css="css/payout_summary.css")
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'inline; filename="{name}.pdf"'
        return response
    query = request.GET.copy()
    query.pop("format", None)
    context["query"] = query.urlencode()
    return render(request, "prizes/payout_summary.html", context)


def uncollected(request):
    # The desk (it issues the letters) and those who read the prize record; not the cash desk.
    user = request.user
    if not (user.has_perm("prizes.add_prizeletter") or user.has_perm("prizes.view_prizeline")):
        raise PermissionDenied
    mine = staff_property_ids(user)
    now = timezone.now()
    rows = uncollected_winners(now=now, property_ids=mine)
    context = {
        "rows": rows,
        "now": now,
        "expiring_days": EXPIRING_DAYS,
        "represented": sum(row.represented_or_declined for row in rows),
    }
    return render(request, "prizes/uncollected.html", context)
