"""A prize letter's PDF rendered by a real Celery worker (over Redis, on the test database): the
letter issued in a committed transaction is queued on commit, rendered once and stored where the
web server serves it from; a draw's batch renders a missing one again."""

import pytest
from django.urls import reverse

from core.audit import Actor
from core.models import AuditEvent
from core.roles import REWARDS_DESK
from prizes.letter_models import PrizeLetter, RenderState
from prizes.letter_services import letter_issue
from prizes.tests.letter_helpers import presented
from testing.pdf import pdf_text
from testing.worker import celery_worker_fixture, celery_worker_process_fixture  # noqa: F401

pytestmark = pytest.mark.worker


def ready(letter: PrizeLetter):
    def probe():
        letter.refresh_from_db()
        return letter.render_state not in (RenderState.PENDING, RenderState.RENDERING) and letter

    return probe


def test_a_letter_issued_in_a_committed_transaction_is_rendered_once_by_the_worker(celery_worker, won, user_for, desk):
    _, first, _ = won
    letter = letter_issue(actor=Actor.for_user(user_for(REWARDS_DESK)), **presented(first))  # commits: queued

    celery_worker.wait_for(ready(letter), f"the worker to render letter {letter.number}")

    assert letter.render_state == RenderState.READY, letter.render_error
    assert str(celery_worker.media_root) in letter.pdf.path  # stored by the worker, where the web reads it
    response = desk.get(reverse("prizes:letter_pdf", args=[letter.pk]))
    assert response.status_code == 200
    text = pdf_text(b"".join(response.streaming_content), flat=True)
    assert letter.number in text and first.member.full_name in text and "R 5,000.00" in text
    assert AuditEvent.objects.filter(action="prize.letter_rendered", object_id=str(letter.pk)).count() == 1


def test_the_draws_batch_renders_a_missing_letter_again_on_the_worker(celery_worker, won, user_for, desk):
    _, first, _ = won
    letter = letter_issue(actor=Actor.for_user(user_for(REWARDS_DESK)), **presented(first))
    celery_worker.wait_for(ready(letter), f"the worker to render letter {letter.number}")
    letter.pdf.storage.delete(letter.pdf.name)

    assert desk.post(reverse("prizes:draw_letters_render", args=[letter.draw_id])).status_code == 302
    progress_url = reverse("prizes:draw_letters_progress", args=[letter.draw_id])

    def all_ready():
        fragment = desk.get(progress_url).content.decode()
        return "1 of 1 ready" in fragment and "hx-get" not in fragment and fragment

    celery_worker.wait_for(all_ready, "the worker to render the draw's letters again")
    letter.refresh_from_db()
    assert letter.pdf.storage.exists(letter.pdf.name)
    assert AuditEvent.objects.filter(action="prize.letter_rendered", object_id=str(letter.pk)).count() == 2
