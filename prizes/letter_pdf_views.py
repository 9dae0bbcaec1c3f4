"""A prize letter's PDF at the desk (issue 15, item 5): its state on the letter page (polled
while the worker renders it, opened when it is ready), the stored file served (never rendered
on request), "Render again", and a draw's letters as one batch with a progress bar."""

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.http import FileResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from draws.models import Draw
from prizes import letter_pdf
from prizes.letter_models import PrizeLetter, RenderState

# The desk prints letters; a manager too (after a reissue, say). The cash desk and auditors read.
RENDER_PERMS = ("prizes.add_prizeletter", "prizes.void_prizeletter")


def may_render(user) -> bool:
    return any(user.has_perm(perm) for perm in RENDER_PERMS)


def letter_pdf_context(request, letter: PrizeLetter) -> dict:
    """The letter page's PDF cell: also what its polled fragment shows."""
    return {
        "letter": letter,
        "pdf_busy": letter.render_state in letter_pdf.IN_FLIGHT,
        "pdf_missing": letter_pdf.pdf_missing(letter),
        "may_render": may_render(request.user) and letter_pdf.letter_render_refusal(letter) is None,
    }


@permission_required("prizes.view_prizeletter", raise_exception=True)
def letter_pdf_state(request, letter_id: int):
    """The PDF cell, polled every second while the worker renders; once ready, a poll that saw
    it rendering opens the PDF (the desk is waiting to print it)."""
    letter = get_object_or_404(PrizeLetter, pk=letter_id)
    context = letter_pdf_context(request, letter)
    context["open_now"] = bool(request.headers.get("HX-Request")) and letter.render_state == RenderState.READY
    return render(request, "prizes/_letter_pdf.html", context)


@permission_required("prizes.view_prizeletter", raise_exception=True)
def letter_pdf_file(request, letter_id: int):
    """The stored PDF, inline (the browser's viewer prints it). Never rendered here: a letter not
    yet rendered sends the reader back to its page, which shows it rendering."""
    letter = get_object_or_404(PrizeLetter, pk=letter_id)
    if letter.render_state != RenderState.READY or not letter.pdf:
        messages.info(request, f"The PDF of letter {letter.number} is not ready yet: it opens here when it is.")
        return redirect("prizes:letter", letter_id=letter.pk)
    try:
        handle = letter.pdf.open("rb")
    except FileNotFoundError:
        messages.error(request, f"The stored PDF of letter {letter.number} is missing: press “Render again”.")
        return redirect("prizes:letter", letter_id=letter.pk)
    return FileResponse(handle, content_type="application/pdf", filename=f"prize-letter-{letter.number}.pdf")


@require_POST
def letter_render_again(request, letter_id: int):
    if not may_render(request.user):
        raise PermissionDenied
    letter = get_object_or_404(PrizeLetter, pk=letter_id)
    try:
        letter_pdf.letter_render_again(actor=Actor.from_request(request), letter_id=letter.pk)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Letter {letter.number} is being rendered again.")
    return redirect("prizes:letter", letter_id=letter.pk)


@permission_required("prizes.view_prizeletter", raise_exception=True)
def draw_letters_progress(request, draw_id: int):
    """The draw's "3 of 5 ready" bar, polled while any of its letters waits for the worker."""
    draw = get_object_or_404(Draw, pk=draw_id)
    context = {
        "draw": draw,
        "progress": letter_pdf.draw_render_progress(draw.pk),
        "may_render": may_render(request.user),
    }
    return render(request, "prizes/_draw_letters_progress.html", context)


@require_POST
def draw_letters_render(request, draw_id: int):
    """The batch: render every letter of the draw not yet rendered, failed or missing its file."""
    if not may_render(request.user):
        raise PermissionDenied
    draw = get_object_or_404(Draw, pk=draw_id)
    try:
        queued = letter_pdf.draw_letters_render(actor=Actor.from_request(request), draw_id=draw.pk)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        if queued:
            messages.success(request, f"{queued} letter{'s' if queued != 1 else ''} of {draw.name} being rendered.")
        else:
            messages.info(request, f"Every letter of {draw.name} is rendered or on its way: nothing to render again.")
    return redirect(f"{reverse('prizes:draw', args=[draw.pk])}#draw-letters")
