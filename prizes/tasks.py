from celery import shared_task

from prizes.letter_pdf import letter_render as letter_render_service


@shared_task(name="prizes.tasks.letter_render")
def letter_render(letter_id: int) -> bool:
    """Render one prize letter's PDF and store it (idempotent: a letter already claimed or ready
    is left as it is, so a task delivered twice renders once)."""
    return letter_render_service(letter_id=letter_id)
