"""The beat tick: the one periodic task. It sits here, above the apps, because it calls into
several of them; each app's due work is a service that finds its own due rows."""

import logging
from collections.abc import Callable

from celery import shared_task

from core.audit_seal import seal_due
from core.services import tick_run
from draws.engine import draws_start_due
from draws.services import draw_standings_refresh_due, draws_close_due
from members.services import import_files_purge, import_jobs_fail_stale, import_jobs_requeue_lost
from prizes.letter_pdf import letters_render_stale
from prizes.letter_services import letters_expire
from records.packs import packs_due

logger = logging.getLogger(__name__)

# (what it does, the service that does it). Each step finds its due rows in the database, so a
# step skipped by one tick is done by the next.
TICK_STEPS: list[tuple[str, Callable[[], object]]] = [
    ("record the heartbeat", tick_run),
    ("close due draws", draws_close_due),
    ("start due electronic draws", draws_start_due),
    ("fail abandoned imports", import_jobs_fail_stale),
    ("send queued imports again whose message was lost", import_jobs_requeue_lost),
    ("recount draw standings", draw_standings_refresh_due),
    ("delete old rejected uploads", import_files_purge),
    ("expire uncollected prize letters", letters_expire),
    ("queue lost prize letter renders again", letters_render_stale),
    ("build finished promotions' record packs", packs_due),
    # Last: the other steps' events of today are not its concern, and it never waits for a lock.
    ("seal yesterday's audit log", seal_due),
]


@shared_task(name="config.tasks.tick", ignore_result=True)
def tick() -> list[str]:
    """Every TICK_SECONDS: record the heartbeat, then do whatever the clock has made due. One
    failing step is logged and the others still run; the names of the failed steps are returned."""
    failed = []
    for name, step in TICK_STEPS:
        try:
            step()
        except Exception:
            logger.exception("Tick step %r failed; the next tick tries again.", name)
            failed.append(name)
    return failed
