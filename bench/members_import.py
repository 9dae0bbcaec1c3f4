"""A members file through the manager's import path, against the database's own floor (issue 17, item 3).

    .venv/bin/python bench/members_import.py [--rows 100000] [--rounds 3] [--profile]
        [--database-url postgres://postgres@127.0.0.1:5432/promodesk_importbench]

Generates one CSV of `--rows` new members (valid SA ID numbers, every 40th a passport with its
date of birth, phones typed the ways the desk types them, e-mails, app registration dates),
then, in interleaved rounds:

* **project**: `members.services.import_job_create` (stores the upload) then `import_job_run`
  (what the Celery task runs: read, check, stage, apply, audit), exactly as after the
  manager's upload, minus HTTP and the broker; rows/s over `import_job_run`;
* **floor**: the database alone on the same file and table: COPY of the file into a temporary
  text table and one `INSERT … SELECT` into members_member (tier and property joined by code,
  an SA ID's birth date taken from its digits, nothing else checked).

Both insert the same 100,000 members with every index of members_member in place (card,
ID number, the trigram name index, ...); each round deletes them afterwards, so the script
reruns on the same database. Prints rows/s, the ratio floor/project and the machine's load, and
the CPU seconds each side spent in this process and in its PostgreSQL backend (read from
/proc when the server runs on this machine): on a shared machine they move less than the wall
time.
Nothing asserts a time. The database is created and migrated if missing (it then holds no
other member: pass a copy of bench/fill.py's 1,000,000-member database for the real figure).
`--profile` runs the project path once more under cProfile and prints the top functions.
"""

import argparse
import cProfile
import csv
import datetime as dt
import io
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from bench_names import FIRST_NAMES, SURNAMES  # noqa: E402
from drawbench import create_database, load_average, migrate, setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_importbench"
# Card bodies far above what members.cards issues (from 100,000,000): no clash with a filled database.
CARD_BASE = 800_000_000
PASSPORT_EVERY = 40

FLOOR_SQL = """
INSERT INTO members_member (card_number, first_name, last_name, search_name, id_type, id_number,
    date_of_birth, phone, email, tier_id, home_property_id, app_registered_on, playing_now, created_at)
SELECT s.card_number, s.first_name, s.last_name, lower(s.first_name || ' ' || s.last_name), s.id_type,
       s.id_number,
       COALESCE(NULLIF(s.date_of_birth, '')::date,
                make_date(CASE WHEN left(s.id_number, 2)::int > %(yy)s THEN 1900 ELSE 2000 END
                          + left(s.id_number, 2)::int,
                          substr(s.id_number, 3, 2)::int, substr(s.id_number, 5, 2)::int)),
       s.phone, s.email, t.id, p.id, NULLIF(s.app_registered_on, '')::date, false, now()
FROM bench_members_file s
JOIN members_tier t ON lower(t.name) = lower(s.tier)
JOIN members_property p ON p.code = s.property
"""


def luhn_digit(body: str) -> str:
    total = 0
    for position, char in enumerate(reversed(body)):
        digit = int(char)
        if position % 2 == 0:  # doubled: the check digit will stand to its right
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return str((10 - total % 10) % 10)


def sa_id(born: dt.date, rng: random.Random) -> str:
    body = f"{born:%y%m%d}{rng.randrange(10000):04d}{rng.choice('01')}8"
    return body + luhn_digit(body)


def phone(rng: random.Random) -> str:
    digits = f"{rng.choice('678')}{rng.randrange(10**8):08d}"
    style = rng.randrange(4)
    if style == 0:
        return f"0{digits[:2]} {digits[2:5]} {digits[5:]}"
    if style == 1:
        return f"+27 {digits[:2]} {digits[2:5]} {digits[5:]}"
    if style == 2:
        return f"0{digits}"
    return ""


def write_file(path: Path, rows: int, taken_ids: set[str], tiers: list[str], properties: list[str]) -> list[str]:
    """The members file; returns its card numbers (to delete the members afterwards)."""
    from members.imports import MEMBER_COLUMNS

    rng = random.Random(2026)
    today = dt.date.today()
    cards, used = [], set(taken_ids)
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(MEMBER_COLUMNS)  # the import's own header
        for index in range(rows):
            body = str(CARD_BASE + index)
            card = body + luhn_digit(body)
            first, last = rng.choice(FIRST_NAMES), rng.choice(SURNAMES)
            born = today - dt.timedelta(days=rng.randrange(18 * 365 + 5, 85 * 365))
            if index % PASSPORT_EVERY == 3:
                id_type, number, birth = "passport", f"Q{CARD_BASE + index}", born.isoformat()
            else:
                id_type, number, birth = "sa_id", sa_id(born, rng), ""
                while number in used:
                    number = sa_id(born, rng)
            used.add(number)
            email = f"{first}.{last}{index}@example.co.za".lower().replace(" ", "") if index % 3 else ""
            registered = (today - dt.timedelta(days=rng.randrange(1, 900))).isoformat() if index % 5 == 1 else ""
            tier, home = rng.choice(tiers), rng.choice(properties)
            out.writerow([card, first, last, id_type, number, birth, tier, home, phone(rng), email, registered])
            cards.append(card)
    return cards


def delete_members(cards: list[str]) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM members_member WHERE card_number = ANY(%s)", [cards])
        deleted = cursor.rowcount
        # Else the next round inserts the same card and ID numbers over their dead versions, which
        # each unique check visits (autovacuum may be off, or not yet there): every round slower.
        cursor.execute("VACUUM members_member")
        return deleted


def backend_cpu() -> float | None:
    """CPU seconds of this connection's PostgreSQL backend so far (None if not on this machine)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Cpu:
    """CPU seconds of this process and of its backend over a block."""

    def __enter__(self):
        self.python, self.backend = time.process_time(), backend_cpu()
        return self

    def __exit__(self, *exc):
        backend = backend_cpu()
        self.python = time.process_time() - self.python
        self.backend = None if backend is None or self.backend is None else backend - self.backend

    def __str__(self) -> str:
        backend = "?" if self.backend is None else f"{self.backend:.2f}"
        return f"cpu: python {self.python:.2f} s + backend {backend} s"


def run_project(path: Path, actor, rows: int) -> tuple[float, float, object]:
    """(seconds to store the upload, seconds of import_job_run, the job)."""
    from django.core.files import File

    from members.services import import_job_create, import_job_run

    started = time.perf_counter()
    with path.open("rb") as handle:
        job = import_job_create(actor=actor, kind="members", file=File(handle, name=path.name), name=path.name)
    stored = time.perf_counter()
    with Cpu() as cpu:
        job = import_job_run(job_id=job.pk, actor=actor)
    finished = time.perf_counter()
    run_project.cpu = cpu
    if job.status != "succeeded" or job.rows_imported != rows:
        first = list(job.row_errors.order_by("line")[:5].values_list("line", "message"))
        raise SystemExit(f"import #{job.pk} {job.status}: {job.message} {first}")
    return stored - started, finished - stored, job


def run_floor(path: Path) -> float:
    from django.db import connection, transaction

    yy = dt.date.today().year % 100
    started = time.perf_counter()
    with Cpu() as cpu, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE bench_members_file (card_number text, first_name text, last_name text,"
            " id_type text, id_number text, date_of_birth text, tier text, property text, phone text,"
            " email text, app_registered_on text) ON COMMIT DROP"
        )
        with (
            path.open("rb") as handle,
            cursor.cursor.copy(
                "COPY bench_members_file FROM STDIN WITH (FORMAT csv, HEADER true,"
                " FORCE_NOT_NULL (date_of_birth, phone, email, app_registered_on))"
            ) as copy,
        ):
            while block := handle.read(1 << 20):
                copy.write(block)
        cursor.execute(FLOOR_SQL, {"yy": yy})
    run_floor.cpu = cpu
    return time.perf_counter() - started


def job_cleanup(job) -> None:
    from django.db import connection

    job.file.delete(save=False)
    job.delete()
    with connection.cursor() as cursor:  # what the job staged and deleted: dead rows every scan reads
        cursor.execute("VACUUM members_importstagedmember, members_importstagedmembertext")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="one more project run under cProfile")
    parser.add_argument("--database-url", default=DEFAULT_URL)
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # each round's line as it comes, also into a file

    media = tempfile.TemporaryDirectory(prefix="members-import-bench-")
    os.environ["MEDIA_ROOT"] = media.name
    create_database(args.database_url)
    migrate(args.database_url)
    setup_django(args.database_url)

    from django.contrib.auth import get_user_model
    from django.db import connection

    from core.audit import Actor
    from members.demo import ensure_reference_data
    from members.models import Member

    properties, tiers = ensure_reference_data()
    user, _ = get_user_model().objects.get_or_create(username="bench-importer", defaults={"is_staff": True})
    actor = Actor.for_user(user)
    existing = Member.objects.count()
    print(f"database: {connection.settings_dict['NAME']}, {existing:,} members before; load {load_average()}")

    path = Path(media.name) / "members.csv"
    started = time.perf_counter()
    # Only SA ID numbers could clash with the database's (the passports and cards are out of its ranges).
    with connection.cursor() as cursor:
        cursor.execute("SELECT id_number FROM members_member WHERE id_type = 'sa_id'")
        taken = {number for (number,) in cursor.fetchall()}
    cards = write_file(path, args.rows, taken, [t.name for t in tiers], [p.code for p in properties])
    del taken
    size = path.stat().st_size
    print(f"file: {args.rows:,} rows, {size / 2**20:.1f} MiB, written in {time.perf_counter() - started:.1f} s")
    stale = delete_members(cards)
    if stale:
        print(f"deleted {stale:,} members left by an interrupted run")

    floor, project, stored = [], [], []
    floor_cpu, project_cpu = [], []  # python + backend seconds, when the backend's are known
    for round_no in range(1, args.rounds + 1):
        seconds = run_floor(path)
        delete_members(cards)
        floor.append(seconds)
        if run_floor.cpu.backend is not None:
            floor_cpu.append(run_floor.cpu.python + run_floor.cpu.backend)
        print(f"round {round_no}: floor   {seconds:7.2f} s  {args.rows / seconds:>9,.0f} rows/s  ({run_floor.cpu})")
        store, seconds, job = run_project(path, actor, args.rows)
        delete_members(cards)
        job_cleanup(job)
        project.append(seconds)
        if run_project.cpu.backend is not None:
            project_cpu.append(run_project.cpu.python + run_project.cpu.backend)
        stored.append(store)
        print(
            f"round {round_no}: project {seconds:7.2f} s  {args.rows / seconds:>9,.0f} rows/s"
            f"  (storing the upload before it: {store:.2f} s)  floor/project {floor[-1] / seconds:.2f}"
            f"  ({run_project.cpu})"
        )
    floor_s, project_s = statistics.median(floor), statistics.median(project)
    print(f"load after: {load_average()}")
    print(f"members import (project): {args.rows / project_s:,.0f} rows/s (median of {args.rounds})")
    print(f"members import (floor, COPY + INSERT ... SELECT): {args.rows / floor_s:,.0f} rows/s")
    print(f"ratio project/floor time: {project_s / floor_s:.2f}x")
    if floor_cpu and project_cpu:
        floor_c, project_c = statistics.median(floor_cpu), statistics.median(project_cpu)
        print(
            f"CPU seconds (python + backend, median): project {project_c:.2f} s ({args.rows / project_c:,.0f} rows"
            f" a CPU second), floor {floor_c:.2f} s ({args.rows / floor_c:,.0f}); ratio {project_c / floor_c:.2f}x"
        )

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        _, seconds, job = run_project(path, actor, args.rows)
        profiler.disable()
        delete_members(cards)
        job_cleanup(job)
        print(f"profiled run: {seconds:.2f} s")
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        stats.sort_stats("tottime").print_stats(15)
        stats.sort_stats("cumulative").print_stats("members/|core/", 30)
        print(text.getvalue())
    media.cleanup()


if __name__ == "__main__":
    main()
