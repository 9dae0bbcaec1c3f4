from django.core.management.base import BaseCommand

from core.audit import Actor
from draws.models import Draw
from draws.seeds import load_seed_promotions


class Command(BaseCommand):
    help = "Create the five seed promotions with every draw series, rule and draw (idempotent)."

    def handle(self, *args, **options):
        for promotion, added in load_seed_promotions(actor=Actor.system("load_seed_promotions")):
            draws = Draw.objects.filter(series__promotion=promotion).count()
            self.stdout.write(f"{promotion.name}: {promotion.series.count()} series, {draws} draws ({added} added)")
