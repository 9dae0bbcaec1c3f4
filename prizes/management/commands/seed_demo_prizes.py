from django.core.management.base import BaseCommand

from prizes.demo import load_demo_prizes


class Command(BaseCommand):
    help = (
        "Add a demo copy of each seed with its draws played yesterday evening and their stage games "
        "(Royal Flush: a RAPS session carrying entries into its 21h30 cash draw), so the prize pages "
        "have lines on them (after seed_demo_draws; idempotent)."
    )

    def handle(self, *args, **options):
        added = load_demo_prizes()
        self.stdout.write(f"Demo prize games ready ({added.draws} draws played yesterday, {added.lines} prize lines).")
