from django.core.management.base import BaseCommand

from draws.demo import load_demo_promotion


class Command(BaseCommand):
    help = "Add the demo promotion's draws around today (a window open now, draws today and tomorrow)."

    def handle(self, *args, **options):
        added = load_demo_promotion()
        self.stdout.write(f"Demo draws ready ({added} added).")
