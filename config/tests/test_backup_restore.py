"""Backups proven by a restore (issue 16, item 3): a populated test database is dumped with
scripts/db-backup, restored into a fresh database with scripts/db-restore, and the copy is shown
to hold: every complete draw verifies there (the script's own check, then again after a pick of
the copy is tampered with, which must fail), and the copy's protections came across (the audit
log's triggers, the app role's grants). The copy is dropped after."""

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
import time_machine
from django.conf import settings
from django.db import connection, transaction

from core.audit_seal import seal_due, verify_chain
from core.roles import PROMOTIONS_MANAGER
from draws.demo import load_demo_promotion
from draws.demo_runs import load_demo_runs
from draws.engine import draw_start, pick_outcome_record
from draws.models import Draw, DrawStatus, PickOutcome
from draws.tests.builders import MANAGER, closed_draw
from members.demo import seed_members
from promotions.tests.factories import make_series
from proxies.demo import load_demo_registers
from testing.db import server_url

# slow: the database stamps its events with its own clock, which --clock does not move, and the
# seal covers them two days back at any hour.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2025, 10, 16, 10, 0, tzinfo=SAST)
ENGINE_DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
APP_ROLE = settings.DB_APP_ROLE


def populate(user_for) -> None:
    """make run's demo (members, the demo promotion, four electronic draws completed yesterday
    through the engine with a no-show and redraws, tonight's draws with a proxy and a decline
    registered through the desk's services), and a draw of a second promotion run by the engine."""
    with time_machine.travel(NOW, tick=False):
        manager = user_for(PROMOTIONS_MANAGER, username="manager", properties=("GRC", "GH"))
        user_for("superuser", username="admin")
        seed_members(count=120, recorder=manager)
        load_demo_promotion(now=NOW)
        load_demo_runs(now=NOW)
        assert load_demo_registers(now=NOW).nominations
    with time_machine.travel(ENGINE_DRAW_AT + dt.timedelta(minutes=1), tick=False):
        series = make_series()
        series.winners_per_draw = 2
        series.save()
        draw, _ = closed_draw(series, ENGINE_DRAW_AT, [5, 9, 3, 7])
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
        while (draw := Draw.objects.get(pk=draw.pk)).status == DrawStatus.RUNNING:
            pick = draw.picks.get(outcome="")
            pick_outcome_record(
                actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
            )


def seal_the_past() -> int:
    """Moves every event of the populated database two days back (as the owner with the triggers
    off: the database stamps created_at itself) and seals every day up to yesterday, so the dump
    holds a chain of seals for the copy to check. Returns how many days were sealed."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE core_auditevent SET created_at = created_at - interval '2 days'")
        cursor.execute("SET LOCAL session_replication_role = origin")
    sealed = seal_due()
    assert sealed and verify_chain().ok
    return len(sealed)


def database_url(name: str) -> str:
    return server_url(connection.settings_dict, name)


def run(*argv: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture
def copy_name():
    """A name no other suite running side by side uses (TEST_DATABASE_NAME, the process id)."""
    name = f"{connection.settings_dict['NAME']}_copy_{os.getpid()}"[:61]
    yield name
    with psycopg.connect(database_url("postgres"), autocommit=True) as admin:
        for database in (name, f"{name}_x"):
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def test_a_backup_restored_into_a_fresh_database_verifies_and_keeps_its_protections(user_for, copy_name, tmp_path):
    populate(user_for)
    complete = Draw.objects.filter(status=DrawStatus.DRAWN).count()
    promotions = Draw.objects.filter(status=DrawStatus.DRAWN).values("series__promotion").distinct().count()
    assert complete == 5 and promotions == 2
    sealed_days = seal_the_past()
    env = {k: v for k, v in os.environ.items() if k != "MIGRATION_DATABASE_URL"}
    env |= {"DATABASE_URL": database_url(connection.settings_dict["NAME"]), "PYTHON": sys.executable}
    dump = tmp_path / "promodesk.dump"

    backup = run("scripts/db-backup", "--out", str(dump), env=env)
    assert backup.returncode == 0, backup.stderr
    assert dump.stat().st_size > 0 and Path(f"{dump}.sha256").read_text().split()[0] in backup.stdout
    assert not Path(f"{dump}.partial").exists()

    restore = run("scripts/db-restore", str(dump), copy_name, env=env)
    assert restore.returncode == 0, restore.stdout + restore.stderr
    assert "checksum holds" in restore.stdout
    assert f"{complete} complete draws" in restore.stdout
    assert f"Every complete draw's record holds: {complete} checked." in restore.stdout

    assert "checking the audit log's seals" in restore.stdout
    assert f"{sealed_days} sealed day" in restore.stdout

    again = run("scripts/db-restore", str(dump), copy_name, env=env)
    assert again.returncode == 2 and "exists and is not empty" in again.stderr
    damaged = tmp_path / "damaged.dump"
    data = bytearray(dump.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    Path(f"{damaged}.sha256").write_text(Path(f"{dump}.sha256").read_text().replace(dump.name, damaged.name))
    refused = run("scripts/db-restore", str(damaged), f"{copy_name}_x", env=env)
    assert refused.returncode == 2 and "the file is damaged" in refused.stderr

    with psycopg.connect(database_url(copy_name), autocommit=True) as copy:
        # The triggers came across: even the superuser cannot rewrite the audit log or a pick.
        with pytest.raises(psycopg.Error, match="the audit log is append-only"):
            copy.execute("UPDATE core_auditevent SET actor_label = 'someone else'")
        with pytest.raises(psycopg.Error, match="UPDATE refused on its picks"):
            copy.execute("UPDATE draws_drawpick SET serial = serial + 1")
        # The grants came across: the app role may only read and append to the audit log.
        with copy.transaction():
            copy.execute(f'SET LOCAL ROLE "{APP_ROLE}"')
            assert copy.execute("SELECT count(*) FROM core_auditevent").fetchone()[0] > 0
            with pytest.raises(psycopg.errors.InsufficientPrivilege), copy.transaction():
                copy.execute("TRUNCATE core_auditevent")
            with pytest.raises(psycopg.errors.InsufficientPrivilege), copy.transaction():
                copy.execute("CREATE TEMP TABLE core_auditevent (id int)")
        # A pick changed behind the triggers' back: the copy's records no longer verify.
        with copy.transaction():
            copy.execute("SET LOCAL session_replication_role = replica")
            copy.execute(
                "UPDATE draws_drawpick SET serial = CASE WHEN serial > 1 THEN serial - 1 ELSE serial + 1 END "
                "WHERE id = (SELECT min(p.id) FROM draws_drawpick p JOIN draws_draw d ON d.id = p.draw_id "
                "WHERE d.status = %s)",
                [DrawStatus.DRAWN],
            )

    verify = run(
        sys.executable,
        "manage.py",
        "verify_draw",
        "--all-complete",
        env=env | {"DATABASE_URL": database_url(copy_name)},
    )
    assert verify.returncode == 1, verify.stdout
    assert "DOES NOT HOLD" in verify.stdout and "do not hold (5 checked)" in verify.stderr

    # An audit event of a sealed day changed behind the triggers' back: the copy's chain breaks.
    with psycopg.connect(database_url(copy_name), autocommit=True) as copy, copy.transaction():
        copy.execute("SET LOCAL session_replication_role = replica")
        copy.execute(
            "UPDATE core_auditevent SET actor_label = 'someone else' WHERE id = (SELECT max(id) FROM core_auditevent)"
        )
    audit = run(sys.executable, "manage.py", "verify_audit", env=env | {"DATABASE_URL": database_url(copy_name)})
    assert audit.returncode == 1, audit.stdout
    assert "an event was changed" in audit.stdout + audit.stderr
