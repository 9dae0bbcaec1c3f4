from celery import shared_task

from draws.services import draw_standing_refresh


@shared_task(name="draws.tasks.draw_standing_refresh")
def draw_standing_refresh_task(draw_id: int) -> None:
    """Recount one draw's standing for its page (idempotent: the last count wins)."""
    draw_standing_refresh(draw_id=draw_id)
