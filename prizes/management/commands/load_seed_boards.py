from django.core.management.base import BaseCommand

from core.audit import Actor
from prizes.seed_boards import load_seed_boards
from prizes.seed_progressives import load_seed_progressives


class Command(BaseCommand):
    help = "Create the seed promotions' prize boards and jackpots (after load_seed_promotions; idempotent)."

    def handle(self, *args, **options):
        actor = Actor.system("load_seed_boards")
        for code, added in load_seed_boards(actor=actor).items():
            self.stdout.write(f"{code}: {added} prize boards added")
        for code, added in load_seed_progressives(actor=actor).items():
            self.stdout.write(f"{code}: {added} jackpots added")
