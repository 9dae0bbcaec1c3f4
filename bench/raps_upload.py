"""How long a RAPS upload of 100,000 rows holds the draw's row lock (issue 13, item 12).

    .venv/bin/python bench/raps_upload.py [--rows 100000] [--runs 3] [--before <commit>]
        [--database-url postgres://postgres@127.0.0.1:5432/promodesk_rapsbench]

While the lock is held the tick cannot start the session and the draw page's run actions
wait. The script uploads the same 100,000-row list to fresh closed sessions with the project's
`draws.raps.raps_list_upload` ("after") and with the same function as it was at `--before`
(default: the commit before issue 13 moved the qualification out of the lock, loaded from git
as a module), and prints, for each, the whole upload's time and the time spent inside its
transaction (from the SELECT ... FOR UPDATE to the commit: the lock's hold). Nothing asserts a
time. Uses its own database (bench/fill.py makes it with members and no points rows).

The entries' guard in the database is measured both ways (`--guards row,statement`): 0010's row
trigger, which looks up the list and locks the draw for every row written (the "before" commit
ran with it), and 0014's statement trigger, which checks each list once per statement. The
script swaps them with migration 0014's own SQL and leaves the database as migrated (statement).
"""

import argparse
import datetime as dt
import importlib
import os
import subprocess
import sys
import time
import types
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from drawbench import BENCH_RULE, bench_series, load_average, setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_rapsbench"
BEFORE = "2baa8e7"  # issue 13's starting point: qualification inside the locked section
SERIES_CODE = "bench-raps"


class TimedTransaction:
    """Stands in for `django.db.transaction` in the module under test: times each atomic block."""

    def __init__(self, real):
        self.real = real
        self.held: list[float] = []

    def atomic(self, *args, **kwargs):
        block = self.real.atomic(*args, **kwargs)
        held = self.held

        class Timed:
            def __enter__(self):
                self.started = time.perf_counter()
                return block.__enter__()

            def __exit__(self, *exc):
                try:
                    return block.__exit__(*exc)
                finally:
                    held.append(time.perf_counter() - self.started)

        return Timed()

    def __getattr__(self, name):
        return getattr(self.real, name)


def module_at(commit: str) -> types.ModuleType:
    source = subprocess.run(
        ["git", "show", f"{commit}:draws/raps.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    module = types.ModuleType(f"raps_at_{commit}")
    module.__file__ = f"{commit}:draws/raps.py"
    exec(compile(source, module.__file__, "exec"), module.__dict__)  # noqa: S102 (the project's own file)
    return module


def list_text(rows: int) -> str:
    from members.models import Member

    cards = list(Member.objects.order_by("pk").values_list("card_number", flat=True)[:rows])
    if len(cards) < rows:
        raise SystemExit(f"Only {len(cards):,} members: run bench/fill.py --members {rows}")
    lines = ["card_number,device_type,device_id,spend"]
    for n, card in enumerate(cards):
        pool = "table" if n % 5 == 0 else "slot"
        lines.append(f"{card},{pool},{pool[0].upper()}{n % 2000},{100 + n % 900}.00")
    return "\n".join(lines) + "\n"


def fresh_session(series, n: int):
    """A RAPS session closed at its start (decline register over), one per upload."""
    from core.audit import Actor
    from draws.models import Draw
    from draws.services import draw_close_window, draw_schedule

    at = dt.datetime(2026, 1, 1, 20, 0, tzinfo=ZoneInfo("Africa/Johannesburg")) + dt.timedelta(days=n)
    draw = Draw.objects.filter(series=series, scheduled_at=at).first()
    if draw is not None:
        raise SystemExit(f"Session {at} already exists: pass --reset-sessions or another database.")
    draw = draw_schedule(
        actor=Actor.system("bench"),
        series=series,
        scheduled_at=at,
        windows=[(at - dt.timedelta(hours=4), at)],
        allow_past=True,
    )
    assert draw_close_window(draw_id=draw.pk, now=at)
    return Draw.objects.get(pk=draw.pk), at


def use_guard(kind: str) -> None:
    """Put the RAPS entries' guard in the database as 0010 ("row") or 0014 ("statement") made it."""
    from django.db import connection

    guard = importlib.import_module("draws.migrations.0014_raps_guard_per_statement")
    with connection.cursor() as cursor:
        cursor.execute("SELECT quote_ident(current_schema())")
        schema = cursor.fetchone()[0]
        cursor.execute(f"DROP TRIGGER IF EXISTS draws_rapsentry_guard ON {schema}.draws_rapsentry")
        cursor.execute(guard.BACKWARD.replace("@schema@", schema))
        if kind == "statement":
            cursor.execute(guard.FORWARD.replace("@schema@", schema))


def guard_alone(series, kind: str) -> tuple[float, int]:
    """The guard's own share: the last list's rows written again, in one INSERT ... SELECT, into
    another open session's list (rolled back), under the `kind` guard."""
    from django.db import connection, transaction

    from draws.models import RapsList

    source, target = RapsList.objects.filter(draw__series=series).order_by("-pk").values_list("pk", flat=True)[:2]
    with transaction.atomic(), connection.cursor() as cursor:
        use_guard(kind)
        started = time.perf_counter()
        cursor.execute(
            "INSERT INTO draws_rapsentry (raps_list_id, pool, row, card_number, member_id, device_id, spend_cents) "
            "SELECT %s, pool, row + 10000000, card_number, member_id, device_id, spend_cents "
            "FROM draws_rapsentry WHERE raps_list_id = %s",
            [target, source],
        )
        took, rows = time.perf_counter() - started, cursor.rowcount
        transaction.set_rollback(True)
    return took, rows


def upload(module, series, n: int, text: str) -> tuple[float, float, int]:
    from core.audit import Actor

    draw, at = fresh_session(series, n)
    timed = TimedTransaction(module.transaction)
    module.transaction = timed
    try:
        started = time.perf_counter()
        raps_list = module.raps_list_upload(
            actor=Actor.system("bench"),
            draw_id=draw.pk,
            file_name="bench.csv",
            text=text,
            min_spend_cents=50_000,
            excluded_devices=["slot:S7"],
            slot_quota=6,
            table_quota=4,
            now=at + dt.timedelta(minutes=1),
        )
        total = time.perf_counter() - started
    finally:
        module.transaction = timed.real
    return total, max(timed.held), raps_list.entries.count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_RAPS_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", default=BEFORE, help="the commit whose draws/raps.py is the baseline")
    parser.add_argument("--guards", default="row,statement", help="the entries' guards to measure this checkout with")
    parser.add_argument("--no-before", action="store_true", help="measure only this checkout's draws/raps.py")
    args = parser.parse_args()

    subprocess.run(
        [
            sys.executable,
            "bench/fill.py",
            "--database-url",
            args.database_url,
            "--members",
            str(args.rows),
            "--points",
            "0",
        ],
        cwd=ROOT,
        check=True,
    )  # fill.py also creates and migrates the database
    setup_django(args.database_url)
    from django.db import connection

    from draws import raps as after
    from draws.models import Draw

    series = bench_series(SERIES_CODE, "Bench RAPS session (bench/raps_upload.py)", BENCH_RULE)
    type(series).objects.filter(pk=series.pk).update(method="raps", winners_per_draw=10, win_once_scope="session")
    series.refresh_from_db()
    # Each run uploads to a new session: remove the sessions of an earlier run (and their lists).
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")  # the record's triggers keep lists
        ids = list(Draw.objects.filter(series=series).values_list("pk", flat=True))
        for table, column in (
            ("draws_rapsentry", "raps_list_id IN (SELECT id FROM draws_rapslist WHERE draw_id = ANY(%s))"),
            ("draws_rapslist", "draw_id = ANY(%s)"),
            ("draws_drawcommitment", "draw_id = ANY(%s)"),
            ("draws_ticketwindow", "draw_id = ANY(%s)"),
            ("draws_draw", "id = ANY(%s)"),
        ):
            cursor.execute(f"DELETE FROM {table} WHERE {column}", [ids])
        cursor.execute("SET session_replication_role = origin")
    text = list_text(args.rows)
    print(f"RAPS upload of {args.rows:,} rows ({len(text.encode()) / 1e6:.1f} MB); load {load_average()}")
    plans = [] if args.no_before else [(f"before ({args.before}), row guard", module_at(args.before), "row")]
    plans += [(f"this checkout, {kind} guard", after, kind) for kind in args.guards.split(",")]
    n = 0
    try:
        for label, module, guard in plans:
            use_guard(guard)
            for run in range(args.runs):
                total, held, entries = upload(module, series, n, text)
                n += 1
                print(
                    f"  {label:<34} run {run + 1}: upload {total:6.2f} s, draw lock held {held:6.2f} s "
                    f"({held / total:4.0%}), {entries:,} rows qualify",
                    flush=True,
                )
        if n >= 2:
            print("The guard alone: one statement writing the last list's rows again (rolled back)")
            for run in range(args.runs):
                for kind in args.guards.split(","):
                    took, rows = guard_alone(series, kind)
                    print(f"  {kind + ' guard':<16} run {run + 1}: {rows:,} rows in {took:5.2f} s", flush=True)
    finally:
        use_guard("statement")  # the database as migrated


if __name__ == "__main__":
    main()
