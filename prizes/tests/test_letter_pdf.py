"""A prize letter's PDF (issue 15, items 5 and 11): rendered once by the task, stored, read back
with the letter's number, winner, amounts and expiry, its QR decoding to the letter's scan text;
failed renders retried; lost ones queued again by the tick; a draw's letters as one batch."""

import datetime as dt
from pathlib import Path

import pypdfium2
import pytest
import time_machine
import zxingcpp
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import REWARDS_DESK
from prizes import letter_pdf
from prizes.letter_models import PrizeLetter, RenderState
from prizes.letter_services import letter_issue, letter_reissue
from prizes.tasks import letter_render as letter_render_task
from prizes.tests.letter_helpers import presented
from testing.pdf import pdf_text

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def desk_actor(user_for) -> Actor:
    return Actor.for_user(user_for(REWARDS_DESK))


@pytest.fixture
def letter(won, desk_actor) -> PrizeLetter:
    _, first, _ = won
    return letter_issue(actor=desk_actor, **presented(first))


def scanned(pdf: bytes) -> list[str]:
    document = pypdfium2.PdfDocument(pdf)
    try:
        image = document[0].render(scale=2).to_pil()
    finally:
        document.close()
    return [barcode.text for barcode in zxingcpp.read_barcodes(image)]


def stored_pdf(letter: PrizeLetter) -> bytes:
    letter.refresh_from_db()
    with letter.pdf.open("rb") as handle:
        return handle.read()


def test_the_letter_is_queued_for_the_worker_when_the_issue_commits(
    won, desk_actor, django_capture_on_commit_callbacks
):
    _, first, _ = won
    with django_capture_on_commit_callbacks() as callbacks:
        letter = letter_issue(actor=desk_actor, **presented(first))
    assert letter.render_state == RenderState.PENDING and not letter.pdf
    assert len(callbacks) == 1  # letter_render.delay_on_commit(letter.pk)


def test_the_rendered_pdf_reads_back_with_number_winner_amounts_expiry_and_a_qr_of_the_code(letter):
    assert letter_render_task(letter.pk) is True

    letter.refresh_from_db()
    assert letter.render_state == RenderState.READY and letter.rendered_at and letter.render_error == ""
    pdf = stored_pdf(letter)
    text = pdf_text(pdf, flat=True)
    member = letter.member
    assert letter.number in text and member.full_name in text
    assert "R 5,000.00" in text and "R 500.00" in text and "R 5,500.00" in text  # cash, +Play, the total
    assert "Collect by 30 Oct 2025" in text and "expires after 365 days" in text
    assert member.id_number[-4:] in text and member.id_number not in text  # the ID masked, its last 4 shown
    assert scanned(pdf) == [letter.qr_text()]
    event = AuditEvent.objects.get(action="prize.letter_rendered", object_id=str(letter.pk))
    assert event.data["number"] == letter.number and event.actor_label == "system:letter_render"


def test_a_render_reads_the_letter_in_one_query_and_stores_it_in_one_update(letter):
    """The worker's statements (bench/letters.py): the claim, the letter with what its PDF shows
    (a field the template uses outside letter_pdf.PDF_FIELDS would add a SELECT), its lines, the
    store (the claim checked by the UPDATE itself) and the audit event."""
    with CaptureQueriesContext(connection) as queries:
        assert letter_pdf.letter_render(letter_id=letter.pk) is True
    kinds = [q["sql"].split()[0] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]
    assert kinds == ["UPDATE", "SELECT", "SELECT", "UPDATE", "INSERT"]


def test_a_task_delivered_twice_renders_once(letter, monkeypatch):
    calls = []
    real = letter_pdf.letter_pdf_bytes
    monkeypatch.setattr(letter_pdf, "letter_pdf_bytes", lambda lt: calls.append(lt.pk) or real(lt))

    assert letter_render_task(letter.pk) is True
    assert letter_render_task(letter.pk) is False

    assert calls == [letter.pk]
    assert AuditEvent.objects.filter(action="prize.letter_rendered").count() == 1


def test_a_failed_render_is_marked_in_words_and_rendered_again_on_request(letter, desk_actor, monkeypatch):
    def broken(lt):
        raise OSError("disk full")

    monkeypatch.setattr(letter_pdf, "letter_pdf_bytes", broken)
    assert letter_render_task(letter.pk) is False
    letter.refresh_from_db()
    assert letter.render_state == RenderState.FAILED and not letter.pdf
    assert "could not be made (OSError: disk full)" in letter.render_error and "Render again" in letter.render_error
    assert AuditEvent.objects.filter(action="prize.letter_render_failed", object_id=str(letter.pk)).exists()
    assert letter_render_task(letter.pk) is False  # a failed letter waits for a person, not a loop

    monkeypatch.undo()
    letter = letter_pdf.letter_render_again(actor=desk_actor, letter_id=letter.pk)
    assert letter.render_state == RenderState.PENDING and letter.render_error == ""
    assert letter_render_task(letter.pk) is True
    letter.refresh_from_db()
    assert letter.render_state == RenderState.READY and stored_pdf(letter).startswith(b"%PDF-")


def test_a_ready_or_waiting_letter_is_not_rendered_again_on_request(letter, desk_actor):
    with pytest.raises(DomainError, match="is being rendered") as caught:
        letter_pdf.letter_render_again(actor=desk_actor, letter_id=letter.pk)
    assert caught.value.code == "letter_render_refused"
    letter_render_task(letter.pk)
    with pytest.raises(DomainError, match="is ready: open it"):
        letter_pdf.letter_render_again(actor=desk_actor, letter_id=letter.pk)


def test_a_ready_letter_whose_file_is_gone_may_be_rendered_again(letter, desk_actor):
    letter_render_task(letter.pk)
    letter.refresh_from_db()
    letter.pdf.storage.delete(letter.pdf.name)
    assert letter_pdf.pdf_missing(letter)
    assert letter_pdf.letter_render_again(actor=desk_actor, letter_id=letter.pk).render_state == RenderState.PENDING


def test_a_render_whose_claim_was_taken_over_stores_nothing(letter, monkeypatch, settings):
    """A slow render the tick gave up on: the new claim's render stores the file, the old one not
    (it writes its file before the row's update checks the claim, and removes it)."""

    def meanwhile_requeued(lt):
        PrizeLetter.objects.filter(pk=lt.pk).update(
            render_state=RenderState.PENDING, render_queued_at=lt.render_queued_at + dt.timedelta(minutes=6)
        )
        return b"%PDF-old"

    monkeypatch.setattr(letter_pdf, "letter_pdf_bytes", meanwhile_requeued)
    assert letter_render_task(letter.pk) is False
    letter.refresh_from_db()
    assert letter.render_state == RenderState.PENDING and not letter.pdf
    assert not [path for path in Path(settings.MEDIA_ROOT).rglob("*") if path.is_file()]
    assert not AuditEvent.objects.filter(action="prize.letter_rendered").exists()


def test_the_tick_queues_again_a_render_lost_for_over_five_minutes(
    letter, django_capture_on_commit_callbacks, monkeypatch
):
    queued = []
    monkeypatch.setattr(letter_render_task, "delay", lambda letter_id: queued.append(letter_id))
    issued = letter.render_queued_at
    with django_capture_on_commit_callbacks(execute=True):
        assert letter_pdf.letters_render_stale(now=issued + dt.timedelta(minutes=4, seconds=59)) == 0
        # Claimed by a worker that died mid-render: rendering, for over five minutes.
        PrizeLetter.objects.filter(pk=letter.pk).update(render_state=RenderState.RENDERING)
        later = issued + dt.timedelta(minutes=5, seconds=1)
        assert letter_pdf.letters_render_stale(now=later) == 1
        assert letter_pdf.letters_render_stale(now=later) == 0  # queued once, not every tick
    assert queued == [letter.pk]
    letter.refresh_from_db()
    assert letter.render_state == RenderState.PENDING and letter.render_queued_at == later
    assert AuditEvent.objects.filter(action="prize.letter_render_requeued", object_id=str(letter.pk)).count() == 1
    assert letter_render_task(letter.pk) is True


def test_a_ready_or_failed_letter_is_never_queued_by_the_tick(letter, monkeypatch):
    letter_render_task(letter.pk)
    assert letter_pdf.letters_render_stale(now=letter.render_queued_at + dt.timedelta(days=1)) == 0


def test_a_reissued_letter_is_queued_and_rendered_with_its_new_number(
    letter, manager_actor, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        new = letter_reissue(actor=manager_actor, letter_id=letter.pk, reason="Lost on the way home")
    assert len(callbacks) == 1
    letter_render_task(new.pk)
    text = pdf_text(stored_pdf(new), flat=True)
    assert new.number in text and letter.number not in text


def test_the_batch_queues_only_the_draws_letters_that_are_missing_and_counts_progress(
    letter, desk_actor, monkeypatch, django_capture_on_commit_callbacks
):
    draw_id = letter.draw_id
    assert letter_pdf.draw_render_progress(draw_id).words == "0 of 1 ready · 1 rendering"
    assert letter_pdf.draw_letters_render(actor=desk_actor, draw_id=draw_id) == 0  # already waiting
    letter_render_task(letter.pk)
    progress = letter_pdf.draw_render_progress(draw_id)
    assert (progress.words, progress.percent, progress.busy) == ("1 of 1 ready", 100, False)
    assert letter_pdf.draw_letters_render(actor=desk_actor, draw_id=draw_id) == 0  # nothing missing

    letter.refresh_from_db()
    letter.pdf.storage.delete(letter.pdf.name)
    with django_capture_on_commit_callbacks() as callbacks:
        assert letter_pdf.draw_letters_render(actor=desk_actor, draw_id=draw_id) == 1
    assert len(callbacks) == 1
    assert letter_pdf.draw_render_progress(draw_id).words == "0 of 1 ready · 1 rendering"
    event = AuditEvent.objects.get(action="prize.letters_render_queued")
    assert event.data == {"letters": [letter.number], "count": 1}


def test_the_batch_is_refused_to_the_desk_of_another_property(letter, user_for):
    other = Actor.for_user(user_for(REWARDS_DESK, properties=["MC"]))
    with pytest.raises(DomainError) as caught:
        letter_pdf.draw_letters_render(actor=other, draw_id=letter.draw_id)
    assert caught.value.code == "other_property"


def test_the_short_code_is_the_codes_head_in_groups_of_four():
    assert letter_pdf.short_code("ab12" * 16) == "AB12-AB12-AB12-AB12"


@pytest.mark.parametrize("failed", [0, 1])
def test_progress_words_name_failures(failed):
    progress = letter_pdf.RenderProgress(total=5, ready=3, failed=failed, waiting=2 - failed)
    expected = "3 of 5 ready · 1 failed · 1 rendering" if failed else "3 of 5 ready · 2 rendering"
    assert progress.words == expected and progress.percent == 60 and progress.busy


def test_the_letter_cites_the_seeds_rule_numbers(letter):
    promotion = letter.draw.series.promotion
    promotion.code = "grc-royal-flush"
    promotion.save(update_fields=["code"])
    with time_machine.travel(letter.issued_at, tick=False):
        text = pdf_text(letter_pdf.letter_pdf_bytes(PrizeLetter.objects.with_related().get(pk=letter.pk)), flat=True)
    assert "Rules 47, 65, 77" in text and "Rule 76" in text and "Rule 82" in text
