import datetime as dt

from django.core.management.base import BaseCommand, CommandError

from core.audit_seal import verify_chain


def _day(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError as error:
        raise CommandError(f"--from takes a day as YYYY-MM-DD, not {text!r}.") from error


class Command(BaseCommand):
    help = (
        "Recompute the sealed audit log's chain (docs/audit-seal.md) from the events, day by day, streaming: "
        "each sealed day's count, ids and digest and each link to the day before. Names the first day that "
        "does not match. Exits 0 with a one-line summary when every day holds, 1 otherwise."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="from_day", metavar="DATE", help="Start at this day (YYYY-MM-DD).")

    def handle(self, *args, from_day: str | None, **options):
        result = verify_chain(from_day=_day(from_day) if from_day else None)
        if not result.ok:
            raise CommandError(result.message)
        self.stdout.write(result.message, self.style.SUCCESS)
