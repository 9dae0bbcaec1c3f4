"""Lists at casino-group scale (issue 17, item 4): the audit log, members, draws and imports lists
through Django's test client, as the role that reads each, on the first page, a middle page,
the last page and filtered pages, at 2,000,000 audit events and 1,000,000 members.

    .venv/bin/python bench/lists.py --database-url postgres://postgres@127.0.0.1:5432/promodesk_bench_lists
        [--members 1000000] [--events 2000000] [--draws 20000] [--imports 20000] [--rounds 20]

The database is created if missing and migrated. If it holds fewer than --members members,
bench/fill.py adds them (no points). The audit log is emptied and refilled when it does not
hold --events events (INSERT ... SELECT generate_series, triggers off so the events can be dated
over the last year: 40 desk clerks, a manager, the tick; one event in ten a sign-up); likewise
--draws draws of one bench series (one an hour, half past, half to come, each with its ticket
window; all scheduled: the database refuses a draw inserted already run) and --imports import jobs. Then VACUUM ANALYZE.

Each round times every page once, interleaved with two baselines measured in the same rounds:
the login page (the framework's floor: middleware, session, a template) and the bare
`SELECT ... ORDER BY created_at DESC, id DESC LIMIT 50` of the audit log's first page. It prints
p50 / p95 of each page, its ratio to the login page's p50, the words under each list (the count
it shows) and the machine's load. Works on the code before keyset paging too (a middle page is
then `?page=N`, the last `?page=<last number>`), so one script measures before and after.
"""

import argparse
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

from drawbench import bench_series, create_database, load_average, migrate, percentile, setup_django

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_listbench"
HERE = Path(__file__).resolve().parent
PER_PAGE = 50
DESKS = 40


def ensure_members(url: str, wanted: int) -> int:
    from members.models import Member

    have = Member.objects.count()
    if have < wanted:
        print(f"-- {have:,} members: bench/fill.py adds them up to {wanted:,} (no points)", flush=True)
        fill = [sys.executable, str(HERE / "fill.py"), "--members", str(wanted), "--points", "0"]
        subprocess.run([*fill, "--database-url", url, "--reset"], check=True, stdout=subprocess.DEVNULL)
        have = Member.objects.count()
    return have


def fill_events(wanted: int) -> None:
    from django.db import connection

    from core.audit_words import ACTIONS

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM core_auditevent")
        if wanted <= cursor.fetchone()[0] <= wanted + 1000:  # a run's own sign-ins add a few
            return
        common = "tickets.activated" if "tickets.activated" in ACTIONS else sorted(ACTIONS)[0]
        rare = "member.signed_up" if "member.signed_up" in ACTIONS else sorted(ACTIONS)[1]
        began = time.perf_counter()
        cursor.execute("TRUNCATE core_auditevent, core_auditseal")
        cursor.execute("SET session_replication_role = replica")  # date them over the past year
        cursor.execute(
            """
            INSERT INTO core_auditevent (created_at, actor_label, action, object_type, object_id, data, ip)
            SELECT now() - interval '365 days' + (n * (365 * 86400.0 / %(events)s)) * interval '1 second',
                   CASE WHEN n %% 50 = 0 THEN 'system:tick' WHEN n %% 97 = 0 THEN 'manager'
                        ELSE 'desk' || (n %% %(desks)s) END,
                   CASE WHEN n %% 10 = 0 THEN %(rare)s ELSE %(common)s END,
                   CASE WHEN n %% 10 = 0 THEN 'members.member' ELSE 'draws.activation' END,
                   (n %% 100000)::text,
                   jsonb_build_object('tickets', n %% 97, 'card_number', '1' || lpad((n %% 999999)::text, 9, '0')),
                   CASE WHEN n %% 3 = 0 THEN NULL ELSE '10.0.' || (n %% 250) || '.' || (n %% 200) END::inet
              FROM generate_series(1, %(events)s) AS n
            """,
            {"events": wanted, "desks": DESKS, "common": common, "rare": rare},
        )
        cursor.execute("SET session_replication_role = origin")
    print(f"-- {wanted:,} audit events written in {time.perf_counter() - began:.1f} s", flush=True)


def fill_draws(wanted: int) -> None:
    import datetime as dt

    from django.utils import timezone
    from drawbench import BENCH_RULE

    from draws.models import Draw, TicketWindow

    series = bench_series("bench-lists", "Bench lists (bench/lists.py)", BENCH_RULE)
    if Draw.objects.filter(series=series).count() == wanted:
        return
    Draw.objects.filter(series=series).delete()
    start = timezone.now().replace(minute=0, second=0, microsecond=0) - dt.timedelta(hours=wanted // 2)
    for lo in range(0, wanted, 5000):
        draws = []
        for n in range(lo, min(wanted, lo + 5000)):
            at = start + dt.timedelta(hours=n)
            draws.append(
                Draw(
                    series=series,
                    property=series.property,
                    name=f"Bench list draw {n}",
                    scheduled_at=at,
                    method="electronic",
                    tickets_open_at=at - dt.timedelta(hours=6),
                    tickets_close_at=at - dt.timedelta(minutes=5),
                    proxies_open_at=at - dt.timedelta(hours=6),
                    proxies_close_at=at - dt.timedelta(minutes=5),
                    declines_open_at=at - dt.timedelta(hours=6),
                    declines_close_at=at - dt.timedelta(minutes=5),
                )
            )
        made = Draw.objects.bulk_create(draws)
        TicketWindow.objects.bulk_create(
            TicketWindow(draw=d, opens_at=d.tickets_open_at, closes_at=d.tickets_close_at) for d in made
        )
    print(f"-- {wanted:,} draws written", flush=True)


def fill_imports(wanted: int) -> None:
    from members.models import ImportJob, ImportStatus

    if ImportJob.objects.count() == wanted:
        return
    ImportJob.objects.all().delete()
    statuses = [ImportStatus.SUCCEEDED] * 8 + [ImportStatus.FAILED, ImportStatus.QUEUED]
    for lo in range(0, wanted, 5000):
        ImportJob.objects.bulk_create(
            ImportJob(kind="points" if n % 3 else "members", original_name=f"bench-{n}.csv", status=statuses[n % 10])
            for n in range(lo, min(wanted, lo + 5000))
        )
    print(f"-- {wanted:,} import jobs written", flush=True)


def client_as(role: str, username: str):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    from members.models import Property, StaffProfile

    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save()
    user.groups.set([Group.objects.get(name=role)])
    properties = list(Property.objects.order_by("pk"))
    profile, _ = StaffProfile.objects.update_or_create(user=user, defaults={"home_property": properties[0]})
    profile.other_properties.set(properties[1:])
    client = Client()
    client.force_login(user)
    return client


def deep_links(queryset, keyset: bool) -> tuple[str, str]:
    """The query strings of a middle page and the last page: cursors where the code pages by
    keyset, page numbers before it did."""
    total = queryset.count()
    middle = total // 2
    if keyset:
        from core import paging

        keys = paging._keys(queryset)
        return "after=" + urllib.parse.quote(paging.encode_cursor(queryset[middle], keys)), "page=last"
    return f"page={middle // PER_PAGE + 1}", f"page={(total + PER_PAGE - 1) // PER_PAGE}"


def foot_words(content: bytes) -> str:
    text = content.decode()
    marker = 'data-testid="page-count">'
    at = text.find(marker)
    return text[at + len(marker) : text.find("<", at + len(marker))] if at >= 0 else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--members", type=int, default=1_000_000)
    parser.add_argument("--events", type=int, default=2_000_000)
    parser.add_argument("--draws", type=int, default=20_000)
    parser.add_argument("--imports", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()

    create_database(args.database_url)
    migrate(args.database_url)
    setup_django(args.database_url)
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from core import paging
    from core.audit_words import AREAS
    from core.models import AuditEvent
    from core.roles import AUDITOR, PROMOTIONS_MANAGER, REWARDS_DESK
    from draws.models import Draw
    from members.models import ImportJob, Member, Property, Tier

    members = ensure_members(args.database_url, args.members)
    for number in range(DESKS):  # the clerks the events name, so the Who filter offers them
        get_user_model().objects.get_or_create(username=f"desk{number}")
    fill_events(args.events)
    fill_draws(args.draws)
    fill_imports(args.imports)
    with connection.cursor() as cursor:
        for table in ("core_auditevent", "members_member", "draws_draw", "draws_ticketwindow", "members_importjob"):
            cursor.execute(f"VACUUM ANALYZE {table}")

    keyset = hasattr(paging, "KeysetPage")
    print(f"code: {'keyset paging' if keyset else 'page numbers (OFFSET) and whole counts'}")
    print(f"data: {AuditEvent.objects.count():,} audit events, {members:,} members, ", end="")
    print(f"{Draw.objects.count():,} draws, {ImportJob.objects.count():,} imports; load {load_average()}")

    auditor = client_as(AUDITOR, "bench-lists-auditor")
    manager = client_as(PROMOTIONS_MANAGER, "bench-lists-manager")
    desk = client_as(REWARDS_DESK, "bench-lists-desk")
    anonymous = __import__("django.test", fromlist=["Client"]).Client()

    audit_mid, audit_last = deep_links(AuditEvent.objects.all(), keyset)
    member_mid, member_last = deep_links(Member.objects.order_by("-pk"), keyset)
    draws_all = Draw.objects.order_by("-scheduled_at", "-id")
    draw_mid, draw_last = deep_links(draws_all, keyset)
    import_mid, import_last = deep_links(ImportJob.objects.order_by("-created_at", "-pk"), keyset)
    gh, ace = Property.objects.get(code="GH"), Tier.objects.get(code="ACE")
    draw_area = AREAS.get("draw", "Draws")  # tickets.activated's area too: nine events in ten
    busy = {AREAS.get(prefix) for prefix in ("draw", "tickets", "member")}
    rare_area = next((name for name in sorted(set(AREAS.values())) if name not in busy), draw_area)  # no events
    audit, members_url, draws_url, imports_url = (
        reverse("audit"),
        reverse("members:list"),
        reverse("draws:list"),
        reverse("members:imports"),
    )
    pages = [
        ("audit: first page", auditor, audit, ""),
        ("audit: middle page", auditor, audit, audit_mid),
        ("audit: last page", auditor, audit, audit_last),
        ("audit: ?page=last", auditor, audit, "page=last"),
        ("audit: one clerk (actor)", auditor, audit, "actor=desk7"),
        ("audit: one clerk, last page", auditor, audit, "actor=desk7&page=last"),
        ("audit: one action (1 in 10)", auditor, audit, "action=member.signed_up"),
        ("audit: one area", auditor, audit, urllib.parse.urlencode({"action": f"area:{draw_area}"})),
        ("audit: a rare area (none)", auditor, audit, urllib.parse.urlencode({"action": f"area:{rare_area}"})),
        ("audit: one object's history", auditor, audit, "object_type=members.member&object_id=42420"),
        ("audit: one day", auditor, audit, "date_from=2026-06-01&date_to=2026-06-01"),
        ("members: first page", desk, members_url, ""),
        ("members: middle page", desk, members_url, member_mid),
        ("members: last page", desk, members_url, member_last),
        ("members: casino + tier", desk, members_url, f"home_property={gh.pk}&tier={ace.pk}"),
        ("members: name search", desk, members_url, "q=nkosi"),
        ("draws: all, first page", manager, draws_url, "when=all&property=all"),
        ("draws: all, middle page", manager, draws_url, "when=all&property=all&" + draw_mid),
        ("draws: all, last page", manager, draws_url, "when=all&property=all&" + draw_last),
        ("draws: upcoming (default)", manager, draws_url, ""),
        ("imports: first page", manager, imports_url, ""),
        ("imports: middle page", manager, imports_url, import_mid),
        ("imports: last page", manager, imports_url, import_last),
        ("imports: rejected only", manager, imports_url, "status=failed"),
    ]

    def bare_select():
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM core_auditevent ORDER BY created_at DESC, id DESC LIMIT 50")
            cursor.fetchall()

    login = reverse("login")
    timed: dict[str, list[float]] = {"login page": [], "bare SELECT ... LIMIT 50": []}
    words: dict[str, str] = {}
    statements: dict[str, str] = {}
    for label, client, url, query in pages:  # warm up, check that every page answers, count its SQL
        client.get(f"{url}?{query}")
        with CaptureQueriesContext(connection) as captured:
            response = client.get(f"{url}?{query}")
        assert response.status_code == 200, (label, response.status_code)
        sql_ms = sum(float(q["time"]) for q in captured.captured_queries) * 1000
        statements[label] = f"{len(captured):3} {sql_ms:7.1f}"
        words[label] = foot_words(response.content)
        timed[label] = []
    for _ in range(args.rounds):
        for label, client, url, query in [("login page", anonymous, login, ""), *pages]:
            began = time.perf_counter()
            assert client.get(f"{url}?{query}" if query else url).status_code == 200
            timed[label].append(time.perf_counter() - began)
        began = time.perf_counter()
        bare_select()
        timed["bare SELECT ... LIMIT 50"].append(time.perf_counter() - began)

    floor = sorted(timed["login page"])[len(timed["login page"]) // 2]
    print(f"\n{args.rounds} rounds, interleaved; ratio = the page's p50 / the login page's p50")
    print("(queries and SQL ms: one extra pass of the page, the time PostgreSQL's answers took)")
    print(f"{'':34} {'p50 ms':>8} {'p95 ms':>8} {'ratio':>7} {'queries':>7} {'SQL ms':>7}  the foot says")
    for label, seconds in timed.items():
        p50, p95 = percentile(seconds, 0.5), percentile(seconds, 0.95)
        sql = statements.get(label, f"{'':3} {'':7}")
        print(f"{label:34} {p50 * 1000:8.1f} {p95 * 1000:8.1f} {p50 / floor:6.1f}x {sql:>15}  {words.get(label, '')}")
    worst = max(percentile(timed[label], 0.95) for label, *_ in pages)
    print(f"\nworst list page p95: {worst * 1000:.1f} ms (target <= 200 ms); load {load_average()}")


if __name__ == "__main__":
    main()
