"""Redis (the broker and the cache) stopped (issue 16, faults): the desk keeps working, quickly,
and what it would have queued runs once Redis is back. A private redis-server is started for
the test, killed, and started again on the same port; publishing runs as in production
(QUEUE_IN_BACKGROUND), the cache is the production one (core.cache.ForgivingRedisCache)."""

import datetime as dt
import socket
import subprocess
import time
import uuid

import pytest
import time_machine
from django.conf import settings
from django.core.cache import cache
from django.test import override_settings
from django.urls import reverse

from config.tasks import tick
from core.audit import Actor
from core.roles import PROMOTIONS_MANAGER, REWARDS_DESK
from draws.models import DrawStanding
from prizes.letter_models import RenderState
from prizes.letter_services import letter_issue
from prizes.tests.letter_helpers import presented
from testing.worker import sending_to, worker_start

pytestmark = pytest.mark.worker
BOUND = 5.0  # seconds: a hang is the failure mode, so generous enough never to flake


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def redis_start(port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    pytest.fail("the private redis-server did not start")


def redis_stop(process: subprocess.Popen) -> None:
    process.kill()
    process.wait(timeout=10)


def timed(call):
    started = time.monotonic()
    result = call()
    took = time.monotonic() - started
    assert took < BOUND, f"took {took:.1f} s with the broker down"
    return result


def test_with_redis_down_the_desk_works_and_the_letter_is_rendered_when_it_is_back(
    transactional_db, won, user_for, client_for, tmp_path
):
    draw, first, _ = won
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    media, queue = tmp_path / "media", f"pytest-{uuid.uuid4().hex[:10]}"
    media.mkdir()
    caches = {"default": {**settings.CACHES["default"], "BACKEND": "core.cache.ForgivingRedisCache", "LOCATION": url}}
    caches["default"].setdefault("OPTIONS", {"socket_connect_timeout": 1, "socket_timeout": 2})
    server = redis_start(port)
    worker = None
    try:
        with sending_to(queue, url), override_settings(QUEUE_IN_BACKGROUND=True, CACHES=caches, MEDIA_ROOT=str(media)):
            cache.set("before", 1)
            redis_stop(server)  # down: kill -9, as a crash

            desk, manager = client_for(REWARDS_DESK), client_for(PROMOTIONS_MANAGER)
            page = timed(lambda: desk.get(reverse("members:lookup"), {"q": first.member.card_number}, follow=True))
            assert page.status_code == 200 and first.member.last_name in page.content.decode()
            letter = timed(lambda: letter_issue(actor=Actor.for_user(user_for(REWARDS_DESK)), **presented(first)))
            assert letter.render_state == RenderState.PENDING  # issued; its PDF waits for the worker
            counted = timed(lambda: manager.post(reverse("draws:standing_refresh", args=[draw.pk])))
            assert counted.status_code == 302 and DrawStanding.objects.get(draw=draw).requested_at
            assert timed(lambda: cache.get("before")) is None  # the cache answers as a miss
            assert timed(lambda: cache.add("lock", 1)) is True
            time.sleep(1)  # let the background publisher try (and fail) what was handed to it
            letter.refresh_from_db()
            assert letter.render_state == RenderState.PENDING  # nothing ran: the broker took nothing

            server = redis_start(port)  # back, empty: the messages sent while it was down are lost
            worker = worker_start(folder=tmp_path, queue=queue, media_root=media, redis_url=url)
            # The tick over five minutes after the issue: the letter's render was lost, queue it again.
            with time_machine.travel(letter.render_queued_at + dt.timedelta(minutes=6), tick=False):
                assert tick() == []

            def rendered():
                letter.refresh_from_db()
                return letter.render_state == RenderState.READY

            worker.wait_for(rendered, f"the worker to render letter {letter.number} once Redis is back", timeout=60)
            assert letter.pdf.storage.exists(letter.pdf.name)
    finally:
        if worker:
            worker.stop()
        redis_stop(server)
