"""Points import into the ledger (issue 17, item 3): a points file (CSV) through the project's
import, against the database's own floor for the same schema, in the same rounds.

Generates a file of --rows rows for random bench members at one property (fresh references
every round, so nothing is skipped), then times, in rotated order each round:

  project  import_job_create + import_job_run: what a manager's upload runs in the worker (the
           task's body, minus the HTTP upload and Celery's hand-over), end to end: reading,
           checking, staging, the final INSERT, the job's outcome and its audit event;
  floor    the database's own floor for the same job on the same schema: COPY of the file into
           a staging table, then one INSERT ... SELECT into the ledger (card numbers and property
           codes resolved by joins; a plain INSERT, as the project's first try) and COMMIT;
  bare     COPY of the same file into an unindexed table (no ledger at all).

Each round deletes what it inserted, so the script can be run again on the same database.
Prints rows/s of each, their medians and the ratios project/floor (target <= 1.5) and
project/bare. No time is asserted.

    .venv/bin/python bench/points_import.py --database-url postgres://postgres@127.0.0.1:5432/promodesk_bench_x
    .venv/bin/python bench/points_import.py --rows 200000 --rounds 3
"""

import argparse
import datetime as dt
import io
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import drawbench

BENCH_USER = "bench-points-importer"


def make_file(cards: list[str], code: str, rows: int, tag: str, now: dt.datetime) -> bytes:
    """A points file as the casino management system writes it: local times, no quotes."""
    rnd = random.Random(tag)
    lines = ["card_number,property,earned_at,points,reference"]
    for i in range(rows):
        at = now - dt.timedelta(seconds=rnd.randrange(60, 30 * 86400))
        lines.append(f"{rnd.choice(cards)},{code},{at:%Y-%m-%d %H:%M:%S},{rnd.randrange(1, 500)},PB-{tag}-{i:07d}")
    return ("\r\n".join(lines) + "\r\n").encode()


def run_project(data: bytes, tag: str, actor) -> tuple[float, int, int]:
    from django.core.files.base import ContentFile

    from members.services import import_job_create, import_job_run

    job = import_job_create(actor=actor, kind="points", file=ContentFile(data), name=f"bench-{tag}.csv")
    started = time.perf_counter()
    job = import_job_run(job_id=job.pk, actor=actor)
    seconds = time.perf_counter() - started
    if not job.succeeded:
        raise SystemExit(f"project import #{job.pk} failed: {job.message}")
    return seconds, job.rows_imported, job.pk


def run_floor(conn, data: bytes, job_id: int, tz: str) -> tuple[float, int]:
    started = time.perf_counter()
    with conn.transaction():
        conn.execute("SELECT set_config('work_mem', '64MB', true)")  # as the project's statement has
        conn.execute(
            "CREATE TEMP TABLE floor_stage (card_number text, property text, earned_at timestamp,"
            " points integer, reference text) ON COMMIT DROP"
        )
        with conn.cursor().copy("COPY floor_stage FROM STDIN (FORMAT csv, HEADER)") as copy:
            copy.write(data)
        inserted = conn.execute(
            "INSERT INTO members_pointsentry (member_id, property_id, earned_at, points, reference, import_job_id)"
            " SELECT m.id, p.id, s.earned_at AT TIME ZONE %s, s.points, s.reference, %s"
            " FROM floor_stage s JOIN members_member m ON m.card_number = s.card_number"
            " JOIN members_property p ON p.code = s.property"
            # The project's order (points_member_idx's). A plain INSERT: no check that a reference
            # is new (the project's statement anti-joins the ledger's references in the file's
            # range, and checks for a reference twice in the file). On the partitioned ledger the
            # file's months are partitions already (members migration 0018 made them, to the next).
            " ORDER BY m.id, s.earned_at",
            (tz, job_id),
        ).rowcount
    return time.perf_counter() - started, inserted


def run_bare(conn, data: bytes) -> tuple[float, int]:
    started = time.perf_counter()
    with conn.transaction():
        conn.execute(
            "CREATE TEMP TABLE bare_copy (card_number text, property text, earned_at timestamp,"
            " points integer, reference text) ON COMMIT DROP"
        )
        with conn.cursor().copy("COPY bare_copy FROM STDIN (FORMAT csv, HEADER)") as copy:
            copy.write(data)
        rows = conn.execute("SELECT count(*) FROM bare_copy").fetchone()[0]
    return time.perf_counter() - started, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", drawbench.DEFAULT_URL))
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--property", default=drawbench.BENCH_PROPERTY)
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc run of the project path")
    args = parser.parse_args()

    drawbench.migrate(args.database_url)
    drawbench.setup_django(args.database_url)
    import psycopg
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection

    from core.audit import Actor
    from members.models import ImportJob, Member, Property

    user = get_user_model().objects.filter(username=BENCH_USER).first()
    if user is None:
        user = get_user_model().objects.create_superuser(BENCH_USER, password=None)
    actor = Actor.for_user(user)
    prop = Property.objects.get(code=args.property)
    ledger = connection.cursor()
    ledger.execute("SELECT count(*) FROM members_pointsentry")
    ledger_rows = ledger.fetchone()[0]
    members = Member.objects.count()
    cards = list(Member.objects.order_by("?").values_list("card_number", flat=True)[: min(members, 100_000)])
    now = dt.datetime.now(dt.UTC).astimezone(dt.timezone(dt.timedelta(hours=2)))
    floor_job = ImportJob.objects.create(kind="points", original_name="bench floor (bench/points_import.py)")
    print(f"ledger: {ledger_rows:,} points rows, {members:,} members; file: {args.rows:,} rows at {prop.code}")
    print(f"load: {drawbench.load_average()}")

    conn = psycopg.connect(args.database_url)
    results: dict[str, list[float]] = {"project": [], "floor": [], "bare": []}
    run_tag = f"{time.time_ns() % 10**10:010d}"
    order = ["project", "floor", "bare"]
    try:
        for number in range(1, args.rounds + 1):
            for name in order:
                tag = f"{run_tag}-{number}-{name}"
                data = make_file(cards, prop.code, args.rows, tag, now)
                if name == "project":
                    seconds, rows, job_id = run_project(data, tag, actor)
                    with connection.cursor() as cursor:
                        cursor.execute("DELETE FROM members_pointsentry WHERE import_job_id = %s", [job_id])
                    ImportJob.objects.get(pk=job_id).file.delete(save=False)
                elif name == "floor":
                    seconds, rows = run_floor(conn, data, floor_job.pk, settings.TIME_ZONE)
                    with conn.transaction():
                        conn.execute(
                            "DELETE FROM members_pointsentry WHERE import_job_id = %s AND reference LIKE %s",
                            (floor_job.pk, f"PB-{tag}-%"),
                        )
                else:
                    seconds, rows = run_bare(conn, data)
                # Autovacuum is off on this machine: without this each round met the dead rows of
                # the ones before (the ledger's and the staging table's), more with every run.
                with psycopg.connect(args.database_url, autocommit=True) as vacuum:
                    vacuum.execute("VACUUM members_pointsentry")
                    vacuum.execute("VACUUM members_importstagedpoints")
                if rows != args.rows:
                    raise SystemExit(f"{name}: {rows:,} rows written, expected {args.rows:,}")
                results[name].append(seconds)
                print(f"round {number} {name:8} {seconds:7.2f} s  {args.rows / seconds:>10,.0f} rows/s")
            order = order[1:] + order[:1]
        if not args.no_memory:
            tag = f"{run_tag}-memory"
            data = make_file(cards, prop.code, args.rows, tag, now)
            tracemalloc.start()
            _, _, job_id = run_project(io.BytesIO(data).getvalue(), tag, actor)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            with connection.cursor() as cursor:
                cursor.execute("DELETE FROM members_pointsentry WHERE import_job_id = %s", [job_id])
            ImportJob.objects.get(pk=job_id).file.delete(save=False)
            mib = len(data) / 2**20
            print(f"project peak Python memory (tracemalloc, file of {mib:.1f} MiB): {peak / 2**20:.1f} MiB")
    finally:
        conn.close()
        floor_job.delete()

    medians = {name: statistics.median(values) for name, values in results.items()}
    print(f"\nmedian of {args.rounds} rounds, {args.rows:,} rows into a {ledger_rows:,}-row ledger")
    for name in ("project", "floor", "bare"):
        print(f"  {name:8} {medians[name]:7.2f} s  {args.rows / medians[name]:>10,.0f} rows/s")
    print(f"project / floor: {medians['project'] / medians['floor']:.2f}x the time (target <= 1.5)")
    print(f"project / bare:  {medians['project'] / medians['bare']:.2f}x the time")
    print(f"project rows/s: {args.rows / medians['project']:,.0f} (target >= 50,000)")
    print(f"load: {drawbench.load_average()}")


if __name__ == "__main__":
    main()
