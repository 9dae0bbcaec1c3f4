from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from draws.models import Draw
from draws.record import entries_chunks, record_file_names, record_json


class Command(BaseCommand):
    help = (
        "Write a draw's record (DRAWS.md §6, format 2): draw-<id>.json and draw-<id>-entries.csv in DIR; "
        "prints their paths. The entry list is written in chunks (bounded memory)."
    )

    def add_arguments(self, parser):
        parser.add_argument("draw_id", type=int)
        parser.add_argument("--out", required=True, type=Path, help="The directory to write to (created if missing).")

    def handle(self, *args, draw_id: int, out: Path, **options):
        draw = Draw.objects.filter(pk=draw_id).first()
        if draw is None:
            raise CommandError(f"There is no draw {draw_id}.")
        names = record_file_names(draw)
        out.mkdir(parents=True, exist_ok=True)
        json_path = out / names.json_name
        json_path.write_bytes(record_json(draw))
        self.stdout.write(str(json_path))
        entries_path = out / names.entries_name
        with entries_path.open("wb") as entries_file:
            for chunk in entries_chunks(draw):
                entries_file.write(chunk)
        self.stdout.write(str(entries_path))
