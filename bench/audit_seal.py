"""The sealed audit log (issue 16, part 2): how long sealing and verify_audit take over a big log,
how much memory they hold (they stream), and whether audit_log writers slow down while a day is
being sealed (they must not: no lock on the hot path).

    .venv/bin/python bench/audit_seal.py [--database-url postgres://postgres@127.0.0.1:5432/promodesk_sealbench]
        [--events 1000000] [--days 30] [--writes 500]

Uses its own database (created if missing, then manage.py migrate). The log is emptied (TRUNCATE,
as the owner) and filled with --events events spread evenly over --days days ending the day
before yesterday, written with triggers off so they can be dated in the past (each ~250 bytes
of JSON data). Then, in order:
  1. --writes audit_log calls alone (the baseline: ms per write);
  2. seal_due() over every day, while another process makes audit_log calls until the seal
     ends (ms per write during the seal);
  3. verify_chain() over every sealed day.
It prints each one's time, events per second and this process's peak RSS growth.
"""

import argparse
import datetime as dt
import multiprocessing
import resource
import sys
import time

from drawbench import create_database, load_average, migrate, percentile, setup_django

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_sealbench"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def fill(events: int, days: int) -> tuple[dt.date, dt.date]:
    from django.db import connection
    from django.utils import timezone

    last = timezone.localdate() - dt.timedelta(days=2)
    first = last - dt.timedelta(days=days - 1)
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE core_auditevent, core_auditseal")
        cursor.execute("SET session_replication_role = replica")  # date them in the past
        cursor.execute(
            """
            INSERT INTO core_auditevent (created_at, actor_label, action, object_type, object_id, data, ip)
            SELECT %s::timestamptz + (n * (%s::float / %s)) * interval '1 second',
                   'desk' || (n %% 40), 'tickets.activated', 'draws.activation', n::text,
                   jsonb_build_object('draw', n %% 500, 'card_number', '1' || lpad((n %% 999999)::text, 9, '0'),
                                      'tickets', n %% 97, 'serials', jsonb_build_array(n, n + n %% 97),
                                      'note', 'Zoë — activated at the VIP desk after the member asked twice'),
                   CASE WHEN n %% 3 = 0 THEN NULL ELSE '10.0.' || (n %% 250) || '.' || (n %% 200) END::inet
              FROM generate_series(0, %s - 1) AS n
            """,
            [
                dt.datetime.combine(first, dt.time(), tzinfo=timezone.get_current_timezone()),
                days * 86400,
                events,
                events,
            ],
        )
        cursor.execute("SET session_replication_role = origin")
        cursor.execute("ANALYZE core_auditevent")
    return first, last


def writes(count: int, until=None) -> list[float]:
    """`count` audit_log calls, or as many as fit until `until` is set."""
    from django.db import connection

    from core.audit import Actor, audit_log

    timings = []
    actor = Actor.system("bench")
    try:
        for n in range(10**9):
            if (until is None and n >= count) or (until is not None and until.is_set()):
                break
            started = time.perf_counter()
            audit_log(actor=actor, action="bench.written", data={"n": n})
            timings.append((time.perf_counter() - started) * 1000)
    finally:
        connection.close()
    return timings


def say_writes(label: str, timings: list[float]) -> None:
    if not timings:  # a tiny log (the smoke test's) can be sealed before the writer's first write
        print(f"{label}: no audit_log writes (the seal ended first)")
        return
    print(
        f"{label}: {len(timings)} audit_log writes, median {percentile(timings, 0.5):.2f} ms, "
        f"p95 {percentile(timings, 0.95):.2f} ms, max {max(timings):.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--writes", type=int, default=500)
    args = parser.parse_args()

    create_database(args.database_url)
    migrate(args.database_url)
    setup_django(args.database_url)
    from core.audit_seal import seal_due, verify_chain

    print(f"load: {load_average()}")
    started = time.perf_counter()
    first, last = fill(args.events, args.days)
    print(f"filled {args.events:,} events over {first} to {last} in {time.perf_counter() - started:.1f} s")

    say_writes("alone", writes(args.writes))

    rss = peak_rss_mb()
    # Another process (as web's workers are), so the figures are not the GIL's.
    from django.db import connection

    connection.close()
    context = multiprocessing.get_context("fork")
    done, results = context.Event(), context.Queue()
    writer = context.Process(target=lambda: results.put(writes(args.writes, until=done)))
    started = time.perf_counter()
    writer.start()
    seals = seal_due()
    sealing = time.perf_counter() - started
    done.set()
    during = results.get()
    writer.join()
    print(
        f"seal_due: {len(seals)} days, {args.events:,} events in {sealing:.1f} s "
        f"({args.events / sealing:,.0f} events/s); peak RSS +{peak_rss_mb() - rss:.1f} MB"
    )
    say_writes("during the seal", during)

    rss = peak_rss_mb()
    started = time.perf_counter()
    check = verify_chain()
    checking = time.perf_counter() - started
    print(
        f"verify_chain: {check.days_checked} days, {check.events_checked:,} events in {checking:.1f} s "
        f"({check.events_checked / checking:,.0f} events/s); peak RSS +{peak_rss_mb() - rss:.1f} MB"
    )
    print(check.message)
    sys.exit(0 if check.ok else 1)


if __name__ == "__main__":
    main()
