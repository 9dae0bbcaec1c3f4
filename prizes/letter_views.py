"""Prize letters at the desk (issue 15, item 4): issue one to a winner in person (the Rewards
desk), read one (the desk, the cash desk, managers, auditors), void or reissue one (managers),
record a prize paid at the device (the promotions team). Thin: selectors read, services change,
and each button is offered only when its service's refusal says nothing."""

import datetime as dt

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from core.forms import submit
from draws.models import DrawPick
from members.staff import staff_act_refusal
from prizes import letter_services
from prizes.forms import LetterIssueForm, LetterVoidForm
from prizes.letter_models import PrizeLetter
from prizes.letter_pdf_views import letter_pdf_context
from prizes.letter_selectors import letterable_lines
from prizes.models import KIND_LABELS, PrizeLine

LETTERS = {"what": "prize letters", "done": "issued"}


def _letter(letter_id: int) -> PrizeLetter:
    return get_object_or_404(PrizeLetter.objects.with_related().select_related("replaces", "replaced_by"), pk=letter_id)


@permission_required("prizes.view_prizeletter", raise_exception=True)
def letter_detail(request, letter_id: int):
    letter = _letter(letter_id)
    now = timezone.now()
    lines = list(letter.lines.select_related("prize_line", "prize_line__payout"))
    for ll in lines:
        ll.kind_label = KIND_LABELS.get(ll.prize_line.kind, ll.prize_line.kind)
    actor = Actor.from_request(request)
    void_refusal = letter_services.letter_void_refusal(actor, letter, now) or staff_act_refusal(
        request.user, letter.property, **LETTERS
    )
    context = {
        "letter": letter,
        "state": letter.state(now),
        "lines": lines,
        "may_void": request.user.has_perm("prizes.void_prizeletter") and not void_refusal,
        "void_refusal": void_refusal if request.user.has_perm("prizes.void_prizeletter") else None,
        "code_valid": letter_services.letter_verify_code(letter),
        **letter_pdf_context(request, letter),
    }
    return render(request, "prizes/letter.html", context)


@permission_required("prizes.add_prizeletter", raise_exception=True)
def letter_issue(request, pick_id: int):
    """The desk's form: the winner's card swiped, the ID they show, then the letter."""
    pick = get_object_or_404(
        DrawPick.objects.select_related("member", "draw", "draw__series", "draw__series__promotion", "draw__property"),
        pk=pick_id,
    )
    refusal = letter_services.letter_issue_refusal(pick, timezone.now()) or staff_act_refusal(
        request.user, pick.draw.property, **LETTERS
    )
    form = LetterIssueForm(request.POST or None)
    letter = None
    if not refusal:
        letter = submit(
            request,
            form,
            lambda: letter_services.letter_issue(
                actor=Actor.from_request(request),
                pick_id=pick.pk,
                card_number=form.cleaned_data["card"],
                id_type_seen=form.cleaned_data["id_type_seen"],
                id_number_presented=form.cleaned_data["id_number"],
            ),
        )
    elif request.method == "POST":
        messages.error(request, refusal)
    if letter:
        messages.success(request, f"Letter {letter.number} issued to {pick.member.full_name}.")
        return redirect("prizes:letter", letter_id=letter.pk)
    lines = list(letterable_lines(pick))
    for line in lines:
        line.kind_label = KIND_LABELS.get(line.kind, line.kind)
    context = {
        "pick": pick,
        "draw": pick.draw,
        "lines": lines,
        "form": form,
        "refusal": refusal,
        "last_day": letter_services.letter_expires_at(pick) - dt.timedelta(microseconds=1),
    }
    return render(request, "prizes/letter_issue.html", context)


@permission_required("prizes.void_prizeletter", raise_exception=True)
def letter_void(request, letter_id: int):
    letter = _letter(letter_id)
    actor = Actor.from_request(request)
    refusal = letter_services.letter_void_refusal(actor, letter, timezone.now()) or staff_act_refusal(
        request.user, letter.property, **LETTERS
    )
    form = LetterVoidForm(request.POST or None)
    done = None
    if not refusal:

        def act():
            reason = form.cleaned_data["reason"]
            if form.cleaned_data["action"] == "reissue":
                return letter_services.letter_reissue(actor=actor, letter_id=letter.pk, reason=reason)
            return letter_services.letter_void(actor=actor, letter_id=letter.pk, reason=reason)

        done = submit(request, form, act)
    if done:
        if done.pk != letter.pk:
            messages.success(request, f"Letter {letter.number} voided; letter {done.number} issued in its place.")
        else:
            messages.success(request, f"Letter {letter.number} voided. The reason is kept on the letter.")
        return redirect("prizes:letter", letter_id=done.pk)
    return render(request, "prizes/letter_void.html", {"letter": letter, "form": form, "refusal": refusal})


@require_POST
@permission_required("prizes.record_device_payout", raise_exception=True)
def device_payout(request, line_id: int):
    """The prize record's "Paid at the device" button (RF bonus jackpot sessions, r14 and r29)."""
    line = get_object_or_404(PrizeLine, pk=line_id)
    try:
        letter_services.device_payout_record(actor=Actor.from_request(request), prize_line_id=line.pk)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"{line.words}: recorded as paid at the device.")
    return redirect("prizes:draw", draw_id=line.draw_id)
