from celery import shared_task

from core.services import tick_run


@shared_task(name="core.tasks.tick", ignore_result=True)
def tick() -> None:
    tick_run()
