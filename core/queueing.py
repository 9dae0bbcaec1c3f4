"""Handing work to the Celery worker without ever failing or holding up the caller (issue 16).

A desk clerk's activation, a kiosk's API call or a letter issue must succeed while Redis (the
broker) is down or restarting. So nothing here raises: a message that cannot be published is
logged and dropped, and the work is not lost because the row itself already says it is due
(a letter "pending", a standing "requested", an import "queued"), and the beat tick's sweep for
that row queues it again once the broker answers (prizes.letter_pdf.letters_render_stale,
draws.services.draw_standings_refresh_due, members.services.import_jobs_requeue_lost).

Publishing to a broker that is down takes seconds even with no publish retries
(CELERY_TASK_PUBLISH_RETRY) and short socket timeouts (CELERY_BROKER_TRANSPORT_OPTIONS): kombu
and redis-py each retry the connection. So with QUEUE_IN_BACKGROUND (on outside the test suite)
the message is handed, once the transaction commits, to one background thread per process,
which sends it; after a failure it drops what comes for BROKER_DOWN_SECONDS without trying, so
a backlog never builds up behind a dead broker. The request itself never waits for the broker.
"""

import logging
import os
import queue
import threading
import time
from functools import partial

from django.conf import settings
from django.db import transaction

logger = logging.getLogger(__name__)

BROKER_DOWN_SECONDS = 2.0  # after a failed publish, drop messages this long without trying
BACKLOG = 1000  # messages waiting for the background thread; beyond that they are dropped

_down_until = 0.0
_sender: tuple[int, queue.Queue] | None = None  # (pid, queue): a forked process starts its own
_sender_lock = threading.Lock()


def publish(task, *args) -> bool:
    """Send `task(*args)` to the worker now: True if the broker took it, False (logged) if not,
    or if a publish failed less than BROKER_DOWN_SECONDS ago (then nothing is tried)."""
    global _down_until
    if time.monotonic() < _down_until:
        logger.warning("Broker down: %s%r not sent; the tick queues it again later.", task.name, args)
        return False
    try:
        task.delay(*args)
    except Exception:  # any broker or network error: the sweep that owns this work re-sends it
        _down_until = time.monotonic() + BROKER_DOWN_SECONDS
        logger.warning(
            "Could not hand %s%r to the worker (broker unreachable?); the tick queues it again later.",
            task.name,
            args,
            exc_info=True,
        )
        return False
    return True


def _send_forever(messages: queue.Queue) -> None:
    while True:
        task, args = messages.get()
        publish(task, *args)


def _background_queue() -> queue.Queue:
    global _sender
    with _sender_lock:
        if _sender is None or _sender[0] != os.getpid():
            messages: queue.Queue = queue.Queue(maxsize=BACKLOG)
            threading.Thread(target=_send_forever, args=(messages,), name="broker-publish", daemon=True).start()
            _sender = (os.getpid(), messages)
        return _sender[1]


def _hand_over(task, *args) -> None:
    if not settings.QUEUE_IN_BACKGROUND:
        publish(task, *args)
        return
    try:
        _background_queue().put_nowait((task, args))
    except queue.Full:
        logger.warning("Publish backlog full: %s%r not sent; the tick queues it again later.", task.name, args)


def enqueue(task, *args) -> None:
    """Send `task(*args)` to the worker once the current transaction commits (at once outside
    one); never raises, never waits for the broker. The caller's row must already record the
    work as due, for the tick's sweep to send it again if this message is lost."""
    transaction.on_commit(partial(_hand_over, task, *args))
