from pathlib import Path

from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from core.audit import Actor
from members.services import import_job_create, import_job_run


class ImportCommand(BaseCommand):
    """Import a CSV file now, in this process, with the same rules as the upload page."""

    kind = ""

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        if not file.is_file():
            raise CommandError(f"No such file: {file}")
        actor = Actor.system(f"import_{self.kind}")
        with file.open("rb") as handle:
            job = import_job_create(actor=actor, kind=self.kind, file=File(handle, name=file.name), name=file.name)
        job = import_job_run(job_id=job.pk, actor=actor)
        if job.message:
            for error in job.row_errors.iterator():
                self.stderr.write(f"line {error.line}: {error.message}")
            raise CommandError(f"{file.name}: {job.message}")
        skipped = f"; {job.rows_skipped} already imported were skipped" if job.rows_skipped else ""
        self.stdout.write(f"Imported {job.rows_imported} of {job.rows_total} rows from {file.name}{skipped}.")
