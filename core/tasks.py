from celery import shared_task

from core.services import tick_run
from draws.services import draws_close_due


@shared_task(name="core.tasks.tick", ignore_result=True)
def tick() -> None:
    """Every TICK_SECONDS: record the heartbeat, then do whatever the clock has made due."""
    tick_run()
    draws_close_due()
