from celery import shared_task

from core.audit import Actor
from members.models import ImportJob
from members.services import import_job_run


@shared_task(name="members.tasks.import_job_run")
def import_job_run_task(job_id: int) -> None:
    job = ImportJob.objects.select_related("created_by").get(pk=job_id)
    actor = Actor.for_user(job.created_by) if job.created_by else Actor.system("import")
    import_job_run(job_id=job_id, actor=actor)
