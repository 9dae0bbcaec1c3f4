"""Time members.selectors.member_lookup on the database bench/fill.py filled.

    .venv/bin/python bench/lookup.py [--database-url postgres://postgres@127.0.0.1:5432/promodesk_bench]
        [--iterations 200] [--baseline-iterations N]

Four kinds of lookup, each with its own random sample of real members: exact card number,
exact SA ID number, one word of 3 to 5 letters cut from a real first name or surname
("kosi", "thab"), and two words ("thabo nkosi"). Each lookup is timed end to end (Django ORM,
SQL, building the Member objects), after a warm-up. The name kinds run a second time with the
trigram index out of the planner's reach (SET LOCAL enable_bitmapscan = off: a GIN index can
only be read through a bitmap scan), the same queries in the same run, as the baseline.
Then EXPLAIN (ANALYZE, BUFFERS) of the SQL that member_lookup itself sent, one lookup per kind.
"""

import argparse
import math
import os
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_bench"
TARGET_MEMBERS = 1_000_000
# ARCHITECTURE targets among 1,000,000 members.
TARGET_MS = {"card": 5.0, "id_number": 5.0, "name": 50.0}
WARM_UP = 10
PLAN_KEYWORDS = ("Scan", "Index Cond", "Recheck Cond", "Filter:", "Sort Method", "Heap Blocks", "Workers Launched")
PLAN_SKIP = ("members_tier", "members_property", "tier_id", "home_property_id", "Worker ", "Join Filter")


@dataclass
class Kind:
    key: str
    label: str
    matched_by: str
    queries: list[str]
    expected_ids: list[int | None]
    timings_ms: list[float] = field(default_factory=list)
    returned: list[int] = field(default_factory=list)
    truncated: int = 0
    wrong: int = 0
    sql_per_lookup: int = 0
    matching: list[int] = field(default_factory=list)
    baseline_ms: list[float] = field(default_factory=list)
    sql_ms: list[float] = field(default_factory=list)
    what_if_ms: list[float] = field(default_factory=list)
    what_if_same: int = 0


def setup_django(url: str) -> None:
    os.environ.update(APP_ENV="development", DATABASE_URL=url, DJANGO_SETTINGS_MODULE="config.settings")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile: p95 of 200 timings is the 190th smallest."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1))]


def words_of(name: str) -> list[str]:
    return [word for word in re.findall(r"[a-z]+", name.lower()) if len(word) >= 3]


def sample_members(count: int, rng: random.Random, *, sa_id_only: bool = False) -> list[dict]:
    """`count` members picked at random by id (ids are dense after bench/fill.py)."""
    from members.identity import IdType
    from members.models import Member

    bounds = Member.objects.order_by("id").values_list("id", flat=True)
    low, high = bounds.first(), bounds.last()
    found: dict[int, dict] = {}
    for _attempt in range(20):
        if len(found) >= count:
            break
        ids = [rng.randint(low, high) for _ in range(count * 2)]
        rows = Member.objects.filter(id__in=ids)
        if sa_id_only:
            rows = rows.filter(id_type=IdType.SA_ID)
        for row in rows.values("id", "card_number", "id_number", "first_name", "last_name"):
            found.setdefault(row["id"], row)
    picked = list(found.values())
    if not picked:
        raise SystemExit("No suitable members to sample: run bench/fill.py first")
    rng.shuffle(picked)
    return (picked * (count // len(picked) + 1))[:count]  # repeats only in a tiny database


def build_kinds(iterations: int, rng: random.Random) -> list[Kind]:
    total = iterations + WARM_UP
    cards = sample_members(total, rng)
    ids = sample_members(total, rng, sa_id_only=True)
    one_word, two_words = [], []
    for member in sample_members(total, rng):
        word = rng.choice(words_of(member["first_name"]) + words_of(member["last_name"]) or ["thabo"])
        length = rng.randint(3, min(5, len(word)))
        start = rng.randint(0, len(word) - length)
        one_word.append(word[start : start + length])
    for member in sample_members(total, rng):
        last_words = words_of(member["last_name"]) or [member["last_name"].lower()]
        two_words.append(f"{member['first_name'].lower()} {last_words[-1]}")
    return [
        Kind("card", "card number (exact)", "card", [m["card_number"] for m in cards], [m["id"] for m in cards]),
        Kind("id_number", "SA ID number (exact)", "id_number", [m["id_number"] for m in ids], [m["id"] for m in ids]),
        Kind("name", "name, one word of 3-5 letters", "name", one_word, [None] * total),
        Kind("name", "name, two words", "name", two_words, [None] * total),
    ]


def count_queries(call: Callable[[], object]) -> tuple[object, list[tuple[str, tuple]]]:
    from django.db import connection

    captured: list[tuple[str, tuple]] = []

    def wrapper(execute, sql, params, many, context):
        captured.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        result = call()
    return result, captured


def time_one(kind: Kind, index: int, *, baseline: bool = False) -> None:
    """Time member_lookup for the kind's index-th query. The indexed runs go through exactly as
    the desk calls it (autocommit); the baseline runs in a transaction that turns bitmap scans off."""
    from django.db import connection, transaction

    from members.selectors import member_lookup

    query, expected = kind.queries[index], kind.expected_ids[index]
    if baseline:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL enable_bitmapscan = off")
            started = time.perf_counter()
            member_lookup(query)
            elapsed = (time.perf_counter() - started) * 1000
    else:
        started = time.perf_counter()
        result = member_lookup(query)
        elapsed = (time.perf_counter() - started) * 1000
    if index < WARM_UP:
        return
    if baseline:
        kind.baseline_ms.append(elapsed)
        return
    kind.timings_ms.append(elapsed)
    kind.returned.append(len(result.members))
    kind.truncated += result.truncated
    ok = result.matched_by == kind.matched_by and (expected is None or [m.pk for m in result.members] == [expected])
    kind.wrong += not ok


def what_if_lookup(raw: str, *, limit: int = 50):
    """NOT the project's code: member_lookup with the two changes this benchmark suggests, to
    measure them. (1) A digit string is looked up as card and as ID number in one statement
    (card matches still win). (2) The name statement has no ORDER BY: PostgreSQL stops after
    limit + 1 matches instead of fetching and sorting every match; the rows are sorted in Python.
    Same members whenever nothing is cut at the limit; when it is, some `limit` matches in name
    order instead of the alphabetically first `limit`."""
    from django.db.models import Q

    from members.identity import normalise_id_number
    from members.models import Member
    from members.selectors import LookupResult, normalise_lookup

    query = normalise_lookup(raw)
    members = Member.objects.with_related()
    if query.isdigit():
        found = list(members.filter(Q(card_number=query) | Q(id_number=query)))
        cards = [m for m in found if m.card_number == query]
        if cards:
            return LookupResult(query, "card", cards)
        return LookupResult(query, "id_number", [m for m in found if m.id_number == query])
    if " " not in query:
        found = list(members.filter(id_number=normalise_id_number(query)))
        if found:
            return LookupResult(query, "id_number", found)
    words = query.lower().split()
    for word in words:
        members = members.filter(search_name__contains=word)
    found = list(members.order_by()[: limit + 1])
    found.sort(key=lambda m: (m.last_name, m.first_name, m.pk))
    return LookupResult(query, "name", found[:limit], truncated=len(found) > limit)


def time_what_if(kind: Kind, index: int) -> None:
    from members.selectors import member_lookup

    query = kind.queries[index]
    started = time.perf_counter()
    result = what_if_lookup(query)
    elapsed = (time.perf_counter() - started) * 1000
    if index < WARM_UP:
        return
    kind.what_if_ms.append(elapsed)
    if not result.truncated:
        kind.what_if_same += [m.pk for m in result.members] == [m.pk for m in member_lookup(query).members]


def time_sql_only(kind: Kind, count: int) -> None:
    """The SQL member_lookup sends, replayed through a plain cursor: the database's share."""
    from django.db import connection

    from members.selectors import member_lookup

    for query in kind.queries[WARM_UP : WARM_UP + count]:
        _, statements = count_queries(lambda query=query: member_lookup(query))
        started = time.perf_counter()
        with connection.cursor() as cursor:
            for sql, params in statements:
                cursor.execute(sql, params)
                cursor.fetchall()
        kind.sql_ms.append((time.perf_counter() - started) * 1000)


def matching_counts(kind: Kind) -> None:
    """How many members match each name query in all (the desk is shown at most 50)."""
    from members.models import Member

    for query in kind.queries[WARM_UP:]:
        members = Member.objects.all()
        for word in query.lower().split():
            members = members.filter(search_name__contains=word)
        kind.matching.append(members.count())


def slowest_query(kind: Kind) -> str:
    return max(zip(kind.timings_ms, kind.queries[WARM_UP:], strict=False))[1]


def explain(kind: Kind, *, baseline: bool = False, query: str | None = None, note: str = "") -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) of each statement member_lookup sends for one query."""
    from django.db import connection, transaction

    from members.selectors import member_lookup

    query = query or kind.queries[WARM_UP]
    _, statements = count_queries(lambda: member_lookup(query))
    lines = [f"{kind.label}{' [baseline: bitmap scans off]' if baseline else ''}{note}: {query!r}"]
    for number, (sql, params) in enumerate(statements, start=1):
        with transaction.atomic(), connection.cursor() as cursor:
            if baseline:
                cursor.execute("SET LOCAL enable_bitmapscan = off")
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            plan = [row[0] for row in cursor.fetchall()]
        where = re.search(r"\bWHERE (.*?)(?: ORDER BY| LIMIT|$)", sql)
        lines.append(f"  statement {number}: WHERE {where.group(1) if where else '-'}")
        buffers = next((line.strip() for line in plan if "Buffers:" in line), "")
        for line in plan:
            if any(k in line for k in PLAN_KEYWORDS) and not any(k in line for k in PLAN_SKIP):
                lines.append("    " + line.rstrip())
        lines.append(f"    {buffers}")
        lines.extend("    " + line.strip() for line in plan if line.startswith(("Planning Time", "Execution Time")))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--iterations", type=int, default=200, help="lookups timed per kind (default 200)")
    parser.add_argument(
        "--baseline-iterations", type=int, default=None, help="name lookups timed without the index (default: all)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--no-what-if", dest="what_if", action="store_false", help="skip timing the suggested variant of the lookup"
    )
    args = parser.parse_args()

    setup_django(args.database_url)
    from django.db import connection

    from members.models import Member
    from members.selectors import member_lookup

    rng = random.Random(args.seed)
    members = Member.objects.count()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM members_pointsentry")
        points = cursor.fetchone()[0]
        cursor.execute("SELECT version()")
        version = cursor.fetchone()[0].split(" on ")[0]
    print(f"{connection.settings_dict['NAME']}: {members:,} members, {points:,} points rows ({version})")
    if members < TARGET_MEMBERS:
        print(f"NOTE: the targets are for {TARGET_MEMBERS:,} members; this database holds {members:,}.")
    if not members:
        raise SystemExit("No members: run bench/fill.py first")

    kinds = build_kinds(args.iterations, rng)
    for kind in kinds:
        _, statements = count_queries(lambda kind=kind: member_lookup(kind.queries[0]))
        kind.sql_per_lookup = len(statements)
    baseline_runs = args.iterations if args.baseline_iterations is None else args.baseline_iterations
    load_before = os.getloadavg()
    started = time.perf_counter()
    # Round robin over the kinds (and the baseline), so that whatever else the machine is doing
    # falls on every kind alike.
    for index in range(WARM_UP + args.iterations):
        for kind in kinds:
            time_one(kind, index)
            if kind.key == "name" and index < WARM_UP + baseline_runs:
                time_one(kind, index, baseline=True)
            if args.what_if:
                time_what_if(kind, index)
    elapsed = time.perf_counter() - started
    load_after = os.getloadavg()
    for kind in kinds:
        time_sql_only(kind, min(args.iterations, 100))
        if kind.key == "name":
            matching_counts(kind)
    print(
        f"Timed {args.iterations} lookups per kind, {baseline_runs} per name kind without the index"
        f" (after {WARM_UP} warm-up), in {elapsed:.0f} s."
    )
    print(
        f"Load average (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after, on {os.cpu_count()} CPUs"
        " (counting this benchmark: up to 3 processes during the parallel baseline scans)."
    )

    print()
    header = (
        f"{'lookup':<32} {'median ms':>9} {'p95 ms':>8} {'target':>9}  {'p95 ok':<6} {'stmts':>5}"
        f" {'SQL ms':>6}  results"
    )
    print(header)
    print("-" * len(header))
    for kind in kinds:
        target = TARGET_MS[kind.key]
        p95 = percentile(kind.timings_ms, 0.95)
        if kind.key == "name":
            results = (
                f"returned median {statistics.median(kind.returned):.0f} (max {max(kind.returned)}),"
                f" {kind.truncated} of {len(kind.returned)} cut at 50;"
                f" matching members median {statistics.median(kind.matching):,.0f}, max {max(kind.matching):,}"
            )
        else:
            results = f"{statistics.mean(kind.returned):.2f} members per lookup, {kind.wrong} wrong"
        print(
            f"{kind.label:<32} {statistics.median(kind.timings_ms):>9.2f} {p95:>8.2f} {'<= ' + format(target, 'g'):>9}"
            f"  {'yes' if p95 <= target else 'NO':<6} {kind.sql_per_lookup:>5} {statistics.median(kind.sql_ms):>6.2f}"
            f"  {results}"
        )

    print()
    print("Baseline: the same name lookups with the trigram index unused (SET LOCAL enable_bitmapscan = off)")
    header = f"{'lookup':<32} {'indexed median':>14} {'baseline median':>15} {'baseline p95':>12} {'speed-up':>8}"
    print(header)
    print("-" * len(header))
    for kind in kinds:
        if kind.key != "name":
            continue
        if not kind.baseline_ms:
            print(f"{kind.label:<32} (skipped: --baseline-iterations 0)")
            continue
        indexed = statistics.median(kind.timings_ms[: len(kind.baseline_ms)])
        base = statistics.median(kind.baseline_ms)
        print(
            f"{kind.label:<32} {indexed:>11.2f} ms {base:>12.2f} ms {percentile(kind.baseline_ms, 0.95):>9.2f} ms"
            f" {base / indexed:>7.1f}x"
        )

    print(
        "(stmts: SQL statements per lookup; SQL ms: median time of those statements replayed through a plain"
        " cursor, the rest is Django building the query and the Member objects)"
    )
    for kind in kinds:
        if kind.key == "name":
            timed = zip(kind.queries[WARM_UP:], kind.timings_ms, kind.matching, strict=False)
            slowest = sorted(timed, key=lambda item: item[1], reverse=True)[:4]
            print(
                f"Slowest {kind.label}: "
                + ", ".join(f"{query!r} {ms:.0f} ms ({matching:,} matching)" for query, ms, matching in slowest)
            )

    if args.what_if:
        print()
        print("What if (NOT the project's code, see what_if_lookup): card/ID in one statement, no ORDER BY in SQL")
        header = (
            f"{'lookup':<32} {'median ms':>9} {'p95 ms':>8} {'target':>9}  {'p95 ok':<6}  same members when not cut"
        )
        print(header)
        print("-" * len(header))
        for kind in kinds:
            target = TARGET_MS[kind.key]
            p95 = percentile(kind.what_if_ms, 0.95)
            uncut = len(kind.returned) - kind.truncated
            print(
                f"{kind.label:<32} {statistics.median(kind.what_if_ms):>9.2f} {p95:>8.2f}"
                f" {'<= ' + format(target, 'g'):>9}  {'yes' if p95 <= target else 'NO':<6}"
                f"  {kind.what_if_same} of {uncut}"
            )

    print()
    print("EXPLAIN (ANALYZE, BUFFERS) of the statements member_lookup sends (one lookup per kind):")
    for kind in kinds:
        print("\n".join(explain(kind)))
    for kind in kinds:
        if kind.key == "name":
            print("\n".join(explain(kind, query=slowest_query(kind), note=" [the slowest one timed]")))
    for kind in kinds:
        if kind.key == "name":
            print("\n".join(explain(kind, baseline=True)))
            print("\n".join(explain(kind, baseline=True, query=slowest_query(kind), note=" [the slowest one timed]")))


if __name__ == "__main__":
    main()
