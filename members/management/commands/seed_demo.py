import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from core.audit import Actor, audit_log
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK, ROLE_LABELS, STAGE_DISPLAY
from members.demo import STAFF_PROPERTIES, seed_members, seed_staff_properties

DEMO_USERS = [
    ("desk", REWARDS_DESK, "Dineo", "Desk"),
    ("manager", PROMOTIONS_MANAGER, "Marietjie", "Manager"),
    ("cashier", CASH_DESK, "Kagiso", "Cashier"),
    ("auditor", AUDITOR, "Ashwin", "Auditor"),
    ("stage", STAGE_DISPLAY, "Stage", "Screen"),  # the big screen on draw night: follows draws only
    ("admin", None, "Admin", "Superuser"),
]


class Command(BaseCommand):
    help = "Load demo data (idempotent): properties, tiers, staff logins and synthetic members."

    def add_arguments(self, parser):
        parser.add_argument("--members", type=int, default=2000)

    def handle(self, *args, members: int, **options):
        password = self._demo_password()
        users = {}
        for username, role, first, last in DEMO_USERS:
            user, created = get_user_model().objects.get_or_create(
                username=username, defaults={"first_name": first, "last_name": last}
            )
            if created or not user.check_password(password):
                user.set_password(password)
            user.is_superuser = user.is_staff = role is None
            user.save()
            if role:
                user.groups.set([Group.objects.get(name=role)])
            users[username] = user
        seed_staff_properties(users, actor=Actor.system("seed_demo"))
        added = seed_members(count=members, recorder=users["manager"])
        if added:
            audit_log(actor=Actor.system("seed_demo"), action="demo.seeded", data={"members_added": added})
        self.stdout.write(f"Demo data ready ({added} members added).")
        self.stdout.write(f"Logins (password for all: {password}):")
        for username, role, *_ in DEMO_USERS:
            home = STAFF_PROPERTIES.get(username)
            where = f" at {home[0]}" + "".join(f", {code}" for code in home[1]) if home else ""
            self.stdout.write(f"  {username:<8} {ROLE_LABELS.get(role, 'Superuser (admin site)')}{where}")

    def _demo_password(self) -> str:
        # Generated once per checkout and kept under var/, so a re-run prints the same one.
        path = settings.VAR_DIR / "demo-password.txt"
        if path.exists():
            return path.read_text().strip()
        password = "demo-" + secrets.token_urlsafe(9)
        path.write_text(password + "\n")
        path.chmod(0o600)
        return password
