from celery import shared_task

from records.packs import pack_build


@shared_task(name="records.tasks.record_pack_build")
def record_pack_build(pack_id: int) -> bool:
    """Build one record pack (idempotent: a pack already claimed or done is left as it is, so a
    task delivered twice builds once)."""
    return pack_build(pack_id=pack_id)
