"""Time the draw page before and after the draw standing (issue 6, item 4.4) on the database
bench/fill.py filled: the allocation statement on every page view against the standing counted
in the background.

    .venv/bin/python bench/standing.py [--database-url postgres://postgres@127.0.0.1:5432/promodesk_bench]
        [--old-runs 3] [--read-runs 200] [--page-runs 20] [--old-page-runs 3]

Uses the draw of bench/allocation.py (created once: the bench promotion at Gold Reef City, the
rule in drawbench.BENCH_RULE with 100 points a ticket, free tickets and a cap by tier, scheduled
on the hour after the newest points row, so that its earning period covers every GRC points
row). Then, in one run, after one untimed call of the statement to warm the caches:

(a) the old page's cost: draws.allocation.allocation_overview(draw, at=now) (what the draw page
    ran on every view before the standing), --old-runs times;
(b) draws.services.draw_standing_refresh(draw_id=...) once: the background count, kept in
    draws.models.DrawStanding;
(c) the new page's read: draws.selectors.draw_standing_overview(draw), --read-runs times after
    12 untimed calls;
(d) the whole draw page, GET /draws/<id>/ through django.test.Client logged in as an auditor
    (the user `bench-auditor`, created once), --page-runs times after 5 untimed requests, with
    the number of SQL statements; and the old page, --old-page-runs times after 2 untimed
    requests: the same view and template with draws.views.draw_standing_overview swapped for
    what the view called before (allocation_overview(draw, at=timezone.now())). That swap is the
    bench's reproduction of the old view, NOT the project's code.

Prints median and p95 of each and the ratios old / new.
"""

import argparse
import os
import statistics
import sys
import time
from unittest import mock

from drawbench import DEFAULT_URL, load_average, migrate, percentile, setup_django

AUDITOR_USERNAME = "bench-auditor"


def auditor_client():
    """A test client logged in as the bench auditor (read-only role), created once."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    from core.roles import AUDITOR

    user, created = get_user_model().objects.get_or_create(username=AUDITOR_USERNAME)
    if created:
        user.set_unusable_password()
        user.save()
    user.groups.set([Group.objects.get(name=AUDITOR)])
    client = Client()
    client.force_login(user)
    return client


def timings(call, runs: int, warm_up: int = 0) -> list[float]:
    """Seconds of each of `runs` calls, after `warm_up` untimed ones."""
    for _ in range(warm_up):
        call()
    seconds = []
    for _ in range(runs):
        began = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - began)
    return seconds


def statements_of(call) -> str:
    """The SQL statements one call sends, and their time as Django measured it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        call()
    queries = captured.captured_queries
    return f"{len(queries)} SQL ({sum(float(query['time']) for query in queries) * 1000:,.1f} ms)"


def line(label: str, seconds: list[float], statements: str = "", unit: str = "ms") -> str:
    scale = 1000 if unit == "ms" else 1
    figures = (
        f"{label:<58} {len(seconds):>5} {statistics.median(seconds) * scale:>11.2f}"
        f" {percentile(seconds, 0.95) * scale:>10.2f} {max(seconds) * scale:>10.2f} {unit}"
    )
    return f"{figures}  {statements}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--old-runs", type=int, default=3, help="allocation_overview calls timed (default 3)")
    parser.add_argument("--read-runs", type=int, default=200, help="draw_standing_overview calls timed (default 200)")
    parser.add_argument("--page-runs", type=int, default=20, help="new draw page requests timed (default 20)")
    parser.add_argument("--old-page-runs", type=int, default=3, help="old draw page requests timed (default 3)")
    args = parser.parse_args()

    migrate(args.database_url)
    setup_django(args.database_url)
    from allocation import bench_draw
    from django.db import connection
    from django.utils import timezone

    from draws import views
    from draws.allocation import allocation_overview
    from draws.selectors import draw_standing_overview
    from draws.services import draw_standing_refresh

    draw = bench_draw("bench")
    rule = draw.series.rule
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT count(*) FROM members_member), (SELECT count(*) FROM members_pointsentry),"
            " (SELECT count(*) FROM members_pointsentry WHERE property_id = %s)",
            [draw.property_id],
        )
        members, points, at_property = cursor.fetchone()
        cursor.execute("SELECT version()")
        version = cursor.fetchone()[0].split(" on ")[0]
    print(f"{connection.settings_dict['NAME']}: {members:,} members, {points:,} points rows ({version})")
    print(
        f"Draw {draw.pk} at {draw.property.code} ({at_property:,} points rows there),"
        f" {timezone.localtime(draw.scheduled_at):%Y-%m-%d %H:%M}: {rule.points_per_ticket} points a ticket,"
        f" free by tier {rule.free_tickets_by_tier}, cap by tier {rule.cap_by_tier} else {rule.cap},"
        f" app bonus {rule.bonus_app_registered}"
    )
    print(f"Load average {load_average()}")
    started = time.perf_counter()

    # (a) the old page's cost, after one untimed call
    at = timezone.now()
    old_statements = statements_of(lambda: allocation_overview(draw, at=at))
    old = timings(lambda: allocation_overview(draw, at=at), args.old_runs)
    print(f"  (a) allocation_overview x{args.old_runs} done, {time.perf_counter() - started:.0f} s", flush=True)

    # (b) the background count, once
    began = time.perf_counter()
    standing = draw_standing_refresh(draw_id=draw.pk, now=at)
    refresh = time.perf_counter() - began
    print(f"  (b) draw_standing_refresh done, {time.perf_counter() - started:.0f} s", flush=True)

    # (c) the new page's read
    overview, _ = draw_standing_overview(draw)
    read_statements = statements_of(lambda: draw_standing_overview(draw))
    read = timings(lambda: draw_standing_overview(draw), args.read_runs, warm_up=10)
    print(f"  (c) draw_standing_overview x{args.read_runs} done, {time.perf_counter() - started:.0f} s", flush=True)

    # (d) the whole page as an auditor, new and old
    client = auditor_client()
    url = f"/draws/{draw.pk}/"
    response = client.get(url)
    content = response.content.decode()
    shows = overview is not None and f"{overview.tickets:,}" in content and 'id="allocations"' in content
    page_statements = statements_of(lambda: client.get(url))
    page = timings(lambda: client.get(url), args.page_runs, warm_up=3)
    print(f"  (d) GET {url} x{args.page_runs} done, {time.perf_counter() - started:.0f} s", flush=True)

    def old_view_overview(draw):  # NOT the project's code: what the view ran before the standing
        return allocation_overview(draw, at=timezone.now()), standing

    with mock.patch.object(views, "draw_standing_overview", old_view_overview):
        old_response = client.get(url)
        old_page_statements = statements_of(lambda: client.get(url))
        old_page = timings(lambda: client.get(url), args.old_page_runs)
    print(f"  (d) old page x{args.old_page_runs} done, {time.perf_counter() - started:.0f} s", flush=True)

    print()
    print(
        f"Timed in {time.perf_counter() - started:.0f} s; load average {load_average()} now."
        f" Standing: {standing.members:,} members, {standing.members_with_tickets:,} with tickets,"
        f" {standing.tickets:,} tickets, top {len(standing.top)}."
    )
    header = f"{'what':<58} {'runs':>5} {'median':>11} {'p95':>10} {'max':>10}     SQL in one call (its time)"
    print(header)
    print("-" * len(header))
    print(line("(a) old page's count: allocation_overview(draw, at=now)", old, old_statements, unit="s"))
    print(f"{'(b) draw_standing_refresh (background, once)':<58} {1:>5} {refresh:>11.2f} {'':>10} {'':>10} s")
    print(line("(c) new page's read: draw_standing_overview(draw)", read, read_statements))
    print(line(f"(d) GET {url} as auditor, new (reads the standing)", page, page_statements))
    print(
        line(f"(d) GET {url} as auditor, old (statement per view)", old_page, old_page_statements, unit="s")
        + "  [bench's reproduction]"
    )
    print(
        f"Pages: new {response.status_code}, {len(response.content):,} bytes, shows the counted allocation:"
        f" {'yes' if shows else 'NO'}; old {old_response.status_code}, {len(old_response.content):,} bytes."
    )
    print()
    old_median, read_median, page_median = (statistics.median(s) for s in (old, read, page))
    print("Ratios of medians, old / new:")
    print(f"  allocation_overview / draw_standing_overview: {old_median / read_median:>10,.1f}x")
    print(f"  old draw page / new draw page (Client):       {statistics.median(old_page) / page_median:>10,.1f}x")
    print(f"  one refresh / one new page view:              {refresh / page_median:>10,.1f}x (views per count)")


if __name__ == "__main__":
    sys.exit(main())
