from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from draws.models import Draw
from draws.record import draw_record_files


class Command(BaseCommand):
    help = "Write a draw's record (DRAWS.md §6): draw-<id>.json and draw-<id>-entries.csv in DIR; prints their paths."

    def add_arguments(self, parser):
        parser.add_argument("draw_id", type=int)
        parser.add_argument("--out", required=True, type=Path, help="The directory to write to (created if missing).")

    def handle(self, *args, draw_id: int, out: Path, **options):
        draw = Draw.objects.filter(pk=draw_id).first()
        if draw is None:
            raise CommandError(f"There is no draw {draw_id}.")
        files = draw_record_files(draw)
        out.mkdir(parents=True, exist_ok=True)
        for name, data in ((files.json_name, files.json), (files.entries_name, files.entries)):
            path = out / name
            path.write_bytes(data)
            self.stdout.write(str(path))
