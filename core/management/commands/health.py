"""`manage.py health [--only tick,...]`: /healthz's report, printed; exit 0 when healthy, 1 if not.

For healthchecks of processes that serve no HTTP (compose's beat: `--only tick`)."""

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from core import health


class Command(BaseCommand):
    help = "Check the database, the Celery broker and the beat tick; exit 1 if any is unhealthy."

    def add_arguments(self, parser):
        parser.add_argument("--only", default=",".join(health.CHECKS), help="comma-separated: database,broker,tick")

    def handle(self, *args, only: str, **options):
        checks = tuple(name.strip() for name in only.split(",") if name.strip())
        unknown = sorted(set(checks) - set(health.CHECKS))
        if unknown or not checks:
            raise CommandError(f"--only takes {', '.join(health.CHECKS)}; got {only!r}")
        body = health.report(only=checks)
        self.stdout.write(json.dumps(body))
        if body["status"] != "ok":
            sys.exit(1)
