"""Time draws.allocation.draw_allocations on the database bench/fill.py filled, against the bare
GROUP BY over the same points rows.

    .venv/bin/python bench/allocation.py [--database-url postgres://postgres@127.0.0.1:5432/promodesk_bench]
        [--runs 5] [--member-runs 200] [--rule bench|visits] [--work-mem 64MB] [--no-what-if] [--no-explain]

Creates (once; later runs reuse it) the bench promotion, a series with a realistic earning rule
(bench/drawbench.py: 100 points a ticket over the 91 days before the draw, free tickets and a
cap by tier, a bonus for app-registered members) and one draw at Gold Reef City scheduled on
the hour after the newest points row, so that the earning period covers every points row of the
bench data. Then, after one warm-up round, N rounds (the order rotated each round) of:

* end to end, every row fetched into Python in both: draw_allocations(draw) against the bare
  `SELECT member_id, SUM(points) ... GROUP BY member_id` through the same Django connection. The
  allocation statement is also fetched as plain tuples, to show what the Allocation objects cost;
* [server]: the same statements under EXPLAIN (ANALYZE, TIMING OFF): the plan the application
  gets, run in full, nothing sent back; PostgreSQL's Execution Time (JIT compilation included).
  Not `SELECT count(*) FROM (...)`: that lets PostgreSQL drop the output columns nobody reads
  (the SUM and COUNT(DISTINCT) of the allocation go), and summing every column instead changes
  the plan (a parallel plan that computes the points aggregate once per worker), both unfair;
* unless --no-what-if, the same for a variant that is NOT the project's code (what_if_sql,
  WhatIfAllocation): the changes this benchmark suggests for draws/allocation.py; and the variant
  and the bare GROUP BY both with a larger work_mem (--work-mem, SET LOCAL).

Then the single-member path, draws.allocation.member_allocation (what an activation and the
eHost's "my draws" call run): median, p95 and max over --member-runs members drawn from the
allocation, and over the 20 members with the most points rows. Finally EXPLAIN (ANALYZE,
BUFFERS) of the bare GROUP BY, of the project's statement and of the variant, summarised.
"""

import argparse
import datetime as dt
import inspect
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from drawbench import (
    BENCH_RULE,
    DEFAULT_URL,
    VISITS_RULE,
    bench_series,
    load_average,
    migrate,
    percentile,
    setup_django,
)

BARE_SQL = (
    "SELECT member_id, SUM(points) AS points FROM members_pointsentry"
    " WHERE property_id = %(property)s AND earned_at >= %(start)s AND earned_at < %(end)s GROUP BY member_id"
)
TARGET_RATIO = 1.5
PLAN_KEEP = (
    "->",
    "Sort Method",
    "Batches:",
    "Workers Launched",
    "Heap Blocks",
    "Rows Removed by Filter",
    "Rows Removed by Index Recheck",
    "Execution Time",
    "Planning Time",
    "JIT:",
    "Timing:",
    "Options:",
)
RULES = {
    "bench": ("bench-allocation", "Bench allocation draw", BENCH_RULE),
    "visits": ("bench-allocation-visits", "Bench allocation draw, bonus per visit", VISITS_RULE),
}


@dataclass
class Variant:
    label: str
    run: Callable[[], tuple[float, int]]  # (seconds, rows)
    seconds: list[float] = field(default_factory=list)
    rows: int = 0


def bench_draw(rule_key: str):
    """The allocation draw of the series, created once. Its one ticket window closed a day before
    the draw, so it never shows among the draws open now (bench/activation_api.py)."""
    from django.db import connection

    from core.audit import Actor
    from draws.models import Draw, DrawStatus
    from draws.services import draw_schedule

    code, name, rule = RULES[rule_key]
    series = bench_series(code, name, rule)
    with connection.cursor() as cursor:
        cursor.execute("SELECT max(earned_at) FROM members_pointsentry")
        newest = cursor.fetchone()[0]
    if newest is None:
        raise SystemExit("No points rows: run bench/fill.py first")
    at = newest.replace(minute=0, second=0, microsecond=0) + dt.timedelta(hours=1)
    draw = Draw.objects.filter(series=series, scheduled_at=at).exclude(status=DrawStatus.CANCELLED).first()
    if draw is None:
        window = (at - dt.timedelta(days=1, hours=4), at - dt.timedelta(days=1))
        # The draw lies just after the bench data, usually in the past: draw_schedule accepts that
        # only with allow_past (added to it since; not passed if it is not there).
        past = {"allow_past": True} if "allow_past" in inspect.signature(draw_schedule).parameters else {}
        draw = draw_schedule(actor=Actor.system("bench"), series=series, scheduled_at=at, windows=[window], **past)
        print(f"Scheduled draw {draw.pk} ({draw.name})")
    return Draw.objects.with_related().get(pk=draw.pk)


def what_if_sql(sql: str, params: dict, rule) -> tuple[str, dict, list[str]]:
    """NOT the project's code: the allocation statement with the changes this benchmark suggests
    for draws/allocation.py, each applied only where the project's statement still needs it (the
    project took some of them while this benchmark was written). Run it with the project's
    settings and WHAT_IF_SETTINGS, as SET LOCAL in a transaction. Returns the statement, its
    parameters and the steps applied.

    (1) The per-member COUNT(DISTINCT local day) ("visits") only when the rule pays a bonus per
        visit. COUNT(DISTINCT ...) cannot be hashed: PostgreSQL sorts all the period's points
        rows by member (an external merge sort with the default work_mem) and aggregates them in
        order. The "active at the property" bonus needs only visits > 0, which is points > 0.
    (2) WITH pts AS MATERIALIZED when the points are summed by a HashAggregate (no COUNT(DISTINCT)):
        the sum is then computed once. Inlined, the planner picks a parallel plan in which the
        points sum is the inner side of a hash join that is not parallel-aware: the leader and each
        worker compute the whole aggregate again (loops=3 in the plan, and JIT compiled 3 times).
        With COUNT(DISTINCT) (a rule with a per-visit bonus) the inlined plan is better (a parallel
        sort under Gather Merge, computed once, and the points sums hashed rather than the
        1,000,000 members), so it is left as it is.
    (3) No join with members_tier: the CASE expressions test m.tier_id against tier ids (the
        rule's tier codes mapped to ids in Python) instead of t.code.
    (4) SET LOCAL jit = off (WHAT_IF_SETTINGS): the statement's estimated cost is above
        jit_inline_above_cost and jit_optimize_above_cost, and compiling it costs about a second
        (several when the plan is parallel), for a plan that is I/O and hashing bound.
    """
    from members.models import Tier

    steps = []
    if "COUNT(DISTINCT" in sql and not (rule.bonus_per_visit or rule.bonus_per_visit_app):
        sql, found = re.subn(r"COUNT\(DISTINCT .*?\) AS visits", "CAST(0 AS BIGINT) AS visits", sql, count=1)
        assert found, "draws/allocation.py changed: no COUNT(DISTINCT ...) AS visits to replace"
        sql = sql.replace("CASE WHEN visits > 0 THEN", "CASE WHEN points > 0 THEN")
        steps.append("no COUNT(DISTINCT day)")
    if "WITH pts AS (" in sql and "COUNT(DISTINCT" not in sql:
        sql = sql.replace("WITH pts AS (", "WITH pts AS MATERIALIZED (", 1)
        steps.append("WITH pts AS MATERIALIZED")
    if "JOIN members_tier t ON t.id = m.tier_id" in sql and "t.code AS tier" in sql:
        sql = sql.replace("JOIN members_tier t ON t.id = m.tier_id", "").replace("t.code AS tier", "m.tier_id AS tier")
        tier_ids = dict(Tier.objects.values_list("code", "id"))
        params = {
            key: tier_ids.get(value, -1) if re.fullmatch(r"\w+_t\d+", key) else value for key, value in params.items()
        }
        steps.append("no join with members_tier")
    steps.append("SET LOCAL jit = off")
    return sql, params, steps


WHAT_IF_SETTINGS = {"jit": "off"}


class WhatIfAllocation(NamedTuple):
    """NOT the project's code: draws.allocation.Allocation as a NamedTuple (same fields, just as
    immutable). The frozen dataclass costs about 5 microseconds a row here (object.__setattr__ for
    each field, plus int() of values psycopg already returns as int); this about a third of that."""

    member_id: int
    points: int
    earned: int
    free: int
    bonus: int
    capped: int
    tickets: int


def run(sql: str, params: dict, *, settings: dict | None = None, mode: str = "tuples") -> tuple[float, int]:
    """Run one statement with SET LOCAL settings; (seconds, rows). mode "tuples": fetch every row
    (psycopg tuples); "objects": also an Allocation per row, as draw_allocations does; "server":
    EXPLAIN (ANALYZE, TIMING OFF): the same plan, executed in full, with nothing sent back; the
    time is PostgreSQL's Execution Time (it includes JIT compilation)."""
    from django.db import connection, transaction

    from draws import allocation

    # The project renamed _row to allocation_from_row; accept either.
    from_row = getattr(allocation, "allocation_from_row", None) or allocation._row
    with transaction.atomic(), connection.cursor() as cursor:
        allocation.set_locally(cursor, settings)
        if mode == "server":
            cursor.execute("EXPLAIN (ANALYZE, TIMING OFF) " + sql, params)
            plan = [row[0] for row in cursor.fetchall()]
            rows = int(re.search(r"rows=(\d+) loops", plan[0]).group(1))
            return float(re.search(r"Execution Time: ([\d.]+)", plan[-1]).group(1)) / 1000, rows
        started = time.perf_counter()
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
        if mode == "objects":
            fetched = [from_row(row) for row in fetched]
        elif mode == "namedtuple":
            fetched = [
                WhatIfAllocation(member, points, earned, free, bonus, earned + free + bonus - tickets, tickets)
                for member, points, earned, free, bonus, tickets in fetched
            ]
        return time.perf_counter() - started, len(fetched)


def timed(variant: Variant, *, record: bool) -> None:
    seconds, variant.rows = variant.run()
    if record:
        variant.seconds.append(seconds)


def explain(sql: str, params: dict, *, settings: dict | None = None) -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) of the statement, summarised, under `settings` (SET LOCAL)."""
    from django.db import connection, transaction

    from draws.allocation import set_locally

    with transaction.atomic(), connection.cursor() as cursor:
        set_locally(cursor, settings)
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
        plan = [row[0] for row in cursor.fetchall()]
    lines = [plan[0]]
    top_buffers = next((line.strip() for line in plan if "Buffers:" in line), "")
    lines.append("  " + top_buffers)
    lines.extend(line for line in plan[1:] if any(key in line for key in PLAN_KEEP))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--runs", type=int, default=5, help="timed rounds after one warm-up (default 5)")
    parser.add_argument("--member-runs", type=int, default=200, help="single-member allocations timed (default 200)")
    parser.add_argument("--rule", choices=sorted(RULES), default="bench", help="bench (default) or visits")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-what-if", dest="what_if", action="store_false", help="skip the suggested variant")
    parser.add_argument(
        "--work-mem", default="64MB", help="also time the what-if and the bare GROUP BY with this work_mem ('' skips)"
    )
    parser.add_argument("--no-explain", dest="explain", action="store_false", help="skip EXPLAIN ANALYZE")
    args = parser.parse_args()

    migrate(args.database_url)
    setup_django(args.database_url)
    from django.db import connection, transaction
    from django.utils import timezone

    from draws import allocation as draws_allocation
    from draws.allocation import allocation_sql, draw_allocations, earning_period, member_allocation
    from members.models import Member

    draw = bench_draw(args.rule)
    rule = draw.series.rule
    at = timezone.now()
    start, end = earning_period(draw)
    sql, params = allocation_sql(draw, at=at)
    bare_params = {"property": draw.property_id, "start": start, "end": end}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), count(*) FILTER (WHERE property_id = %(property)s),"
            " count(*) FILTER (WHERE property_id = %(property)s AND earned_at >= %(start)s AND earned_at < %(end)s)"
            " FROM members_pointsentry",
            bare_params,
        )
        total, at_property, in_period = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM members_member")
        members = cursor.fetchone()[0]
        cursor.execute(
            "SELECT current_setting('jit'), current_setting('work_mem'),"
            " current_setting('max_parallel_workers_per_gather'), current_setting('shared_buffers'), version()"
        )
        jit, work_mem, workers, shared_buffers, version = cursor.fetchone()
    print(
        f"{connection.settings_dict['NAME']}: {members:,} members, {total:,} points rows ({version.split(' on ')[0]})"
    )
    print(
        f"Server settings: jit={jit}, work_mem={work_mem}, max_parallel_workers_per_gather={workers},"
        f" shared_buffers={shared_buffers}"
    )
    print(
        f"Draw {draw.pk} at {draw.property.code}, {timezone.localtime(draw.scheduled_at):%Y-%m-%d %H:%M}; rule"
        f" '{args.rule}': {rule.points_per_ticket} points a ticket, free by tier {rule.free_tickets_by_tier},"
        f" cap by tier {rule.cap_by_tier} else {rule.cap}, app bonus {rule.bonus_app_registered},"
        f" per visit {rule.bonus_per_visit}+{rule.bonus_per_visit_app} (app)"
    )
    print(
        f"Earning period {timezone.localtime(start):%Y-%m-%d %H:%M} to {timezone.localtime(end):%Y-%m-%d %H:%M}:"
        f" {in_period:,} of the {at_property:,} points rows at {draw.property.code} ({total:,} in all)"
    )

    # The settings draws.allocation applies to its whole-draw statement (SET LOCAL), if any:
    # the statement is timed as the project runs it.
    project_settings = getattr(draws_allocation, "WHOLE_DRAW_SETTINGS", {})
    print(f"draws.allocation's settings for the whole-draw statement (SET LOCAL): {project_settings or 'none'}")
    improved, improved_params, what_if_steps = what_if_sql(sql, params, rule)
    what_if_settings = {**project_settings, **WHAT_IF_SETTINGS}
    big = {"work_mem": args.work_mem}

    def draw_allocations_timed() -> tuple[float, int]:
        began = time.perf_counter()
        rows = len(draw_allocations(draw, at=at))
        return time.perf_counter() - began, rows

    # (label, baseline label, run); the baseline of a row is measured in the same rounds.
    bare, bare_server = "bare GROUP BY", "bare GROUP BY [server]"
    variants = [
        Variant(bare, lambda: run(BARE_SQL, bare_params)),
        Variant("draw_allocations(draw)", draw_allocations_timed),
        Variant("allocation statement, tuples only", lambda: run(sql, params, settings=project_settings)),
        Variant(bare_server, lambda: run(BARE_SQL, bare_params, mode="server")),
        Variant("allocation statement [server]", lambda: run(sql, params, settings=project_settings, mode="server")),
    ]
    if args.what_if:
        variants += [
            Variant(
                "what-if, NamedTuple objects",
                lambda: run(improved, improved_params, settings=what_if_settings, mode="namedtuple"),
            ),
            Variant(
                "what-if [server]", lambda: run(improved, improved_params, settings=what_if_settings, mode="server")
            ),
        ]
        if args.work_mem:
            variants += [
                Variant(
                    f"bare GROUP BY, work_mem {args.work_mem} [server]",
                    lambda: run(BARE_SQL, bare_params, settings=big, mode="server"),
                ),
                Variant(
                    f"what-if, work_mem {args.work_mem} [server]",
                    lambda: run(improved, improved_params, settings={**what_if_settings, **big}, mode="server"),
                ),
            ]
    baseline_of = {
        "draw_allocations(draw)": bare,
        "allocation statement, tuples only": bare,
        "allocation statement [server]": bare_server,
        "what-if, NamedTuple objects": bare,
        "what-if [server]": bare_server,
        f"what-if, work_mem {args.work_mem} [server]": f"bare GROUP BY, work_mem {args.work_mem} [server]",
    }

    load_before = os.getloadavg()
    started = time.perf_counter()
    for round_number in range(args.runs + 1):
        shift = round_number % len(variants)
        for variant in variants[shift:] + variants[:shift]:
            timed(variant, record=round_number > 0)
        print(f"  round {round_number or 'warm-up'} done, {time.perf_counter() - started:.0f} s", flush=True)
    load_after = os.getloadavg()

    same = None
    if args.what_if:
        project = sorted(draw_allocations(draw, at=at), key=lambda a: a.member_id)
        with transaction.atomic(), connection.cursor() as cursor:
            draws_allocation.set_locally(cursor, what_if_settings)
            cursor.execute(improved, improved_params)
            what_if_rows = sorted(tuple(int(v) for v in row) for row in cursor.fetchall())
        same = [(a.member_id, a.points, a.earned, a.free, a.bonus, a.tickets) for a in project] == what_if_rows

    by_label = {variant.label: variant for variant in variants}

    def median(label: str) -> float:
        return statistics.median(by_label[label].seconds)

    print()
    print(
        f"Timed {args.runs} rounds after a warm-up round, in {time.perf_counter() - started:.0f} s. Load average"
        f" (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after; {load_average()} now."
    )
    header = f"{'statement':<44} {'median s':>9} {'min s':>7} {'max s':>7} {'rows':>9}  vs its bare GROUP BY"
    print(header)
    print("-" * len(header))
    for variant in variants:
        verdict = ""
        if variant.label in baseline_of:
            ratio = median(variant.label) / median(baseline_of[variant.label])
            verdict = f"{ratio:.2f}x  {'within' if ratio <= TARGET_RATIO else 'MISSES'} {TARGET_RATIO}x"
        print(
            f"{variant.label:<44} {median(variant.label):>9.2f} {min(variant.seconds):>7.2f}"
            f" {max(variant.seconds):>7.2f} {variant.rows:>9,}  {verdict}"
        )
    print(
        "Without [server]: end to end in Python, every row fetched (the bare GROUP BY and 'tuples only' into"
        " psycopg tuples; draw_allocations builds an Allocation per row, the what-if a NamedTuple)."
        " [server]: PostgreSQL's Execution Time from EXPLAIN (ANALYZE, TIMING OFF): the same plan run in full,"
        " no rows sent."
    )
    if args.what_if:
        print(
            f"what-if: NOT the project's code (what_if_sql): {', '.join(what_if_steps)}; rows as NamedTuples"
            " (WhatIfAllocation) instead of the frozen dataclass;"
            f" 'work_mem {args.work_mem}': also SET LOCAL work_mem, against the bare GROUP BY with the same setting."
        )
    print(
        f"Rows: the allocation returns every eligible member of {draw.property.code} or with points there"
        f" ({by_label['draw_allocations(draw)'].rows:,}); the GROUP BY every member with points there"
        f" ({by_label[bare].rows:,})."
    )
    if same is not None:
        print(f"What-if allocations identical to draw_allocations: {'yes' if same else 'NO'}")

    overview = getattr(draws_allocation, "allocation_overview", None)
    if overview is not None:
        seconds = []
        for _ in range(2):
            began = time.perf_counter()
            summary = overview(draw, at=at)
            seconds.append(time.perf_counter() - began)
        print(
            f"allocation_overview(draw) (the draw page: totals and the top 50 over the same statement):"
            f" {min(seconds):.2f} s and {max(seconds):.2f} s; {summary.members:,} members,"
            f" {summary.members_with_tickets:,} with tickets, {summary.tickets:,} tickets"
        )

    # --- the single-member path ------------------------------------------------------------
    rng = random.Random(args.seed)
    allocations = draw_allocations(draw, at=at)
    ids = [a.member_id for a in rng.sample(allocations, min(len(allocations), args.member_runs + 10))]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT member_id FROM members_pointsentry WHERE property_id = %(property)s AND earned_at >= %(start)s"
            " AND earned_at < %(end)s GROUP BY member_id ORDER BY count(*) DESC, member_id LIMIT 20",
            bare_params,
        )
        heavy_ids = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT member_id, count(*) FROM members_pointsentry WHERE property_id = %(property)s"
            " AND earned_at >= %(start)s AND earned_at < %(end)s AND member_id = ANY(%(ids)s) GROUP BY member_id",
            {**bare_params, "ids": ids + heavy_ids},
        )
        rows_of = dict(cursor.fetchall())
    loaded = Member.objects.select_related("tier").in_bulk(ids + heavy_ids)

    def time_members(member_ids: list[int], warm_up: int) -> list[float]:
        timings = []
        for index, member_id in enumerate(member_ids):
            member = loaded[member_id]
            began = time.perf_counter()
            member_allocation(draw, member, at=at)
            if index >= warm_up:
                timings.append((time.perf_counter() - began) * 1000)
        return timings

    statements: list[str] = []

    def count(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        member_allocation(draw, loaded[ids[0]], at=at)
    sample = time_members(ids, 10)
    heavy = time_members(heavy_ids[:3] + heavy_ids, 3)
    sample_rows = [rows_of.get(member_id, 0) for member_id in ids[10:]]
    heavy_rows = [rows_of.get(member_id, 0) for member_id in heavy_ids]
    print()
    print(f"member_allocation(draw, member): {len(statements)} SQL statements per call")
    header = f"{'members':<44} {'median ms':>9} {'p95 ms':>8} {'max ms':>8}  points rows in the period"
    print(header)
    print("-" * len(header))
    print(
        f"{f'{len(sample)} drawn at random from the allocation':<44} {statistics.median(sample):>9.2f}"
        f" {percentile(sample, 0.95):>8.2f} {max(sample):>8.2f}  median {statistics.median(sample_rows):.0f},"
        f" max {max(sample_rows):,}"
    )
    print(
        f"{'the 20 with the most points rows':<44} {statistics.median(heavy):>9.2f} {percentile(heavy, 0.95):>8.2f}"
        f" {max(heavy):>8.2f}  median {statistics.median(heavy_rows):,.0f}, max {max(heavy_rows):,}"
    )

    if not args.explain:
        return
    print()
    print("EXPLAIN (ANALYZE, BUFFERS), summarised (node lines with their actual times; loops=3: the leader and two")
    print("parallel workers each ran the node, which for a node that is not parallel-aware is the whole work 3 times):")
    print("--- bare GROUP BY")
    print("\n".join(explain(BARE_SQL, bare_params)))
    print("--- draws.allocation.allocation_sql (the project's statement)")
    print("\n".join(explain(sql, params, settings=project_settings)))
    if args.what_if:
        print(f"--- what-if variant (NOT the project's code; {what_if_settings})")
        print("\n".join(explain(improved, improved_params, settings=what_if_settings)))
    one_sql, one_params = allocation_sql(draw, at=at, member_id=heavy_ids[0])
    print(f"--- allocation_sql for one member (member {heavy_ids[0]}, {rows_of.get(heavy_ids[0], 0):,} points rows)")
    print("\n".join(explain(one_sql, one_params)))


if __name__ == "__main__":
    sys.exit(main())
