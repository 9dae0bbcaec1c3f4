"""Shared by bench/allocation.py and bench/activation_api.py: Django set-up, percentiles, and
the bench promotion / series / earning rule at one property of the bench data.

Not a benchmark itself. The rule is a realistic, non-trivial one (see BENCH_RULE): 100 points a
ticket over the 91 days before the draw (bench/fill.py spreads points over the last 90 days, so
the period covers every points row of a draw scheduled just after the fill), free tickets and a
cap by tier, and a bonus for members registered on the app.
"""

import datetime as dt
import http.client
import math
import os
import signal
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_bench"
BENCH_PROPERTY = "GRC"
PROMOTION_CODE = "bench-draws"
TIERS = ("TEN", "JACK", "QUEEN", "KING", "ACE")
BENCH_RULE = {
    "period_kind": "days_before",
    "period_days": 91,
    "points_per_ticket": 100,
    "minimum_points": 0,
    "free_tickets_by_tier": {"JACK": 1, "QUEEN": 3, "KING": 5, "ACE": 10},
    "cap_by_tier": {"TEN": 50, "JACK": 100, "QUEEN": 200, "KING": 400},
    "cap": 1000,  # ACE (every tier not in cap_by_tier)
    "bonus_app_registered": 2,
    "bonus_age_50_plus": 0,
    "bonus_active_at_property": 0,
    "bonus_per_visit": 0,
    "bonus_per_visit_app": 0,
    "equal_opportunity_tickets": None,
}
# The same rule plus a bonus per gaming visit (a day with points at the property), as Golden
# Horse's Prive PowerPlay Thursday draws have: `--rule visits` in bench/allocation.py.
VISITS_RULE = {**BENCH_RULE, "bonus_per_visit": 1, "bonus_per_visit_app": 1}


def setup_django(url: str) -> None:
    os.environ.update(APP_ENV="development", DATABASE_URL=url, DJANGO_SETTINGS_MODULE="config.settings")
    os.environ.pop("DEBUG", None)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def create_database(url: str) -> None:
    """Creates the bench's own database on the server of `url` unless it is there."""
    import psycopg
    from psycopg import sql

    parts = urllib.parse.urlparse(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created database {name}")


def migrate(url: str) -> None:
    """manage.py migrate on the bench database (other engineers add migrations as they go), in
    this process, set up for `url` as setup_django() does: a process of its own started Django
    a second time, seconds of each run on a busy machine (and of each bench smoke test). Set the
    environment the script's Django needs before calling it: this sets Django up."""
    setup_django(url)
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", interactive=False, verbosity=0)
    connections.close_all()


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile: p95 of 200 timings is the 190th smallest."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1))]


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} / {five:.1f} / {fifteen:.1f} (1 / 5 / 15 min) on {os.cpu_count()} CPUs"


def bench_series(code: str, name: str, rule: dict, *, property_code: str = BENCH_PROPERTY):
    """The bench promotion and one series of it with `rule`, created or brought up to date
    (idempotent: a second call changes nothing)."""
    from django.db import transaction

    from members.models import Property, Tier
    from promotions.models import DrawSeries, EarningRule, Promotion, PromotionStatus

    prop = Property.objects.get(code=property_code)
    with transaction.atomic():
        promotion, _ = Promotion.objects.get_or_create(
            code=PROMOTION_CODE,
            defaults={
                "name": "Bench draws (bench/)",
                "starts_on": dt.date(2020, 1, 1),
                "ends_on": dt.date(2099, 12, 31),
                "status": PromotionStatus.PUBLISHED,
                "rules_text": "Made by bench/drawbench.py for the benchmarks; not a real promotion.",
            },
        )
        promotion.properties.add(prop)
        series, _ = DrawSeries.objects.get_or_create(
            promotion=promotion,
            code=code,
            defaults={"name": name, "property": prop, "winners_per_draw": 5, "ticket_windows": []},
        )
        series.eligible_tiers.set(Tier.objects.filter(code__in=TIERS))
        series.desk_assisted_tiers.set(Tier.objects.filter(code__in=("KING", "ACE")))
        EarningRule.objects.update_or_create(series=series, defaults=rule)
    return DrawSeries.objects.select_related("rule", "property").get(pk=series.pk)


def wait_answering(process: subprocess.Popen, port: int, path: str, *, name: str, log, timeout: float = 60.0) -> None:
    """Return once GET `path` on 127.0.0.1:`port` answers 200; stop the bench (naming `log`) if
    the server's `process` exits first or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{name} exited with {process.returncode}; see {log}")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass  # not listening yet: ask again after a moment
        finally:
            conn.close()
        time.sleep(0.1)
    raise SystemExit(f"{name} did not answer within {timeout:.0f} s; see {log}")


def stop_process_group(process: subprocess.Popen) -> None:
    """SIGTERM to a server started in a session of its own (gunicorn's master, a worker: its
    children follow); SIGKILL to its whole process group if it has not gone after 20 s."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def continue_member_factory() -> None:
    """The test factories' MemberFactory numbers cards (and SA IDs) from the same start in every
    process: a second run of a bench that makes members with it (payout_race.py, letters.py) on
    the same database continues after the members there instead of failing on a card number."""
    from members.models import Member
    from members.tests.factories import MemberFactory

    MemberFactory.reset_sequence(Member.objects.count())
