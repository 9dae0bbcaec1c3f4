from django.core.management.base import BaseCommand

from core.audit import Actor
from prizes.seed_boards import load_seed_boards


class Command(BaseCommand):
    help = "Create the seed promotions' prize boards (after load_seed_promotions; idempotent)."

    def handle(self, *args, **options):
        for code, added in load_seed_boards(actor=Actor.system("load_seed_boards")).items():
            self.stdout.write(f"{code}: {added} prize boards added")
