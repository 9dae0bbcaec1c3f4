from django.core.management.base import BaseCommand

from draws.demo import load_demo_promotion
from draws.demo_runs import load_demo_runs


class Command(BaseCommand):
    help = (
        "Add the demo promotion's draws around today (a window open now, draws today and tomorrow), "
        "and at each property a draw completed yesterday and a closed one waiting for Start."
    )

    def handle(self, *args, **options):
        added = load_demo_promotion()
        runs = load_demo_runs()
        self.stdout.write(
            f"Demo draws ready ({added} added; {runs.completed} completed yesterday and "
            f"{runs.waiting} waiting for Start added)."
        )
