"""The desk's side of members/tests/test_import_sqlite.py, run in processes of their own against
the zero-setup database of `make run` (SQLite under VAR_DIR; the caller sets the environment).

    python -m testing.sqlite_load seed FILE ROWS    # members and a desk user; a points file of ROWS rows
    python -m testing.sqlite_load desk FOLDER       # look a member up and beat the tick until FOLDER/stop

`desk` writes FOLDER/ready after its first round and FOLDER/desk.json at the end: every call with
its wall-clock start and duration, every error, the journal mode, and the import job's progress
as the desk saw it.
"""

import csv
import datetime as dt
import json
import os
import sys
import time
import traceback
from pathlib import Path

MEMBERS = 100
DESK_USER = "desk-under-load"
MAX_SECONDS = 120  # a desk left running by a failed test stops by itself


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def seed(file: Path, rows: int) -> None:
    from django.contrib.auth.models import Group

    from core.roles import REWARDS_DESK
    from members.cards import card_numbers_issue
    from members.demo import ensure_reference_data
    from members.identity import IdType
    from members.models import Member
    from members.tests.factories import UserFactory

    properties, tiers = ensure_reference_data()
    cards = card_numbers_issue(MEMBERS)
    Member.objects.bulk_create(
        Member(
            card_number=card,
            first_name="Load",
            last_name=f"Member{n}",
            search_name=f"load member{n}",
            id_type=IdType.PASSPORT,
            id_number=f"P{7000000 + n}",
            date_of_birth=dt.date(1980, 1, 1),
            tier=tiers[0],
            home_property=properties[0],
        )
        for n, card in enumerate(cards)
    )
    UserFactory(username=DESK_USER).groups.add(Group.objects.get(name=REWARDS_DESK))
    with file.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["card_number", "property", "earned_at", "points", "reference"])
        for n in range(rows):
            writer.writerow([cards[n % MEMBERS], properties[0].code, "2025-10-01 10:00:00", 1 + n % 9, f"SQ-{n:07d}"])


def desk(folder: Path) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from core.services import tick_run
    from members.models import ImportJob, Member

    client = Client()  # raises what the view raises: a "database is locked" is not hidden as a 500
    client.force_login(get_user_model().objects.get(username=DESK_USER))
    card = Member.objects.order_by("pk").values_list("card_number", flat=True).first()
    lookup = f"{reverse('members:lookup')}?q={card}"
    calls: list[dict] = []
    errors: list[str] = []
    progress: list[list] = []

    def timed(kind: str, call) -> None:
        started, clock = time.time(), time.monotonic()
        try:
            outcome = call()
        except Exception:
            outcome = "error"
            errors.append(f"{kind}: {traceback.format_exc()}")
        calls.append({"kind": kind, "at": started, "seconds": time.monotonic() - clock, "outcome": outcome})

    deadline = time.monotonic() + MAX_SECONDS
    while not (folder / "stop").exists() and time.monotonic() < deadline:
        timed("lookup", lambda: client.get(lookup).status_code)
        timed("tick", lambda: tick_run().ticks)
        job = ImportJob.objects.values("status", "heartbeat_at").first()
        if job:
            progress.append([job["status"], job["heartbeat_at"] and job["heartbeat_at"].isoformat()])
        (folder / "ready").touch()
        time.sleep(0.02)
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        journal_mode = cursor.fetchone()[0]
    report = {"calls": calls, "errors": errors, "journal_mode": journal_mode, "progress": progress}
    (folder / "desk.json").write_text(json.dumps(report))


if __name__ == "__main__":
    _setup()
    command, *args = sys.argv[1:]
    if command == "seed":
        seed(Path(args[0]), int(args[1]))
    elif command == "desk":
        desk(Path(args[0]))
    else:
        sys.exit(f"unknown command {command!r}")
