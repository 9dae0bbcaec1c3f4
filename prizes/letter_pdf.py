"""A prize letter's PDF (issue 15, item 5): rendered once by the worker (prizes.tasks) after the
letter is issued, stored in its `pdf` field and served from there, never rendered per download.

    pending ─(the task claims it)→ rendering ─→ ready (the file stored)
                                             └→ failed (the error in words; "Render again" → pending)

A task may be lost (the worker killed, the broker restarted): the tick puts a letter pending or
rendering for RENDER_STALE back to pending and queues it again. `render_queued_at` is the claim:
a render keeps its file only if the letter still carries the claim it took, so of two renders
of one letter (a lost one that was only slow, say) exactly one is stored.
"""

import datetime as dt
import logging
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from core import pdf as core_pdf
from core.audit import Actor, audit_log
from core.errors import DomainError
from core.files import save_whole
from core.formats import mask_id_number
from core.queueing import enqueue
from draws.models import Draw
from members.staff import check_staff_property
from prizes.letter_models import LIVE_STATUSES, PrizeLetter, RenderState
from prizes.models import KIND_LABELS, PrizeLine

logger = logging.getLogger(__name__)

TEMPLATE = "prizes/letter_pdf.html"
CSS = "css/letter.css"
RENDER_STALE = dt.timedelta(minutes=5)  # a render takes about a second; five minutes is a lost task
STALE_BATCH = 200
IN_FLIGHT = (RenderState.PENDING, RenderState.RENDERING)
WORKER = Actor.system("letter_render")
LETTERS = {"what": "prize letters", "done": "printed"}

# The seeds' collection clauses by promotion (PRIZES.md §3), printed beside each rule on the letter.
SEED_RULES = {
    "golden-horse-prive-powerplay": {"collect": "14-15", "id": "9"},
    "grc-fast-lane-to-fortune": {"collect": "115, 127", "id": "15"},
    "grc-turn-up-the-heat": {"collect": "19, 41, 61, 88, 155", "id": "10"},
    "grc-royal-flush": {"collect": "47, 65, 77", "id": "76", "receipt": "82"},
    "emnotweni-daytime-playtime": {"collect": "25", "play": "11-13"},
}
KIND_ORDER = ("cash", "play", "vehicle", "other")
# What the letter's PDF shows of its draw, promotion, winner and casino. Read with only these
# columns: building the five rows in full (the draw alone has 40 columns, the promotion its
# rules) took longer than the query (bench/letters.py). A field the template starts to use
# must be added here, or each render reads it with a query of its own (the tests count them).
PDF_RELATED = ("draw__series__promotion", "member", "property")
PDF_FIELDS = (
    *(field.name for field in PrizeLetter._meta.concrete_fields),
    "draw__scheduled_at",
    "draw__series__name",
    "draw__series__promotion__code",
    "draw__series__promotion__name",
    "draw__series__promotion__collection_days",
    "member__first_name",
    "member__last_name",
    "member__id_number",
    "member__card_number",
    "property__name",
)


# --- The document --------------------------------------------------------------------------


def short_code(code: str) -> str:
    """The code as printed under the QR: its first 16 characters in groups of four."""
    head = code[:16].upper()
    return "-".join(head[i : i + 4] for i in range(0, len(head), 4))


def letter_pdf_context(letter: PrizeLetter) -> dict:
    """What the letter's template shows: the winner (ID and card masked), the draw, the lines by
    kind with their totals, the collection rules with the seed's rule numbers, the QR."""
    promotion = letter.draw.series.promotion
    lines = list(
        PrizeLine.objects.filter(letter_lines__letter=letter).only("kind", "amount_cents", "words").order_by("pk")
    )
    groups = []
    for kind in KIND_ORDER:
        of_kind = [line for line in lines if line.kind == kind]
        if of_kind:
            total = sum(line.amount_cents for line in of_kind)
            groups.append({"kind": kind, "label": KIND_LABELS[kind], "lines": of_kind, "total_cents": total})
    return {
        "letter": letter,
        "member": letter.member,
        "draw": letter.draw,
        "promotion": promotion,
        "masked_id": mask_id_number(letter.member.id_number),
        "masked_card": mask_id_number(letter.member.card_number),
        "groups": groups,
        "total_cents": sum(line.amount_cents for line in lines),
        "has_play": any(g["kind"] == "play" for g in groups),
        "has_vehicle": any(g["kind"] == "vehicle" for g in groups),
        "rules": SEED_RULES.get(promotion.code, {}),
        "qr": core_pdf.qr_svg(letter.qr_text()),
        "short_code": short_code(letter.code),
    }


def letter_for_pdf(letter_id: int) -> PrizeLetter:
    """The letter with what its PDF shows, in one query."""
    return PrizeLetter.objects.select_related(*PDF_RELATED).only(*PDF_FIELDS).get(pk=letter_id)


def letter_pdf_bytes(letter: PrizeLetter) -> bytes:
    return core_pdf.render_pdf(TEMPLATE, letter_pdf_context(letter), css=CSS)


# --- The worker's render -------------------------------------------------------------------


def _render_error_words(error: Exception) -> str:
    return (
        f"The PDF could not be made ({type(error).__name__}: {error}). Press “Render again”; "
        "if it fails again, call IT support with the letter number."
    )


def letter_render(*, letter_id: int, now: dt.datetime | None = None) -> bool:
    """Render the letter's PDF and store it, if it is waiting for a render: True when this call
    stored it. Called twice (a task delivered twice), the second finds it claimed or ready and
    does nothing. A failing render marks it failed with the error in words, for "Render again"."""
    claim = now or timezone.now()
    claimed = PrizeLetter.objects.filter(pk=letter_id, render_state=RenderState.PENDING).update(
        render_state=RenderState.RENDERING, render_queued_at=claim
    )
    if not claimed:
        return False
    # Rendered outside any transaction: a second or so of WeasyPrint holds no lock.
    letter = letter_for_pdf(letter_id)
    try:
        content = letter_pdf_bytes(letter)
    except Exception as error:
        logger.exception("Prize letter %s: the PDF could not be rendered", letter.number)
        _finish_failed(letter_id, claim, _render_error_words(error))
        return False
    with transaction.atomic():
        # The file, whole or not at all (a worker killed mid-write leaves none), under a name of
        # its own; then the row in one UPDATE that also checks the claim (and locks the row to
        # the commit): no SELECT ... FOR UPDATE and no second read of the letter first.
        name = letter.pdf.field.generate_filename(letter, f"{letter.number}.pdf")
        letter.pdf.name = save_whole(letter.pdf.storage, name, content)
        rendered_at = timezone.now()
        stored = PrizeLetter.objects.filter(
            pk=letter_id, render_state=RenderState.RENDERING, render_queued_at=claim
        ).update(pdf=letter.pdf.name, render_state=RenderState.READY, rendered_at=rendered_at, render_error="")
        if not stored:  # the tick gave it to another render meanwhile: that one stores its file
            letter.pdf.storage.delete(letter.pdf.name)
            return False
        letter.render_state, letter.rendered_at, letter.render_error = RenderState.READY, rendered_at, ""
        audit_log(
            actor=WORKER,
            action="prize.letter_rendered",
            obj=letter,
            data={"number": letter.number, "file": letter.pdf.name, "bytes": len(content)},
        )
    return True


def _finish_failed(letter_id: int, claim: dt.datetime, words: str) -> None:
    with transaction.atomic():
        letter = (
            PrizeLetter.objects.select_for_update()
            .filter(pk=letter_id, render_state=RenderState.RENDERING, render_queued_at=claim)
            .first()
        )
        if letter is None:
            return
        letter.render_state, letter.render_error = RenderState.FAILED, words
        letter.save(update_fields=["render_state", "render_error"])
        audit_log(
            actor=WORKER,
            action="prize.letter_render_failed",
            obj=letter,
            data={"number": letter.number, "error": words},
        )


def _queue(letter_ids: list[int]) -> None:
    from prizes.tasks import letter_render as letter_render_task  # the tasks module imports this one

    for letter_id in letter_ids:
        enqueue(letter_render_task, letter_id)  # lost with the broker: letters_render_stale sends it again


def letter_render_queue(letter: PrizeLetter) -> None:
    """For letter_issue and letter_reissue, inside their transaction: render it once committed."""
    _queue([letter.pk])


# --- Rendering again (a letter, a draw's letters, the tick) ---------------------------------


def pdf_missing(letter: PrizeLetter) -> bool:
    """A letter marked ready whose stored file is gone (a restored database, a lost disk)."""
    return letter.render_state == RenderState.READY and not (letter.pdf and letter.pdf.storage.exists(letter.pdf.name))


def letter_render_refusal(letter: PrizeLetter) -> str | None:
    """Why the letter's PDF is not to be rendered again now, or None: only a failed render or a
    stored file gone missing is."""
    if letter.render_state == RenderState.FAILED or pdf_missing(letter):
        return None
    if letter.render_state == RenderState.READY:
        return f"The PDF of letter {letter.number} is ready: open it."
    return f"The PDF of letter {letter.number} is being rendered: it opens here when it is ready."


def _requeue(letters: list[PrizeLetter], now: dt.datetime) -> list[int]:
    ids = [letter.pk for letter in letters]
    PrizeLetter.objects.filter(pk__in=ids).update(
        render_state=RenderState.PENDING, render_queued_at=now, render_error=""
    )
    _queue(ids)
    return ids


def letter_render_again(*, actor: Actor, letter_id: int, now: dt.datetime | None = None) -> PrizeLetter:
    """The desk's "Render again" on a letter whose render failed or whose file went missing."""
    now = now or timezone.now()
    with transaction.atomic():
        letter = PrizeLetter.objects.select_for_update().select_related("property").get(pk=letter_id)
        check_staff_property(actor, letter.property, **LETTERS)
        refusal = letter_render_refusal(letter)
        if refusal:
            raise DomainError(refusal, code="letter_render_refused")
        before = letter.render_state
        _requeue([letter], now)
        audit_log(
            actor=actor,
            action="prize.letter_render_queued",
            obj=letter,
            data={"number": letter.number, "was": before, "error": letter.render_error},
        )
    letter.refresh_from_db()
    return letter


def draw_letters_render(*, actor: Actor, draw_id: int, now: dt.datetime | None = None) -> int:
    """The batch for a draw: queue a render of each of its live letters (issued or paid) not yet
    rendered, failed, or whose stored file is missing. Letters already waiting for the worker
    are left to it. The number queued."""
    now = now or timezone.now()
    with transaction.atomic():
        draw = Draw.objects.select_related("property").get(pk=draw_id)
        check_staff_property(actor, draw.property, **LETTERS)
        letters = list(
            PrizeLetter.objects.select_for_update()
            .filter(draw=draw, status__in=LIVE_STATUSES)
            .exclude(render_state__in=IN_FLIGHT)
            .order_by("id")
        )
        due = [letter for letter in letters if letter.render_state == RenderState.FAILED or pdf_missing(letter)]
        if due:
            _requeue(due, now)
            audit_log(
                actor=actor,
                action="prize.letters_render_queued",
                obj=draw,
                data={"letters": [letter.number for letter in due], "count": len(due)},
            )
    return len(due)


def letters_render_stale(*, now: dt.datetime | None = None) -> int:
    """The tick: a letter waiting for a render (or rendering) for over RENDER_STALE lost its
    task; queue it again. The number queued (at most STALE_BATCH a tick; the next takes more)."""
    now = now or timezone.now()
    cutoff = now - RENDER_STALE
    stale = Q(render_queued_at__lt=cutoff) | Q(render_queued_at__isnull=True, issued_at__lt=cutoff)
    with transaction.atomic():
        letters = list(
            PrizeLetter.objects.select_for_update(skip_locked=True)
            .filter(stale, render_state__in=IN_FLIGHT)
            .order_by("render_queued_at", "id")[:STALE_BATCH]
        )
        for letter in letters:
            audit_log(
                actor=Actor.system("tick"),
                action="prize.letter_render_requeued",
                obj=letter,
                data={"number": letter.number, "was": letter.render_state},
            )
        _requeue(letters, now)
    return len(letters)


# --- Progress --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RenderProgress:
    total: int
    ready: int
    failed: int
    waiting: int

    @property
    def percent(self) -> int:
        return round(100 * self.ready / self.total) if self.total else 100

    @property
    def busy(self) -> bool:
        return self.waiting > 0

    @property
    def words(self) -> str:
        if not self.total:
            return "No letter issued for this draw yet."
        words = f"{self.ready} of {self.total} ready"
        if self.failed:
            words += f" · {self.failed} failed"
        if self.waiting:
            words += f" · {self.waiting} rendering"
        return words


def draw_render_progress(draw_id: int) -> RenderProgress:
    """How far the PDFs of a draw's live letters are (by their state: one small query, polled)."""
    counts = PrizeLetter.objects.filter(draw_id=draw_id, status__in=LIVE_STATUSES).aggregate(
        total=Count("id"),
        ready=Count("id", filter=Q(render_state=RenderState.READY)),
        failed=Count("id", filter=Q(render_state=RenderState.FAILED)),
        waiting=Count("id", filter=Q(render_state__in=IN_FLIGHT)),
    )
    return RenderProgress(**counts)
