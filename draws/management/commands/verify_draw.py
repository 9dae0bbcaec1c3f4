from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from draws.commitments import draw_verify
from draws.models import Draw
from draws.verification import verify_record


class Command(BaseCommand):
    help = (
        "Check a draw's record pick by pick from its two files alone (DRAWS.md §6). With --dir, reads "
        "draw-<id>.json and draw-<id>-entries.csv from DIR; without, checks the files the export would write "
        "and holds their hashes against the commitments the database and the audit log kept. "
        "Exits 0 when every check holds, 1 otherwise (also while the seed is not revealed)."
    )

    def add_arguments(self, parser):
        parser.add_argument("draw_id", type=int)
        parser.add_argument("--dir", dest="directory", type=Path, help="Where the exported files are.")

    def handle(self, *args, draw_id: int, directory: Path | None, **options):
        report = self._report(draw_id, directory)
        for line in report.lines:
            self.stdout.write(str(line), self.style.SUCCESS if line.holds else self.style.ERROR)
        if not report.holds:
            raise CommandError(report.summary())
        self.stdout.write(self.style.SUCCESS(report.summary()))

    def _report(self, draw_id: int, directory: Path | None):
        if directory is not None:
            paths = (directory / f"draw-{draw_id}.json", directory / f"draw-{draw_id}-entries.csv")
            missing = [str(path) for path in paths if not path.is_file()]
            if missing:
                raise CommandError(f"Missing: {', '.join(missing)}.")
            return verify_record(paths[0].read_bytes(), paths[1].read_bytes())
        draw = Draw.objects.filter(pk=draw_id).first()
        if draw is None:
            raise CommandError(f"There is no draw {draw_id}.")
        return draw_verify(draw)
