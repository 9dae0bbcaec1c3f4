from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from draws.commitments import draws_verify
from draws.models import Draw, DrawStatus
from draws.verification import verify_records


class Command(BaseCommand):
    help = (
        "Check draws' records pick by pick from their two files alone (DRAWS.md §6). With --dir, reads "
        "draw-<id>.json and draw-<id>-entries.csv from DIR; without, checks the files the export would write "
        "and holds their hashes against the commitments the database and the audit log kept. Several draws "
        "(or --promotion ID: all its started draws) are checked together: a redraw resting on a win in another "
        "of them is checked against its record. Exits 0 when every check holds, 1 otherwise (also while a "
        "seed is not revealed). --all-complete checks every complete draw, each promotion's together (the "
        "restore drill: scripts/db-restore)."
    )

    def add_arguments(self, parser):
        parser.add_argument("draw_ids", nargs="*", type=int, metavar="draw_id")
        parser.add_argument("--promotion", type=int, help="Check every started draw of this promotion together.")
        parser.add_argument("--dir", dest="directory", type=Path, help="Where the exported files are.")
        parser.add_argument(
            "--all-complete",
            action="store_true",
            help="Check every complete draw in the database, each promotion's draws together.",
        )

    def handle(
        self,
        *args,
        draw_ids: list[int],
        promotion: int | None,
        directory: Path | None,
        all_complete: bool = False,
        **options,
    ):
        if all_complete:
            if draw_ids or promotion is not None or directory is not None:
                raise CommandError(
                    "--all-complete checks the database's complete draws: name no draw, promotion or dir."
                )
            self._all_complete()
            return
        ids = list(draw_ids)
        if promotion is not None:
            ids += [
                pk
                for pk in Draw.objects.filter(series__promotion_id=promotion, started_at__isnull=False)
                .order_by("scheduled_at", "pk")
                .values_list("pk", flat=True)
                if pk not in ids
            ]
        if not ids:
            raise CommandError("Name a draw (or --promotion ID with started draws).")
        reports = self._reports(ids, directory)
        for number, (draw_id, report) in enumerate(zip(ids, reports, strict=True)):
            if len(ids) > 1:
                self.stdout.write(("\n" if number else "") + f"== Draw {draw_id}")
            for line in report.lines:
                self.stdout.write(str(line), self.style.SUCCESS if line.holds else self.style.ERROR)
            self.stdout.write(report.summary(), self.style.SUCCESS if report.holds else self.style.ERROR)
        failed = [draw_id for draw_id, report in zip(ids, reports, strict=True) if not report.holds]
        if len(ids) == 1 and failed:
            raise CommandError(reports[0].summary())
        if failed:
            raise CommandError(f"The records of draws {', '.join(map(str, failed))} do not hold.")

    def _all_complete(self) -> None:
        """Each promotion's complete draws together: a "period" win-once scope reaches every draw
        given, so draws of different promotions must not be checked as one set."""
        by_promotion: dict[int, list[Draw]] = {}
        for draw in (
            Draw.objects.filter(status=DrawStatus.DRAWN)
            .select_related("series")
            .order_by("series__promotion_id", "scheduled_at", "pk")
        ):
            by_promotion.setdefault(draw.series.promotion_id, []).append(draw)
        failed, checked = [], 0
        for draws in by_promotion.values():
            for draw, report in zip(draws, draws_verify(draws), strict=True):
                self.stdout.write(
                    ("\n" if checked else "") + f"== Draw {draw.pk} (promotion {draw.series.promotion_id})"
                )
                for line in report.lines:
                    self.stdout.write(str(line), self.style.SUCCESS if line.holds else self.style.ERROR)
                self.stdout.write(report.summary(), self.style.SUCCESS if report.holds else self.style.ERROR)
                checked += 1
                if not report.holds:
                    failed.append(draw.pk)
        if failed:
            raise CommandError(f"The records of draws {', '.join(map(str, failed))} do not hold ({checked} checked).")
        if not checked:
            self.stdout.write("There is no complete draw to check.")
            return
        self.stdout.write(f"Every complete draw's record holds: {checked} checked.", self.style.SUCCESS)

    def _reports(self, ids: list[int], directory: Path | None):
        if directory is not None:
            pairs = []
            for draw_id in ids:
                paths = (directory / f"draw-{draw_id}.json", directory / f"draw-{draw_id}-entries.csv")
                missing = [str(path) for path in paths if not path.is_file()]
                if missing:
                    raise CommandError(f"Missing: {', '.join(missing)}.")
                pairs.append((paths[0].read_bytes(), _file_chunks(paths[1])))
            return verify_records(pairs)
        draws = {draw.pk: draw for draw in Draw.objects.filter(pk__in=ids)}
        unknown = [str(draw_id) for draw_id in ids if draw_id not in draws]
        if unknown:
            raise CommandError(f"There is no draw {', '.join(unknown)}.")
        return draws_verify([draws[draw_id] for draw_id in ids])


def _file_chunks(path: Path):
    def read():
        with path.open("rb") as entries_file:
            yield from iter(lambda: entries_file.read(64 * 1024), b"")

    return read
