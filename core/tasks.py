from celery import shared_task

from core.services import tick_run
from draws.services import draws_close_due
from members.services import import_jobs_fail_stale


@shared_task(name="core.tasks.tick", ignore_result=True)
def tick() -> None:
    """Every TICK_SECONDS: record the heartbeat, then do whatever the clock has made due."""
    tick_run()
    draws_close_due()
    import_jobs_fail_stale()
