"""A worker killed (SIGKILL) halfway through writing a prize letter's PDF leaves no file, whole
or half, anywhere in the storage; the tick queues the letter again, another worker renders it,
and it is rendered and stored exactly once (issue 16, faults). The first worker runs
testing.slow_letters, whose file writes stop halfway (the half flushed to disk) until killed."""

import datetime as dt
import uuid
from pathlib import Path

import pytest
import redis
import time_machine
from django.test import override_settings

from config.tasks import tick
from core.audit import Actor
from core.models import AuditEvent
from core.roles import REWARDS_DESK
from prizes.letter_models import PrizeLetter, RenderState
from prizes.letter_pdf import letter_render
from prizes.letter_services import letter_issue
from prizes.tasks import letter_render as letter_render_task
from prizes.tests.letter_helpers import presented
from testing.pdf import pdf_text
from testing.worker import REDIS_URL, sending_to, worker_start

pytestmark = pytest.mark.worker


def stored_files(media: Path) -> list[Path]:
    return sorted(path for path in media.rglob("*") if path.is_file())


def test_a_worker_killed_mid_write_leaves_no_file_and_the_letter_is_rendered_once(
    transactional_db, won, user_for, tmp_path
):
    _, first, _ = won
    redis.Redis.from_url(REDIS_URL).flushdb()
    media, marker, queue = tmp_path / "media", tmp_path / "halfway", f"pytest-{uuid.uuid4().hex[:10]}"
    media.mkdir()
    slow = worker_start(
        folder=tmp_path,
        queue=queue,
        media_root=media,
        app="testing.slow_letters",
        env={"SLOW_WRITE_MARKER": str(marker)},
    )
    fresh = None
    try:
        with sending_to(queue), override_settings(MEDIA_ROOT=str(media)):
            letter = letter_issue(actor=Actor.for_user(user_for(REWARDS_DESK)), **presented(first))  # commits: queued
            slow.wait_for(marker.exists, "the worker to be halfway through writing the PDF", timeout=60)
            assert int(marker.read_text()) > 10_000  # a real PDF, half of it on disk when killed
            slow.kill()

            assert stored_files(media) == []  # no half-written file, named or temporary
            letter.refresh_from_db()
            assert letter.render_state == RenderState.RENDERING and not letter.pdf
            assert not AuditEvent.objects.filter(action="prize.letter_rendered").exists()

            fresh = worker_start(folder=tmp_path, queue=queue, media_root=media)
            # The claim is the worker's clock (real time); the tick runs over five minutes later.
            with time_machine.travel(letter.render_queued_at + dt.timedelta(minutes=6), tick=False):
                assert tick() == []  # the render lost for over five minutes is queued again

            def rendered():
                letter.refresh_from_db()
                return letter.render_state == RenderState.READY

            fresh.wait_for(rendered, f"the second worker to render letter {letter.number}", timeout=60)
            files = stored_files(media)
            assert [path.name for path in files] == [f"{letter.number}.pdf"]
            assert letter.number in pdf_text(files[0].read_bytes(), flat=True)  # whole: it opens and reads

            # Delivered again (a redelivery, a doubled tick): nothing more is rendered or stored.
            letter_render_task.delay(letter.pk)
            fresh.wait_for(lambda: "succeeded" in fresh.log_tail(5) and "False" in fresh.log_tail(5), "the repeat")
            assert letter_render(letter_id=letter.pk) is False
            assert stored_files(media) == files
            assert AuditEvent.objects.filter(action="prize.letter_rendered", object_id=str(letter.pk)).count() == 1
            assert PrizeLetter.objects.get(pk=letter.pk).pdf.name == letter.pdf.name
    finally:
        slow.stop()
        if fresh:
            fresh.stop()
        redis.Redis.from_url(REDIS_URL).flushdb()
