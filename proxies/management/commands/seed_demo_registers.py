from django.core.management.base import BaseCommand

from proxies.demo import load_demo_registers


class Command(BaseCommand):
    help = (
        "Register, through the desk's services, a proxy and a decline among the entrants of each demo draw "
        "waiting for Start this evening (run after seed_demo_draws), so draw night can be run end to end."
    )

    def handle(self, *args, **options):
        added = load_demo_registers()
        self.stdout.write(
            f"Demo registers ready ({added.nominations} proxy nominations and {added.declines} declines added)."
        )
        for note in added.notes:
            self.stdout.write(f"  Not registered: {note}")
