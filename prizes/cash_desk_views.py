"""The cash desk's pages (issue 15, items 6 and 9): the start page with its one scan field
(a keyboard-wedge scanner types the letter's QR text and Enter; a letter number may be keyed),
today's payouts and the letters about to expire; the letter at the cash desk with one form per
group (cash, +Play, a vehicle or another prize handed over). Cashiers pay; the desk, managers
and auditors read. Thin: selectors read, prizes.cash_desk refuses and pays."""

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.formats import rand_cents
from core.forms import safe_text, submit
from members.staff import staff_property_ids
from prizes import cash_desk, letter_codes
from prizes.forms import CashDeskPayForm
from prizes.letter_models import PrizeLetter
from prizes.letter_selectors import letters_expiring, payouts_today
from prizes.models import KIND_LABELS

NOT_A_LETTER = "That is neither a prize letter's QR code nor a letter number (such as GRC-26-000123): scan it again."


def _scan_refusal(text: str) -> tuple[PrizeLetter | None, str, str | None]:
    """(letter, scanned code, why not) for what was typed in the scan field."""
    # (A card swiped into the field arrives as its card number: core's middleware scrubs stripes.)
    parsed = letter_codes.parse_scan(text) if safe_text(text) else None
    if parsed is None:
        return None, "", NOT_A_LETTER
    number, code = parsed
    letter = PrizeLetter.objects.filter(number=number).first()
    if letter is None:
        return None, "", f"There is no prize letter {number}: check the number printed on the letter."
    return letter, code, None


def _letter_url(letter: PrizeLetter, code: str = "", **more) -> str:
    query = {k: v for k, v in {"code": code, **more}.items() if v}
    url = reverse("prizes:cash_desk_letter", args=[letter.pk])
    return f"{url}?{urlencode(query)}" if query else url


@permission_required("prizes.view_prizeletter", raise_exception=True)
def cash_desk_start(request):
    text = request.GET.get("scan", "").strip()
    refusal = None
    if text:
        letter, code, refusal = _scan_refusal(text)
        if letter is not None:
            return HttpResponseRedirect(_letter_url(letter, code))
    now = timezone.now()
    property_ids = staff_property_ids(request.user)
    payouts = payouts_today(property_ids, now)
    for payout in payouts:
        payout.kind_label = KIND_LABELS.get(payout.kind, payout.kind)
    expiring = letters_expiring(property_ids, now)
    for letter in expiring:
        letter.days_left = letter.state(now).days_left
    context = {
        "refusal": refusal,
        "payouts": payouts,
        "paid_total": rand_cents(sum(p.amount_cents for p in payouts if p.kind in ("cash", "play"))),
        "expiring": expiring,
    }
    return render(request, "prizes/cash_desk.html", context, status=200)


def _letter_page(request, letter: PrizeLetter, code: str, *, bound: CashDeskPayForm | None = None, group: str = ""):
    now = timezone.now()
    actor = Actor.from_request(request)
    refusal = cash_desk.letter_refusal(actor, letter, now, scanned_code=code or None)
    lines = cash_desk.payable_lines(letter)
    may_pay = request.user.has_perm("prizes.add_payout")
    groups = []
    for key, grp in cash_desk.GROUPS.items():
        mine = [ll for ll in lines if ll.prize_line.kind in grp.kinds]
        if not mine:
            continue
        form = bound if bound is not None and key == group else CashDeskPayForm(prefix=key)
        group_refusal = cash_desk.group_refusal(letter, grp, lines)
        groups.append(
            {
                "key": key,
                "group": grp,
                "lines": mine,
                "total": rand_cents(sum(ll.prize_line.amount_cents for ll in mine)),
                "refusal": group_refusal.message if group_refusal else "",
                "form": form if may_pay and not refusal and not group_refusal else None,
            }
        )
    context = {
        "letter": letter,
        "code": code,
        "state": letter.state(now),
        "refusal": refusal.message if refusal else "",
        "groups": groups,
        "all_lines": [
            {"ll": ll, "kind_label": KIND_LABELS.get(ll.prize_line.kind, ll.prize_line.kind)}
            for ll in letter.lines.select_related("prize_line", "prize_line__payout").order_by("id")
        ],
        "id_hint": cash_desk.id_hint(letter.member.id_number),
        "focus_scan": bool(request.GET.get("paid")) or bool(refusal) or not any(g["form"] for g in groups),
        "focus_group": group or next((g["key"] for g in groups if g["form"]), ""),
    }
    return render(request, "prizes/cash_desk_letter.html", context)


def _letter(letter_id: int) -> PrizeLetter:
    return get_object_or_404(PrizeLetter.objects.with_related(), pk=letter_id)


@permission_required("prizes.view_prizeletter", raise_exception=True)
def cash_desk_letter(request, letter_id: int):
    code = request.GET.get("code", "")
    code = code if safe_text(code) and len(code) <= 64 else "?"
    return _letter_page(request, _letter(letter_id), code)


@require_POST
@permission_required("prizes.add_payout", raise_exception=True)
def cash_desk_pay(request, letter_id: int):
    letter = _letter(letter_id)
    group = request.POST.get("group", "")
    code = request.POST.get("code", "")
    if group not in cash_desk.GROUPS:
        messages.error(request, "Choose what is paid: cash, +Play, a vehicle or another prize.")
        return redirect(_letter_url(letter, code))
    form = CashDeskPayForm(request.POST, prefix=group)
    payouts = submit(
        request,
        form,
        lambda: cash_desk.letter_pay(
            actor=Actor.from_request(request),
            letter_id=letter.pk,
            kind_group=group,
            id_type_seen=form.cleaned_data["id_type_seen"],
            id_last_digits=form.cleaned_data["id_last_digits"],
            signature_acknowledged=form.cleaned_data["signed"],
            scanned_code=code or None,
        ),
    )
    if payouts:
        grp = cash_desk.GROUPS[group]
        amount = rand_cents(sum(p.amount_cents for p in payouts))
        done = "Recorded as handed over" if grp.handed_over else "Paid"
        messages.success(
            request,
            f"{done}: the {grp.label} of letter {letter.number} ({amount}) to {letter.member.full_name}. "
            "Scan the next letter.",
        )
        return redirect(_letter_url(letter, code, paid=group))
    return _letter_page(request, letter, code, bound=form, group=group)
