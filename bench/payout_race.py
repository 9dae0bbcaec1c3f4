"""Exactly once under gunicorn (issue 15, item 7): 50 cashiers press "Pay the cash" on the same
prize letter at the same moment; how many payouts are written (expected: 1) and the timings.

    .venv/bin/python bench/payout_race.py [--database-url postgres://postgres@127.0.0.1:5432/promodesk_payoutbench]
        [--cashiers 50] [--workers 2] [--threads 25] [--rounds 3]

Uses its own small database (created if missing, then manage.py migrate). Each round prepares,
through the project's services: a draw of yesterday at Gold Reef City run to its winner, a prize
line of R5,000 cash and R500 +Play, and the winner's letter issued at the Rewards desk. Then
--cashiers users of the cash desk role (at Gold Reef City) are signed in (a session each, made
in this process) and `gunicorn config.wsgi --config config/gunicorn.conf.py` (the deployed
settings) is started on a free loopback port (gthread: --workers x --threads, so every POST has a
worker thread and a database connection of its own).

Each cashier is a thread with its own keep-alive connection: it warms up (GET the letter's cash
desk page), waits at a barrier with the others, then POSTs the same payout form
(/prizes/cash-desk/letters/<id>/pay/: cash, SA ID, the right last four, signed). A 302 is a
payout; a 200 is the page saying why not ("already paid", by whom and when). It prints the
answers, the payouts the database holds for the letter (expected 1), and the burst's timings.
gunicorn is stopped at the end (SIGTERM to its master), also on error or Ctrl-C.
"""

import argparse
import datetime as dt
import http.client
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path

from drawbench import (
    ROOT,
    continue_member_factory,
    create_database,
    load_average,
    migrate,
    percentile,
    setup_django,
    stop_process_group,
    wait_answering,
)

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_payoutbench"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- preparation (in this process, through the project's services) ------------------------------


def prepare_letter():
    """A letter of yesterday's draw, issued to its winner in person: (letter, the winner's last four)."""
    import time_machine
    from django.utils import timezone

    from core.audit import Actor
    from core.roles import REWARDS_DESK
    from draws.engine import draw_start, pick_outcome_record
    from draws.models import DrawPick
    from draws.tests.builders import MANAGER, closed_draw
    from members.demo import ensure_reference_data
    from prizes.letter_services import letter_issue
    from prizes.lines import LineKind, LineSource, LineSpec
    from prizes.services import prize_lines_store
    from promotions.tests.factories import make_series

    ensure_reference_data()
    continue_member_factory()
    yesterday = timezone.localtime() - dt.timedelta(days=1)
    at = yesterday.replace(hour=13, minute=0, second=0, microsecond=0)
    with time_machine.travel(at + dt.timedelta(minutes=1), tick=False):
        series = make_series()
        series.winners_per_draw = 1
        series.save()
        draw, _ = closed_draw(series, at, [3, 4, 5])
        draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="T. Nkosi")
        pick = DrawPick.objects.get(draw=draw, outcome="")
        pick_outcome_record(actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome="present", id_type_seen="sa_id")
        pick.refresh_from_db()
        specs = [
            LineSpec(LineKind.CASH, 500_000, LineSource.BOARD, "Podium 1"),
            LineSpec(LineKind.PLAY, 50_000, LineSource.ADD_ON, "+Play (app)"),
        ]
        prize_lines_store(actor=MANAGER, draw=draw, pick=pick, specs=specs)
        desk = Actor.for_user(bench_user(REWARDS_DESK, f"bench-desk-{secrets.token_hex(4)}"))
        letter = letter_issue(
            actor=desk,
            pick_id=pick.pk,
            card_number=pick.member.card_number,
            id_type_seen="sa_id",
            id_number_presented=pick.member.id_number,
        )
    return letter, pick.member.id_number[-4:]


def bench_user(role: str, username: str):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from members.models import Property, StaffProfile

    user = get_user_model().objects.create_user(username=username, password=secrets.token_urlsafe(16))
    user.groups.add(Group.objects.get(name=role))
    StaffProfile.objects.create(user=user, home_property=Property.objects.get(code="GRC"))
    return user


def sessions(count: int) -> list[str]:
    """`count` cashiers, each signed in: their session cookies."""
    from django.test import Client

    from core.roles import CASH_DESK

    run = secrets.token_hex(4)
    cookies = []
    for i in range(count):
        client = Client()
        client.force_login(bench_user(CASH_DESK, f"bench-cashier-{run}-{i:02d}"))
        cookies.append(client.cookies["sessionid"].value)
    return cookies


# --- gunicorn ------------------------------------------------------------------------------------


class Gunicorn:
    def __init__(self, url: str, workers: int, threads: int, log_dir: Path):
        self.port = free_port()
        self.log_path = log_dir / "gunicorn-payout-race.log"
        env = {**os.environ, "APP_ENV": "development", "DATABASE_URL": url, "DEBUG": "0"}
        env["DJANGO_SETTINGS_MODULE"] = "config.settings"
        env.pop("ALLOWED_HOSTS", None)
        gunicorn = Path(sys.executable).parent / "gunicorn"
        command = [
            str(gunicorn),
            "config.wsgi",
            "--config",
            "config/gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{self.port}",
        ]
        command += ["--worker-class", "gthread", "--workers", str(workers), "--threads", str(threads)]
        # Each cashier's connection, opened by its warm-up GET, must live through the wait at the
        # barrier: on a loaded machine the others' warm-ups outlast gunicorn's 2 s keep-alive, and
        # the POST then met a closed connection (17 of 50 BrokenPipeError in one run, load 11).
        command += ["--keep-alive", "300"]
        self.log = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def wait_ready(self) -> None:
        wait_answering(self.process, self.port, "/accounts/login/", name="gunicorn", log=self.log_path)

    def stop(self) -> None:
        stop_process_group(self.process)
        self.log.close()


# --- the race --------------------------------------------------------------------------------------


def race(port: int, letter, last4: str, cookies: list[str]) -> tuple[list, float]:
    """Every cashier POSTs the payout at once: [(status, ms, body)], and the burst's wall time in ms."""
    page = f"/prizes/cash-desk/letters/{letter.pk}/?code={letter.code.upper()}"
    url = f"/prizes/cash-desk/letters/{letter.pk}/pay/"
    barrier = threading.Barrier(len(cookies) + 1)
    answers: list = [None] * len(cookies)

    def cashier(i: int, session: str) -> None:
        csrf = secrets.token_hex(16)  # an unmasked CSRF secret: the cookie and the field agree
        headers = {"Cookie": f"sessionid={session}; csrftoken={csrf}", "Host": "127.0.0.1"}
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            conn.request("GET", page, headers=headers)  # warm-up: the worker thread and its connection
            conn.getresponse().read()
            body = urllib.parse.urlencode(
                {
                    "csrfmiddlewaretoken": csrf,
                    "group": "cash",
                    "code": letter.code.upper(),
                    "cash-id_type_seen": "sa_id",
                    "cash-id_last_digits": last4,
                    "cash-signed": "on",
                }
            )
            post_headers = {**headers, "Content-Type": "application/x-www-form-urlencoded"}
            barrier.wait(timeout=60)
            started = time.perf_counter()
            conn.request("POST", url, body=body, headers=post_headers)
            response = conn.getresponse()
            text = response.read().decode("utf-8", "replace")
            answers[i] = (response.status, (time.perf_counter() - started) * 1000, text)
        except Exception as error:  # every answer is reported, errors included
            answers[i] = ("error", 0.0, repr(error))
        finally:
            conn.close()

    threads = [threading.Thread(target=cashier, args=(i, c)) for i, c in enumerate(cookies)]
    for thread in threads:
        thread.start()
    barrier.wait(timeout=60)
    burst = time.perf_counter()
    for thread in threads:
        thread.join(timeout=120)
    return answers, (time.perf_counter() - burst) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("PAYOUT_BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--cashiers", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=25)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    create_database(args.database_url)
    migrate(args.database_url)
    setup_django(args.database_url)
    from django.db import connection

    from prizes.letter_models import Payout

    print(f"load: {load_average()}")
    with tempfile.TemporaryDirectory() as log_dir:
        server = Gunicorn(args.database_url, args.workers, args.threads, Path(log_dir))
        try:
            server.wait_ready()
            print(f"gunicorn gthread {args.workers}x{args.threads} on 127.0.0.1:{server.port}")
            totals = Counter()
            for round_no in range(1, args.rounds + 1):
                letter, last4 = prepare_letter()
                cookies = sessions(args.cashiers)
                connection.close()  # gunicorn's workers should not wait on this process's connection
                answers, burst_ms = race(server.port, letter, last4, cookies)
                written = Payout.objects.filter(letter=letter).count()
                statuses = Counter(a[0] for a in answers)
                paid = sum(1 for a in answers if a[0] == 302)
                told = sum(1 for a in answers if a[0] == 200 and "already paid" in a[2])
                other = [a for a in answers if not (a[0] == 302 or (a[0] == 200 and "already paid" in a[2]))]
                times = [a[1] for a in answers if a[0] != "error"]
                totals.update(written=written, paid=paid, told=told, other=len(other))
                print(
                    f"round {round_no}: letter {letter.number}: {args.cashiers} POSTs at once -> "
                    f"payouts written {written} (expected 1); answers {dict(statuses)}: "
                    f"{paid} paid, {told} told 'already paid', {len(other)} other"
                )
                print(
                    f"   burst {burst_ms:.0f} ms; per request p50 {statistics.median(times):.0f} ms, "
                    f"p95 {percentile(times, 0.95):.0f} ms, max {max(times):.0f} ms"
                )
                for status, _, text in other[:3]:
                    print(f"   unexpected answer {status}: {text[:200]!r}")
            print(
                f"total over {args.rounds} rounds: {totals['written']} payouts written for {args.rounds} letters; "
                f"{totals['paid']} paid, {totals['told']} told already paid, {totals['other']} other"
            )
            if totals["written"] != args.rounds or totals["other"]:
                sys.exit(1)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
