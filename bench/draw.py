"""Time one electronic draw at scale (issue 8, item 8): freezing the entry list, and selecting 5
winners the engine's way against a naive table of ticket rows with ORDER BY random().

    .venv/bin/python bench/draw.py [--activations 1000000] [--tickets 100000000]
        [--database-url postgres://postgres@127.0.0.1:5432/promodesk_drawbench]
        [--freeze-runs 3] [--pick-runs 200] [--baseline-runs 3] [--baseline-max-tickets N]
        [--jobs 2] [--keep-tickets]

Uses its own database (promodesk_drawbench by default): bench/fill.py creates and migrates it and
loads as many members as there are activations (no points rows: the draw is filled directly).
The draw (series `bench-draw` of the bench promotion, electronic, 5 winners) gets --activations
activations holding exactly --tickets tickets, made with one INSERT ... SELECT over
generate_series: one activation per member, members in a scrambled order, serials contiguous
from 1, ticket counts skewed as real allocations are (most members hold few, some hold many).
A later run with the same sizes reuses them; other sizes replace them.

(1) Freezing: draws.services.canonical_entries(draw) and its SHA-256, --freeze-runs times; then
    draws.services.draw_close_window once (the draw is first put back to `scheduled` if an
    earlier run closed it: the bench undoing its own freeze, in its own database).
(2) Selecting 5 winners the engine's way: for k = 1..5, draws.selection.electronic_serial(...)
    then the owner by one range lookup on the (draw, first_serial) index: the engine's
    draws.engine.serial_owner when it is there, and the bare SQL
    `WHERE draw_id = %s AND first_serial <= %s ORDER BY first_serial DESC LIMIT 1` beside it.
    The same 5 picks, warm, --pick-runs times after 20 untimed; also 5 fresh k per run.
(3) The naive baseline: an UNLOGGED table of one row per ticket (serial, member_id), filled
    from the activations with generate_series(first_serial, last_serial) in --jobs sessions,
    VACUUM ANALYZE'd, then `SELECT serial, member_id FROM ... ORDER BY random() LIMIT 5`, once
    untimed under EXPLAIN and --baseline-runs times. It needs about 4.1 GiB for 100,000,000
    tickets: the script checks the free space of PostgreSQL's data directory first and, if the
    whole table does not fit (with 5 GiB to spare), builds the largest prefix of serials that
    does and extrapolates the baseline linearly, saying so. The table is dropped at the end
    unless --keep-tickets.

(4) The record (issue 13, item 12): `manage.py export_draw_record` of the frozen draw to a
    temporary directory, in this process (timed, then run again under tracemalloc for the peak
    Python memory); then
    `python -m draws.verification` on the two files in a child process (time and its peak RSS,
    ru_maxrss), and draws.commitments.draw_verify streaming from the database under tracemalloc.
    The draw is frozen but not run, so the verifier reports its seed "not verified yet": every
    line of the entry list is still read, hashed and checked.

Prints the times, the ratio baseline / engine and the issue's targets with whether each was
met (as text: nothing here asserts a time).
"""

import argparse
import datetime as dt
import hashlib
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from zoneinfo import ZoneInfo

import psycopg
from drawbench import BENCH_RULE, ROOT, bench_series, load_average, percentile, setup_django
from fill import coprime_at_least

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_drawbench"
SERIES_CODE = "bench-draw"
TICKETS_TABLE = "bench_draw_tickets"
# One ticket row: 24-byte tuple header + two bigints, plus a 4-byte line pointer: 185 rows in
# an 8 kB page, 4.1 GiB (4.43 GB) for 100,000,000 tickets.
TICKET_ROW_BYTES = 8192 / 185
DISK_SPARE = 5 * 1024**3  # left free for everyone else on the machine
PICKS = 5
OWNER_SQL = (
    "SELECT member_id, first_serial, last_serial FROM draws_activation"
    " WHERE draw_id = %s AND first_serial <= %s ORDER BY first_serial DESC LIMIT 1"
)
BASELINE_SQL = f"SELECT serial, member_id FROM {TICKETS_TABLE} ORDER BY random() LIMIT {PICKS}"
TARGET_PICKS_MS = 50
TARGET_RATIO = 100
TARGET_FREEZE_S = 30  # "well under a minute", read as half a minute at most


def gb(size: float) -> str:
    return f"{size / 1024**3:,.1f} GiB"


def seconds(value: float) -> str:
    return f"{value * 1000:,.2f} ms" if value < 1 else f"{value:,.2f} s"


def timed(call) -> float:
    began = time.perf_counter()
    call()
    return time.perf_counter() - began


def summary(values: list[float]) -> str:
    median, p95 = statistics.median(values), percentile(values, 0.95)
    return f"median {seconds(median)}, p95 {seconds(p95)}, max {seconds(max(values))} ({len(values)} runs)"


# --- set-up -------------------------------------------------------------------------------------


def fill_members(url: str, wanted: int) -> int:
    """bench/fill.py makes the database, migrates it and loads the members (no points rows).
    Reuses what is there when it holds at least `wanted` members; the number of members."""
    members = 0
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            members = conn.execute("SELECT count(*) FROM members_member").fetchone()[0]
    except (psycopg.OperationalError, psycopg.errors.UndefinedTable):
        pass  # no database yet, or not migrated: fill.py does both
    if 0 < members < wanted:
        raise SystemExit(
            f"The database holds {members:,} members, fewer than {wanted:,} activations: drop it (or pass"
            " another --database-url) and run again."
        )
    command = [sys.executable, "bench/fill.py", "--database-url", url, "--members", str(max(members, wanted))]
    subprocess.run([*command, "--points", "0"], cwd=ROOT, check=True)
    return max(members, wanted)


def bench_draw():
    """The electronic draw of the series `bench-draw`, scheduled once (in the past: its ticket
    window closed a day before)."""
    from core.audit import Actor
    from draws.models import Draw
    from draws.services import draw_schedule

    series = bench_series(SERIES_CODE, "Bench draw (bench/draw.py)", BENCH_RULE)
    if series.winners_per_draw != PICKS or series.method != "electronic":
        type(series).objects.filter(pk=series.pk).update(winners_per_draw=PICKS, method="electronic")
        series.refresh_from_db()
    at = dt.datetime(2026, 1, 1, 20, 0, tzinfo=ZoneInfo("Africa/Johannesburg"))
    draw = Draw.objects.filter(series=series, scheduled_at=at).first()
    if draw is None:
        window = (at - dt.timedelta(days=1, hours=4), at - dt.timedelta(days=1))
        draw = draw_schedule(
            actor=Actor.system("bench"), series=series, scheduled_at=at, windows=[window], allow_past=True
        )
        print(f"Scheduled draw {draw.pk} ({draw.name})")
    return Draw.objects.with_related().get(pk=draw.pk)


def fill_activations(draw, activations: int, tickets: int, members: int) -> None:
    """Exactly `activations` activations holding `tickets` tickets, serials 1..tickets, in one
    INSERT ... SELECT. Activation i holds 1 + its share of the other tickets by a weight
    1 + floor(1000 * u^3) (u uniform from a hash of i: a long tail of large holdings), so
    last_serial(i) = i + floor((tickets - activations) * cumulative weight(i) / total weight).
    Its member is member_lo + (i * P mod members), P coprime to members: all distinct, scrambled."""
    from django.db import connection, transaction

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), coalesce(sum(tickets), 0), min(first_serial), max(last_serial)"
            " FROM draws_activation WHERE draw_id = %s",
            [draw.pk],
        )
        if cursor.fetchone() == (activations, tickets, 1, tickets):
            print(f"Draw {draw.pk} already holds {activations:,} activations and {tickets:,} tickets: reused")
            return
        cursor.execute("SELECT min(id) FROM members_member")
        member_lo = cursor.fetchone()[0]
    step = coprime_at_least(max(2, members // 2 + 12_345), members)
    print(f"Filling draw {draw.pk}: {activations:,} activations, {tickets:,} tickets ...", flush=True)
    began = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        # A promotion's entries are kept three years (records/migrations/0001_retention.py): the
        # bench's own draw is refilled with the row triggers off, as the suite's superuser may.
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("DELETE FROM draws_activation WHERE draw_id = %s", [draw.pk])
        cursor.execute("SET LOCAL session_replication_role = origin")
        cursor.execute(
            """
            INSERT INTO draws_activation (draw_id, member_id, channel, first_serial, last_serial, tickets,
                                          breakdown, receipt_number, activated_at)
            WITH w AS (
                SELECT i, 1 + floor(1000 * power(((i * 2654435761) %% 1000003) / 1000003.0, 3))::bigint AS weight
                FROM generate_series(1, %(n)s::bigint) AS i
            ), c AS (
                SELECT i, sum(weight) OVER (ORDER BY i) AS cum, sum(weight) OVER () AS total FROM w
            ), s AS (
                SELECT i, i + floor((%(t)s::numeric - %(n)s) * cum / total)::bigint AS last_serial FROM c
            ), r AS (
                SELECT i, coalesce(lag(last_serial) OVER (ORDER BY i), 0) + 1 AS first_serial, last_serial FROM s
            )
            SELECT %(draw)s, %(member_lo)s + (i * %(step)s) %% %(members)s, 'desk', first_serial, last_serial,
                   last_serial - first_serial + 1, '{}'::jsonb, 'BENCH-' || %(draw)s || '-' || i,
                   %(opens)s::timestamptz + (i %% 14400) * interval '1 second'
            FROM r
            """,
            {
                "n": activations,
                "t": tickets,
                "draw": draw.pk,
                "member_lo": member_lo,
                "step": step,
                "members": members,
                "opens": draw.tickets_open_at,
            },
        )
        cursor.execute("UPDATE draws_draw SET next_serial = %s WHERE id = %s", [tickets + 1, draw.pk])
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) draws_activation")  # autovacuum is off on this server
    print(f"   filled in {time.perf_counter() - began:.1f} s (with the table's indexes and constraints)", flush=True)


def reopen(draw) -> None:
    """Put the draw back to `scheduled`, unfrozen, so draw_close_window can be timed again (the
    bench undoing its own freeze in its own database; no pick is ever made here). The database
    refuses to unfreeze a draw (draws migration 0010), so the bench, connected as the owner,
    switches the triggers off for this one statement."""
    from django.db import connection, transaction

    from draws.models import Draw, DrawStatus

    if draw.status != DrawStatus.SCHEDULED or draw.entries_sha256:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = replica")
            Draw.objects.filter(pk=draw.pk).update(
                status=DrawStatus.SCHEDULED,
                entries_frozen_at=None,
                entries_count=0,
                tickets_total=0,
                entries_sha256="",
                seed_sha256="",
                seed_hex="",
            )
        draw.refresh_from_db()


# --- (1) freezing -------------------------------------------------------------------------------


def freeze(draw, runs: int) -> tuple[list[float], str, float]:
    """canonical_entries + SHA-256 `runs` times, then draw_close_window once: the times, the
    hash and the draw_close_window time."""
    from draws.services import canonical_entries, draw_close_window

    times, digests = [], set()
    for _ in range(runs):
        began = time.perf_counter()
        digest = hashlib.sha256(canonical_entries(draw)).hexdigest()
        times.append(time.perf_counter() - began)
        digests.add(digest)
    if len(digests) != 1:
        raise SystemExit("canonical_entries gave different bytes in two runs")
    reopen(draw)
    began = time.perf_counter()
    closed = draw_close_window(draw_id=draw.pk)
    close_time = time.perf_counter() - began
    if not closed:
        raise SystemExit(f"draw_close_window did not close draw {draw.pk}")
    return times, digests.pop(), close_time


# --- (2) the engine's picks ---------------------------------------------------------------------


def engine_owner():
    """draws.engine.serial_owner(draw, serial) when the engine is there, else None."""
    try:
        from draws.engine import serial_owner
    except ImportError:
        return None
    return serial_owner


def sql_owner(serial: int, draw_id: int) -> tuple[int, int, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(OWNER_SQL, [draw_id, serial])
        return cursor.fetchone()


def five_picks(draw, first_k: int, owner) -> list[tuple[int, int]]:
    """Picks k = first_k .. first_k + 4: (serial, member_id) each, as the engine selects them."""
    from draws.selection import electronic_serial

    seed = bytes.fromhex(draw.seed_hex)
    picks = []
    for k in range(first_k, first_k + PICKS):
        serial = electronic_serial(seed=seed, entries_sha256=draw.entries_sha256, k=k, tickets_total=draw.tickets_total)
        picks.append((serial, owner(serial)))
    return picks


def pick_timings(draw, owner, runs: int, *, fresh: bool) -> list[float]:
    """Seconds for 5 picks, `runs` times after 20 untimed; the same k = 1..5 each time, or
    (fresh) the next 5 k each run."""
    for _ in range(20):
        five_picks(draw, 1, owner)
    return [timed(lambda r=r: five_picks(draw, 1 + PICKS * (r + 1) if fresh else 1, owner)) for r in range(runs)]


def check_picks(draw, engine) -> list[tuple[int, int, int, int]]:
    """k = 1..5 by the SQL and by the engine's function: (serial, member, first, last), checked."""
    rows = []
    for serial, (member, first, last) in five_picks(draw, 1, lambda s: sql_owner(s, draw.pk)):
        if not first <= serial <= last:
            raise SystemExit(f"Serial {serial} is not in the activation found ({first}-{last})")
        if engine is not None:
            activation = engine(draw, serial)
            if activation is None or activation.member_id != member:
                raise SystemExit(f"serial_owner disagrees with the SQL for serial {serial}")
        rows.append((serial, member, first, last))
    return rows


def explain(sql: str, params: list, *, timing: bool = True) -> list[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS{'' if timing else ', TIMING OFF'}) {sql}", params)
        return [row[0] for row in cursor.fetchall()]


# --- (3) the naive baseline ---------------------------------------------------------------------


def data_directory_free() -> tuple[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW data_directory")
        path = cursor.fetchone()[0]
    for candidate in (path, "/var/lib/postgresql", "/"):
        if os.path.exists(candidate):
            return candidate, shutil.disk_usage(candidate).free
    return "/", shutil.disk_usage("/").free


def build_tickets(url: str, draw_id: int, upto: int, jobs: int) -> float:
    """The ticket table for serials 1..upto, filled in `jobs` sessions (a share of the serials
    each); the seconds it took."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {TICKETS_TABLE}")
        conn.execute(f"CREATE UNLOGGED TABLE {TICKETS_TABLE} (serial bigint NOT NULL, member_id bigint NOT NULL)")

    def load(lo: int, hi: int) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET synchronous_commit = off")
            conn.execute(
                f"""
                INSERT INTO {TICKETS_TABLE} (serial, member_id)
                SELECT s, a.member_id
                FROM draws_activation a
                CROSS JOIN LATERAL generate_series(greatest(a.first_serial, %(lo)s), least(a.last_serial, %(hi)s)) AS s
                WHERE a.draw_id = %(draw)s AND a.first_serial <= %(hi)s AND a.last_serial >= %(lo)s
                """,
                {"draw": draw_id, "lo": lo, "hi": hi},
            )
            print(f"   tickets {lo:,}-{hi:,} loaded", flush=True)

    bounds = [upto * j // jobs for j in range(jobs + 1)]
    began = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        for future in [pool.submit(load, bounds[j] + 1, bounds[j + 1]) for j in range(jobs)]:
            future.result()
    return time.perf_counter() - began


def ticket_table_facts(url: str) -> tuple[int, int]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(
            f"SELECT count(*), pg_total_relation_size('{TICKETS_TABLE}') FROM {TICKETS_TABLE}"
        ).fetchone()


def drop_tickets(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {TICKETS_TABLE}")


def baseline_once() -> list[tuple]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(BASELINE_SQL)
        return cursor.fetchall()


# --- main ---------------------------------------------------------------------------------------


# draws.verification's main() in a process of its own, printing its peak RSS (kB) on stderr: VmHWM
# of /proc/self/status, the high-water mark of this program's memory (ru_maxrss would include the
# bench's own memory, inherited across the fork before exec).
VERIFY_CHILD = (
    "import sys; from draws.verification import main; code = main(sys.argv[1:]);"
    " hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')];"
    " print(hwm[0] if hwm else 0, file=sys.stderr); sys.exit(code)"
)


def mb(size: float) -> str:
    return f"{size / 1024**2:,.1f} MiB"


def _timed_and_peak(call):
    """(seconds without tracemalloc, peak Python memory of a second run under tracemalloc, result):
    tracemalloc slows every allocation, so the time is taken on a run of its own."""
    started = time.perf_counter()
    call()
    elapsed = time.perf_counter() - started
    tracemalloc.start()
    try:
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return elapsed, peak, result


def record_figures(draw) -> list[str]:
    """(4): export and verify the record, with their times and peak memory, as lines to print."""
    from django.core.management import call_command

    from draws.commitments import draw_verify

    lines = []
    with tempfile.TemporaryDirectory(prefix="bench-record-") as folder:
        export_time, export_peak, _ = _timed_and_peak(
            lambda: call_command("export_draw_record", str(draw.pk), "--out", folder, stdout=io.StringIO())
        )
        json_path = os.path.join(folder, f"draw-{draw.pk}.json")
        entries_path = os.path.join(folder, f"draw-{draw.pk}-entries.csv")
        size = os.path.getsize(entries_path)
        lines.append(
            f"    export_draw_record: {seconds(export_time)}, peak Python memory {mb(export_peak)}"
            f" (entry list {mb(size)})"
        )
        started = time.perf_counter()
        child = subprocess.run(
            [sys.executable, "-c", VERIFY_CHILD, json_path, entries_path],
            cwd=ROOT,
            env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=False,
        )
        verify_time = time.perf_counter() - started
        *_, rss_kb = child.stderr.split() or ["0"]
        verdict = child.stdout.strip().splitlines()[-1] if child.stdout.strip() else child.stderr.strip()
        lines.append(
            f"    python -m draws.verification (its own process): {seconds(verify_time)},"
            f" peak RSS {mb(int(rss_kb) * 1024)}; exit {child.returncode}: {verdict}"
        )
    verify_db_time, verify_db_peak, report = _timed_and_peak(lambda: draw_verify(draw))
    entry_line = next((line for line in report.lines if line.check == "Entry list"), None)
    lines.append(
        f"    draw_verify (streamed from the database): {seconds(verify_db_time)}, peak Python memory"
        f" {mb(verify_db_peak)}; entry list: {entry_line.verdict if entry_line else '?'}"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DRAW_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--activations", type=int, default=1_000_000, help="activations (members) in the draw")
    parser.add_argument("--tickets", type=int, default=100_000_000, help="tickets the activations hold")
    parser.add_argument("--freeze-runs", type=int, default=3, help="canonical_entries + SHA-256 runs (default 3)")
    parser.add_argument("--pick-runs", type=int, default=200, help="timed runs of the 5 picks (default 200)")
    parser.add_argument("--baseline-runs", type=int, default=3, help="timed runs of ORDER BY random() (default 3)")
    parser.add_argument("--baseline-max-tickets", type=int, default=0, help="cap the ticket table (0: all tickets)")
    parser.add_argument("--jobs", type=int, default=2, help="sessions filling the ticket table (default 2)")
    parser.add_argument("--keep-tickets", action="store_true", help="leave the ticket table in the database")
    args = parser.parse_args()
    if not 1 <= args.activations <= args.tickets:
        parser.error("--activations must be at least 1 and at most --tickets")
    if min(args.freeze_runs, args.pick_runs, args.baseline_runs, args.jobs) < 1:
        parser.error("every run count and --jobs must be at least 1")

    members = fill_members(args.database_url, args.activations)
    setup_django(args.database_url)
    from django.db import connection

    draw = bench_draw()
    fill_activations(draw, args.activations, args.tickets, members)
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        version = cursor.fetchone()[0].split(" on ")[0]
        cursor.execute(
            "SELECT pg_relation_size('draws_activation'), pg_indexes_size('draws_activation'),"
            " max(tickets), percentile_disc(0.5) WITHIN GROUP (ORDER BY tickets)"
            " FROM draws_activation WHERE draw_id = %s",
            [draw.pk],
        )
        table_size, index_size, most, median_tickets = cursor.fetchone()
    print()
    print(f"{connection.settings_dict['NAME']} ({version}): draw {draw.pk}, {args.activations:,} activations,")
    print(f"  {args.tickets:,} tickets (median {median_tickets:,} per activation, most {most:,});")
    print(f"  draws_activation {gb(table_size)} + indexes {gb(index_size)} (all draws)")
    print(f"Load average {load_average()}")
    started = time.perf_counter()

    # (1) freezing
    freeze_times, digest, close_time = freeze(draw, args.freeze_runs)
    draw.refresh_from_db()
    frozen_ok = (draw.entries_sha256, draw.entries_count, draw.tickets_total) == (
        digest,
        args.activations,
        args.tickets,
    )
    print(f"  (1) freezing done, {time.perf_counter() - started:.0f} s", flush=True)

    # (2) the engine's picks
    engine = engine_owner()
    picked = check_picks(draw, engine)
    sql_times = pick_timings(draw, lambda s: sql_owner(s, draw.pk), args.pick_runs, fresh=False)
    sql_fresh = pick_timings(draw, lambda s: sql_owner(s, draw.pk), args.pick_runs, fresh=True)
    engine_times = engine_fresh = None
    if engine is not None:
        engine_times = pick_timings(draw, lambda s: engine(draw, s), args.pick_runs, fresh=False)
        engine_fresh = pick_timings(draw, lambda s: engine(draw, s), args.pick_runs, fresh=True)
    owner_plan = explain(OWNER_SQL, [draw.pk, picked[0][0]])
    print(f"  (2) picks done, {time.perf_counter() - started:.0f} s", flush=True)

    # (4) the record, before the baseline fills the disk
    record_lines = record_figures(draw)
    print(f"  (4) record exported and verified, {time.perf_counter() - started:.0f} s", flush=True)

    # (3) the naive baseline
    where, free = data_directory_free()
    need = args.tickets * TICKET_ROW_BYTES
    room = max(0, int((free - DISK_SPARE) / TICKET_ROW_BYTES))
    upto = min(args.tickets, room, args.baseline_max_tickets or args.tickets)
    print(
        f"  (3) the ticket table needs about {gb(need)}; {gb(free)} free at {where} (keeping {gb(DISK_SPARE)} spare):"
        f" building {upto:,} of {args.tickets:,} tickets",
        flush=True,
    )
    if upto < 1:
        raise SystemExit("No room for a ticket table: free some disk space")
    try:
        build = build_tickets(args.database_url, draw.pk, upto, args.jobs)
        with connection.cursor() as cursor:
            vacuum = timed(lambda: cursor.execute(f"VACUUM (ANALYZE) {TICKETS_TABLE}"))
        rows, size = ticket_table_facts(args.database_url)
        if rows != upto:
            raise SystemExit(f"The ticket table holds {rows:,} rows, not {upto:,}")
        print(f"      built in {build:.1f} s + VACUUM ANALYZE {vacuum:.1f} s: {gb(size)}", flush=True)
        baseline_plan = explain(BASELINE_SQL, [], timing=False)  # also the untimed warm-up
        baseline_times = [timed(baseline_once) for _ in range(args.baseline_runs)]
    finally:
        if not args.keep_tickets:
            drop_tickets(args.database_url)
    print(f"  (3) baseline done, {time.perf_counter() - started:.0f} s", flush=True)

    # (4) the figures
    print()
    print(f"Timed in {time.perf_counter() - started:.0f} s; load average {load_average()} now.")
    print()
    print(f"(1) Freezing {args.activations:,} activations / {args.tickets:,} tickets")
    print(f"    canonical_entries(draw) + SHA-256:        {summary(freeze_times)}")
    print(f"    draw_close_window(draw_id=...), once:      {seconds(close_time)}")
    print(
        f"    entries_sha256 {digest[:16]}..., entries {draw.entries_count:,}, tickets {draw.tickets_total:,}:"
        f" {'as expected' if frozen_ok else 'NOT as expected'}"
    )
    print()
    print("(2) 5 winners, the engine's way (electronic_serial + one range lookup each), warm")
    for k, (serial, member, first, last) in enumerate(picked, 1):
        print(f"    k={k}: serial {serial:>12,}  member {member:>9,}  activation {first:,}-{last:,}")
    if engine is not None:
        print(f"    draws.engine.serial_owner, k = 1..5:       {summary(engine_times)}")
        print(f"    draws.engine.serial_owner, fresh k a run:  {summary(engine_fresh)}")
    else:
        print("    (draws.engine.serial_owner is not there: the bare SQL is the engine's way)")
    print(f"    bare SQL lookup, k = 1..5:                 {summary(sql_times)}")
    print(f"    bare SQL lookup, fresh k a run:            {summary(sql_fresh)}")
    print("    EXPLAIN (ANALYZE, BUFFERS) of one lookup:")
    for row in owner_plan:
        print(f"      {row}")
    print()
    scaled = upto < args.tickets
    print(f"(3) Naive baseline: {TICKETS_TABLE}, one UNLOGGED row per ticket, {upto:,} rows, {gb(size)}")
    print(
        f"    building it: INSERT ... generate_series {build:.1f} s ({args.jobs} sessions),"
        f" VACUUM ANALYZE {vacuum:.1f} s"
    )
    print(f"    {BASELINE_SQL}: {summary(baseline_times)}")
    print("    EXPLAIN (ANALYZE, BUFFERS, TIMING OFF), the untimed first run:")
    for row in baseline_plan:
        print(f"      {row}")
    baseline = statistics.median(baseline_times)
    if scaled:
        baseline = baseline * args.tickets / upto
        print(
            f"    EXTRAPOLATED to {args.tickets:,} tickets (linear: a scan and a top-{PICKS} sort):"
            f" {seconds(baseline)}. Only {upto:,} rows were built (disk or --baseline-max-tickets)."
        )

    print()
    print(f"(4) The record of the frozen draw ({args.activations:,} activations), streamed")
    for row in record_lines:
        print(row)

    # targets
    engine_median = statistics.median(engine_times if engine is not None else sql_times)
    ratio = baseline / engine_median
    freeze_median = statistics.median(freeze_times)
    label = "draws.engine.serial_owner" if engine is not None else "bare SQL lookup"
    print()
    print("Targets (issue 8, item 8):")
    print(
        f"  5 winners <= {TARGET_PICKS_MS} ms:             {seconds(engine_median)} ({label}, median)"
        f"  -> {'met' if engine_median * 1000 <= TARGET_PICKS_MS else 'NOT met'}"
    )
    print(
        f"  >= {TARGET_RATIO}x faster than the baseline:  {seconds(baseline)}{' (extrapolated)' if scaled else ''}"
        f" / {seconds(engine_median)} = {ratio:,.0f}x  -> {'met' if ratio >= TARGET_RATIO else 'NOT met'}"
    )
    if engine is not None:
        print(
            f"  (for information: baseline / bare SQL lookup = {baseline / statistics.median(sql_times):,.0f}x;"
            " serial_owner's extra time is the ORM building an Activation and its Member)"
        )
    print(
        f"  freezing well under a minute (<= {TARGET_FREEZE_S} s): canonical_entries + hash {seconds(freeze_median)},"
        f" draw_close_window {seconds(close_time)}"
        f"  -> {'met' if max(freeze_median, close_time) <= TARGET_FREEZE_S else 'NOT met'}"
    )
    if (args.activations, args.tickets) != (1_000_000, 100_000_000):
        print(
            f"  (this run: {args.activations:,} activations and {args.tickets:,} tickets; the targets are"
            " stated for 1,000,000 activations holding 100,000,000 tickets)"
        )


if __name__ == "__main__":
    sys.exit(main())
