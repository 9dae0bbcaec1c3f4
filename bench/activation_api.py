"""Load-test the activation API under gunicorn on the database bench/fill.py filled.

    .venv/bin/python bench/activation_api.py [--database-url postgres://postgres@127.0.0.1:5432/promodesk_bench]
        [--configs sync4,gthread2x8,gthread4x4] [--clients 32] [--seconds 20] [--max-requests 6000]
        [--in-process 210] [--warm-up 64] [--rounds 3] [--paced 150,300] [--paced-seconds 5]

Runs manage.py migrate on the bench database, then prepares a draw of the bench series
(bench/drawbench.py: the realistic earning rule) at Gold Reef City whose ticket window is open
now, an eHost device token for it, and a pool of members who hold tickets for it (from the
allocation statement).

First, in this process and one at a time (--in-process activations): activation_create, with
the SQL statements it sends and how long it holds the draw's row lock (median, p99, max). That
lock serialises a draw's activations, so 1000 / (lock ms) is the most activations a second one
draw can take. Then the statements of GET /api/v1/members/{card}/draws (Django's test client).

Then, for each gunicorn configuration in --configs (syncN: N sync workers; gthreadWxT: W workers
of T threads; gthreadWxTcC: each worker holding at most C connections; "nginx:" before any of
them: compose's deploy/nginx.conf in front, NginxFront), starts `gunicorn config.wsgi --config
config/gunicorn.conf.py` (the deployed settings: access log, worker hooks) on a free loopback port
(APP_ENV=development, DEBUG off, the default ALLOWED_HOSTS), warms it up and drives
it from --clients threads, each with its own keep-alive http.client connection, for --seconds or
--max-requests requests, whichever comes first (bounded; traffic to 127.0.0.1 only):

* baselines on the same gunicorn: GET /accounts/login/ (the ratios are against it),
  GET /api/v1/members/0/draws without a token (401: django-ninja's floor) and
  GET /api/v1/openapi.json (django-ninja builds the schema on every request);
* write, 1 client: POST /api/v1/activations one at a time, the latency without queueing;
* write: POST /api/v1/activations from --clients clients, every request for a DIFFERENT member
  (activations are once per member per draw);
* read: GET /api/v1/members/{card}/draws for members of the pool;
* paced write and read (--paced 150,300, --paced-seconds 5): the same requests offered at a fixed
  rate by the --clients together (open loop: request i is due i / rate seconds after the start,
  its latency counted from then). The phases above are closed loop (each client sends again as
  soon as it is answered), which measures the most the server takes but fixes its mean latency
  at clients / throughput (Little's law); a kiosk sends when a member swipes, whatever the others
  wait for, so the paced phases give the latency at a load below that most.

The login page, write and read phases alternate --rounds times (3), each round with its share of
--seconds and --max-requests: this machine's speed drifts by as much as half from one minute to
the next, so each round is compared with the login page's round just before it, and a ratio to
the login page is the median of the rounds' (each printed).

It prints requests/s, median, p95 and p99 latency, the responses by status, the CPU time per
request spent in gunicorn's processes and in PostgreSQL's backends (from /proc), and the least,
median and most of the clients' own medians (a keep-alive connection stays with the worker that
accepted it, so a worker holding more connections than the other shows as a spread). Then it checks
the draw: as many activations as 201 responses (and in-process activations), serial ranges
contiguous from 1 with no overlap, each receipt's range as the API answered it. gunicorn is
stopped at the end of each configuration, also on error or Ctrl-C (SIGTERM to its master). The
draw is cancelled at the end (reason "bench run finished") so it no longer shows as open; a new
run cancels any bench draw a crashed run left open.

The load generator runs on the same 2 CPUs as gunicorn and PostgreSQL; it prints its own CPU time.
"""

import argparse
import datetime as dt
import http.client
import json
import os
import queue
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from drawbench import (
    BENCH_RULE,
    DEFAULT_URL,
    ROOT,
    bench_series,
    load_average,
    migrate,
    percentile,
    setup_django,
    stop_process_group,
    wait_answering,
)

TARGET_RPS = 300
TARGET_P99_MS = 100.0
TARGET_LOCK_MS = 2.0
TARGET_RATIO = 0.75  # of the login page's requests/s in the same run
WARM_UP_REQUESTS = 64  # per kind and configuration, not counted (--warm-up)
SINGLE_CLIENT_REQUESTS = 100  # the one-client write phase: latency without queueing
# Open-loop phases (--paced): half the ARCHITECTURE's "about 300 requests/s here", and that figure.
PACED_RATES = (TARGET_RPS / 2, TARGET_RPS)
PACED_WRITE, PACED_READ = "paced POST activations", "paced GET members/{card}/draws"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Result:
    label: str
    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    elapsed: float = 0.0
    bodies: list[bytes] = field(default_factory=list)  # 201 bodies (the receipts)
    app_cpu_ms: float = 0.0  # per request, gunicorn's processes
    db_cpu_ms: float = 0.0  # per request, PostgreSQL's backends
    # Alternated phases (--rounds): requests/s of each round against the login page's round just
    # before it. This machine's speed drifts by half from one minute to the next; a round and its
    # baseline are seconds apart, so the median of these ratios moves far less than one of totals.
    round_ratios: list[float] = field(default_factory=list)
    # Each client's median latency. A keep-alive connection stays with the gunicorn worker that
    # accepted it: a worker holding more of the connections than the other gives its clients
    # longer waits, which shows here as two groups, and in the p99.
    client_medians_ms: list[float] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(self.statuses.values())

    @property
    def rps(self) -> float:
        return self.count / self.elapsed if self.elapsed else 0.0

    def pct(self, fraction: float) -> float:
        return percentile(self.latencies_ms, fraction) if self.latencies_ms else float("nan")


def parse_config(text: str) -> tuple[str, list[str], bool]:
    """A --configs entry: its label, gunicorn's options and whether nginx stands in front.

    syncN, gthreadWxT, gthreadWxTcC (each worker takes at most C connections at once:
    --worker-connections C) and any of them after "nginx:" (deploy/nginx.conf in front, as in
    compose; NginxFront)."""
    front = text.startswith("nginx:")
    text = text.removeprefix("nginx:")
    if text.startswith("sync") and text[4:].isdigit():
        label, options = f"sync, {text[4:]} workers", ["--workers", text[4:]]
    elif text.startswith("gthread"):
        shape, _, connections = text[7:].partition("c")
        workers, threads = (int(n) for n in shape.split("x"))
        label = f"gthread, {workers} workers x {threads} threads"
        options = ["--workers", str(workers), "--worker-class", "gthread", "--threads", str(threads)]
        if connections:
            label += f", at most {int(connections)} connections each"
            options += ["--worker-connections", str(int(connections))]
    else:
        raise SystemExit(f"Unknown gunicorn configuration {text!r}: use syncN, gthreadWxT or gthreadWxTcC")
    return (f"nginx -> {label}" if front else label), options, front


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- preparation (in this process, through the project's services) -------------------------


def prepare(needed: int, rng: random.Random):
    """The run's draw (window open now), a device token, and `needed` cards holding tickets."""
    from django.db import connection
    from django.utils import timezone

    from core.audit import Actor
    from draws.allocation import allocation_sql, whole_draw_cursor
    from draws.models import Draw, DrawStatus
    from draws.services import device_token_create, draw_cancel, draw_schedule

    actor = Actor.system("bench")
    series = bench_series("bench-activation", "Bench activation draw", BENCH_RULE)
    now = timezone.now()
    # Draws of earlier runs that are still open would make the read endpoint do more work.
    for stale in Draw.objects.filter(series=series, status=DrawStatus.SCHEDULED, tickets_close_at__gt=now):
        draw_cancel(actor=actor, draw_id=stale.pk, reason="bench: a newer bench run started")
    at = (now + dt.timedelta(hours=3)).replace(second=0, microsecond=0)
    while Draw.objects.filter(series=series, scheduled_at=at).exists():
        at += dt.timedelta(minutes=1)  # a run in the same minute as an earlier one (one draw a moment)
    stamp = timezone.localtime(now).strftime("%Y%m%d-%H%M%S")
    draw = draw_schedule(
        actor=actor,
        series=series,
        scheduled_at=at,
        name=f"Bench activation draw, run {stamp}",
        windows=[(now - dt.timedelta(minutes=10), at - dt.timedelta(minutes=30))],
    )
    device, token = device_token_create(actor=actor, prop=series.property, name=f"bench-ehost-{stamp}")
    sql, params = allocation_sql(draw, at=now)
    with whole_draw_cursor() as cursor:  # as the project runs the statement over a whole draw
        cursor.execute(
            f"SELECT a.member_id FROM ({sql}) AS a(member_id, points, earned, free, bonus, tickets)"
            " WHERE a.tickets > 0",
            params,
        )
        holders = [row[0] for row in cursor.fetchall()]
    with connection.cursor() as cursor:
        picked = rng.sample(holders, min(needed, len(holders)))
        cursor.execute("SELECT id, card_number FROM members_member WHERE id = ANY(%s)", [picked])
        card_of = dict(cursor.fetchall())
        cursor.execute(
            "SELECT count(DISTINCT d.id) FROM draws_draw d JOIN draws_ticketwindow w ON w.draw_id = d.id"
            " WHERE d.property_id = %s AND d.status = 'scheduled' AND w.opens_at <= now() AND w.closes_at > now()",
            [draw.property_id],
        )
        open_draws = cursor.fetchone()[0]
    cards = [card_of[member_id] for member_id in picked]
    return draw, device, token, cards, len(holders), open_draws


# --- gunicorn ------------------------------------------------------------------------------


class Gunicorn:
    def __init__(self, url: str, options: list[str], log_dir: Path, name: str):
        self.port = free_port()
        self.log_path = log_dir / f"gunicorn-{name}.log"
        env = {
            **os.environ,
            "APP_ENV": "development",
            "DATABASE_URL": url,
            "DEBUG": "0",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            # Keep each worker's connection for the whole run (the default is 60 s) so that the
            # CPU of its PostgreSQL backend can be read between two snapshots.
            "DB_CONN_MAX_AGE": "600",
        }
        env.pop("ALLOWED_HOSTS", None)  # the development default includes 127.0.0.1
        command = [
            str(Path(sys.executable).parent / "gunicorn"),  # this interpreter's venv (a worktree has none)
            "config.wsgi",
            # The deployed settings (Procfile, Dockerfile, compose): the access log with its
            # swipe masking, and the workers' hooks.
            "--config",
            "config/gunicorn.conf.py",
            "--bind",
            f"127.0.0.1:{self.port}",
            *options,
        ]
        self.command = " ".join(command[1:])
        self.log = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def wait_ready(self) -> None:
        wait_answering(self.process, self.port, "/api/v1/openapi.json", name="gunicorn", log=self.log_path)

    def stop(self) -> None:
        """SIGTERM to the gunicorn master (its workers follow); SIGKILL to its process group
        (only gunicorn's own processes) if it has not gone after 20 s."""
        stop_process_group(self.process)
        self.log.close()


class NginxFront:
    """deploy/nginx.conf (compose's proxy service) in front of one gunicorn, as compose runs it:
    the same upstream pool (`keepalive 16`), proxy settings and headers. Three lines differ: the
    upstream is gunicorn's loopback port instead of the name "web" (no Docker DNS here, and
    Debian's nginx 1.22 has no `resolve`), it listens on a free loopback port, and its access log
    is off (the bench's gunicorn writes none either). Around it, the main configuration of the
    nginx image (worker_processes auto, 1,024 connections each). Needs `nginx` on the PATH
    (apt-get install nginx-light)."""

    def __init__(self, upstream_port: int, log_dir: Path, name: str):
        binary = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
        if binary is None:
            raise SystemExit("nginx: configurations starting with nginx: need it (apt-get install nginx-light)")
        self.port = free_port()
        self.prefix = log_dir / f"nginx-{name}"
        self.prefix.mkdir()
        # Started as root, nginx's workers run as nobody: they must reach their temporary folders
        # (mkdtemp makes the log folder private).
        log_dir.chmod(0o755)
        site = (ROOT / "deploy" / "nginx.conf").read_text()
        replaced = {
            "resolver 127.0.0.11 valid=10s ipv6=off;": "",
            "server web:8000 resolve ": f"server 127.0.0.1:{upstream_port} ",
            "listen 8080;": f"listen 127.0.0.1:{self.port};",
            "access_log /dev/stdout promodesk_no_path;": "access_log off;",
        }
        for old, new in replaced.items():
            if old not in site:  # deploy/nginx.conf changed: the bench must follow it
                raise SystemExit(f"deploy/nginx.conf no longer has {old!r}; update NginxFront")
            site = site.replace(old, new)
        (self.prefix / "site.conf").write_text(site)
        temp = " ".join(f"{kind}_temp_path {self.prefix}/{kind};" for kind in ("client_body", "proxy"))
        (self.prefix / "nginx.conf").write_text(
            f"worker_processes auto;\npid {self.prefix}/nginx.pid;\nerror_log {self.prefix}/error.log;\n"
            f"events {{ worker_connections 1024; }}\n"
            f"http {{ {temp} fastcgi_temp_path {self.prefix}/f; uwsgi_temp_path {self.prefix}/u;"
            f" scgi_temp_path {self.prefix}/s; keepalive_timeout 65; include {self.prefix}/site.conf; }}\n"
        )
        self.log = open(self.prefix / "stdout.log", "wb")  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(
            [binary, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf"), "-g", "daemon off;"],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self) -> None:
        wait_answering(self.process, self.port, "/proxy-health", name="nginx", log=self.prefix, timeout=20)

    def stop(self) -> None:
        stop_process_group(self.process)
        self.log.close()


# --- the load generator --------------------------------------------------------------------


def drive(
    port: int,
    label: str,
    requests: list[tuple[str, str, bytes | None]],
    *,
    clients: int,
    seconds: float,
    headers: dict[str, str],
    keep_bodies: bool = False,
    rate: float | None = None,
) -> Result:
    """Send `requests` (method, path, body) from `clients` threads, each on its own keep-alive
    connection, until they are all sent or `seconds` have passed. Each request is sent once.

    With `rate` (requests a second, all clients together) the load is open: request i is due
    i / rate seconds after the start, a client waits for it, and its latency counts from when it
    was due, so a request sent late because every client was still waiting for an answer counts
    that wait too (no coordinated omission). Without it each client sends as soon as it has its
    answer (closed loop: the most the server can take)."""
    work: queue.SimpleQueue = queue.SimpleQueue()
    for index, item in enumerate(requests):
        work.put((index / rate if rate else None, item))
    result = Result(label)
    lock = threading.Lock()
    start_gate = threading.Barrier(clients + 1)
    deadline_box: list[float] = []

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        latencies, statuses, bodies = [], Counter(), []
        start_gate.wait()
        deadline, start = deadline_box
        while time.perf_counter() < deadline:
            try:
                offset, (method, path, body) = work.get_nowait()
            except queue.Empty:
                break
            began = time.perf_counter()
            if offset is not None:
                if (wait := start + offset - began) > 0:
                    time.sleep(wait)
                began = start + offset
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
                status: int | str = response.status
            except (OSError, http.client.HTTPException) as error:
                status, data = f"error: {type(error).__name__}", b""
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            latencies.append((time.perf_counter() - began) * 1000)
            statuses[status] += 1
            if keep_bodies and status == 201:
                bodies.append(data)
        conn.close()
        with lock:
            result.latencies_ms.extend(latencies)
            result.statuses.update(statuses)
            result.bodies.extend(bodies)
            if latencies:
                result.client_medians_ms.append(statistics.median(latencies))

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    deadline_box += [began + seconds, began]
    start_gate.wait()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    result.elapsed = time.perf_counter() - began
    return result


def activation_requests(cards: list[str], draw_id: int) -> list[tuple[str, str, bytes]]:
    return [
        ("POST", "/api/v1/activations", json.dumps({"card_number": card, "draw_id": draw_id}).encode())
        for card in cards
    ]


def read_requests(cards: list[str], count: int, rng: random.Random) -> list[tuple[str, str, None]]:
    return [("GET", f"/api/v1/members/{rng.choice(cards)}/draws", None) for _ in range(count)]


def merged(parts: list[Result], baselines: list[Result] | None = None) -> Result:
    """The rounds of one phase as one Result: every latency and status, the rounds' time summed,
    the CPU per request weighted by each round's requests; with `baselines` (the login page's
    rounds), each round's requests/s against its own baseline's."""
    whole = Result(parts[0].label)
    for part in parts:
        whole.latencies_ms += part.latencies_ms
        whole.statuses.update(part.statuses)
        whole.elapsed += part.elapsed
        whole.bodies += part.bodies
        whole.client_medians_ms += part.client_medians_ms
    count = max(whole.count, 1)
    whole.app_cpu_ms = sum(part.app_cpu_ms * part.count for part in parts) / count
    whole.db_cpu_ms = sum(part.db_cpu_ms * part.count for part in parts) / count
    if baselines:
        whole.round_ratios = [part.rps / base.rps for part, base in zip(parts, baselines, strict=True) if base.rps]
    return whole


def ratio_to(result: Result, baseline: Result) -> float:
    """Requests/s against the login page's: the median of the rounds' ratios when alternated."""
    if result.round_ratios:
        return statistics.median(result.round_ratios)
    return result.rps / baseline.rps if baseline.rps else 0.0


def row(result: Result, baseline: Result | None = None) -> str:
    statuses = ", ".join(f"{status}: {n:,}" for status, n in sorted(result.statuses.items(), key=str))
    ratio = ""
    if baseline is not None and baseline.rps:
        ratio = f"  {ratio_to(result, baseline):.2f}x rps, {result.pct(0.5) / baseline.pct(0.5):.1f}x p50 of baseline"
        if len(result.round_ratios) > 1:
            ratio += " (rounds: " + ", ".join(f"{r:.2f}x" for r in result.round_ratios) + ")"
    return (
        f"  {result.label:<34} {result.count:>6,} {result.rps:>8.1f} {result.pct(0.5):>8.1f} {result.pct(0.95):>8.1f}"
        f" {result.pct(0.99):>8.1f} {max(result.latencies_ms, default=0):>8.1f}"
        f"  {result.app_cpu_ms:.1f}/{result.db_cpu_ms:.1f}; {statuses}{ratio}{client_spread(result)}"
    )


def client_spread(result: Result) -> str:
    """The clients' medians, least / median / most (with more than one client)."""
    medians = sorted(result.client_medians_ms)
    if len(medians) < 2:
        return ""
    return f"; clients' p50 {medians[0]:.1f} / {statistics.median(medians):.1f} / {medians[-1]:.1f} ms"


def verify(draw_id: int, created: int, receipts: list[dict]) -> list[str]:
    """The draw's activations against the 201 responses; the problems found (empty: none)."""
    from django.db import connection

    problems = []
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT count(*), coalesce(sum(tickets), 0), min(first_serial), max(last_serial),
                      count(*) FILTER (WHERE first_serial <= prev_last),
                      count(*) FILTER (WHERE prev_last IS NOT NULL AND first_serial <> prev_last + 1),
                      count(DISTINCT member_id)
               FROM (SELECT first_serial, last_serial, tickets, member_id,
                            lag(last_serial) OVER (ORDER BY first_serial) AS prev_last
                     FROM draws_activation WHERE draw_id = %s) AS a""",
            [draw_id],
        )
        count, tickets, first, last, overlaps, gaps, members = cursor.fetchone()
        cursor.execute("SELECT next_serial FROM draws_draw WHERE id = %s", [draw_id])
        next_serial = cursor.fetchone()[0]
        cursor.execute(
            "SELECT receipt_number, first_serial, last_serial FROM draws_activation WHERE draw_id = %s", [draw_id]
        )
        stored = {number: (a, b) for number, a, b in cursor.fetchall()}
    print(
        f"Draw {draw_id}: {count:,} activations ({members:,} members), {tickets:,} tickets, serials"
        f" {first}..{last}, next serial {next_serial}; {created:,} responses 201"
    )
    if count != created:
        problems.append(f"{count} activations in the database but {created} responses 201")
    if members != count:
        problems.append(f"{count} activations for {members} members")
    if overlaps:
        problems.append(f"{overlaps} serial ranges overlap the one before")
    if gaps:
        problems.append(f"{gaps} gaps between serial ranges")
    if count and (first != 1 or last != tickets or next_serial != tickets + 1):
        problems.append(f"serials not contiguous from 1: {first}..{last}, {tickets} tickets, next {next_serial}")
    answered = {r["receipt_number"]: (r["first_serial"], r["last_serial"]) for r in receipts}
    if answered != stored:
        differ = len(set(answered.items()) ^ set(stored.items()))
        problems.append(f"{differ} receipts differ between the 201 responses and the database")
    return problems


@dataclass
class InProcess:
    """activation_create called directly, one at a time (after 10 untimed)."""

    totals_ms: list[float] = field(default_factory=list)
    held_ms: list[float] = field(default_factory=list)  # the draw's row lock, UPDATE to after COMMIT (or its answer)
    statements: list[int] = field(default_factory=list)  # SQL statements, BEGIN and COMMIT not counted
    read_statements: list[int] = field(default_factory=list)  # the same for GET members/{card}/draws
    receipts: list[dict] = field(default_factory=list)


def in_process(draw_id: int, device, token: str, cards: list[str], read_cards: list[str]) -> InProcess:
    """activation_create called directly, one after another: the time of each call, the SQL
    statements it sends and how long it holds the draw's row lock (from the statement that takes
    it, the guarded UPDATE or an older SELECT ... FOR UPDATE, to the return after COMMIT; for a
    statement that commits by itself, to its answer: at most, as PostgreSQL let go before it
    answered). While
    one activation holds the lock, every other activation of the draw waits, so one draw can
    take at most 1000 / (lock ms) activations a second, however many CPUs serve it. Then the
    statements of GET /api/v1/members/{card}/draws through Django's test client (BEGIN and
    COMMIT, which the wrapper does not see, are not counted)."""
    from django.db import connection
    from django.test import Client

    from core.audit import Actor
    from draws.services import activation_create

    actor = Actor(label=f"device:bench:{device.name}", ip="127.0.0.1")
    out = InProcess()
    locked_at: list[float] = []
    unlocked_at: list[float] = []
    sent = [0]

    def watch(execute, sql, params, many, context):
        sent[0] += 1
        takes_lock = "FOR UPDATE" in sql or "SET next_serial = " in sql
        if takes_lock and "draws_draw" in sql and not locked_at:
            locked_at.append(time.perf_counter())
            if not connection.in_atomic_block:  # a statement that commits by itself: the lock ends with it
                try:
                    return execute(sql, params, many, context)
                finally:
                    unlocked_at.append(time.perf_counter())
        return execute(sql, params, many, context)

    with connection.execute_wrapper(watch):
        for index, card in enumerate(cards):
            locked_at.clear()
            unlocked_at.clear()
            sent[0] = 0
            began = time.perf_counter()
            made = activation_create(actor=actor, draw_id=draw_id, card_number=card, device=device, channel=device.kind)
            ended = time.perf_counter()
            out.receipts.append(
                {
                    "receipt_number": made.receipt_number,
                    "first_serial": made.first_serial,
                    "last_serial": made.last_serial,
                }
            )
            if index >= 10:
                out.totals_ms.append((ended - began) * 1000)
                out.statements.append(sent[0])
                if locked_at:
                    out.held_ms.append(((unlocked_at or [ended])[0] - locked_at[0]) * 1000)
        client = Client(headers={"Authorization": f"Bearer {token}"})
        for card in read_cards:
            sent[0] = 0
            response = client.get(f"/api/v1/members/{card}/draws", HTTP_HOST="127.0.0.1")
            assert response.status_code == 200, response.content[:200]
            out.read_statements.append(sent[0])
    return out


def in_process_note(run: InProcess) -> str:
    held = run.held_ms
    return (
        f"activation_create, in process, one at a time ({len(run.totals_ms)} after 10 warm-up): median"
        f" {statistics.median(run.totals_ms):.2f} ms, p95 {percentile(run.totals_ms, 0.95):.2f} ms;"
        f" {statistics.median(run.statements):.0f} SQL statements (most {max(run.statements)}; BEGIN/COMMIT"
        f" not counted).\n  Draw row lock held: median {statistics.median(held):.2f} ms, p99"
        f" {percentile(held, 0.99):.2f} ms, max {max(held):.2f} ms (least {min(held):.2f} ms: the CPU free"
        f" at once): at most {1000 / statistics.median(held):.0f} activations/s per draw (target <="
        f" {TARGET_LOCK_MS:.0f} ms).\n  GET members/{{card}}/draws through"
        f" the test client: {statistics.median(run.read_statements):.0f} SQL statements (most"
        f" {max(run.read_statements)}; {len(run.read_statements)} requests, the first one filling the worker's copies)."
    )


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far; 0 once it has gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(stat[1]) == pid:
                found.append(int(entry.name))
    return found


class CpuMeter:
    """CPU used by gunicorn's workers (and nginx's, in front) and by the PostgreSQL backends of
    the bench database (except this process's own), read from /proc between two snapshots."""

    def __init__(self, url: str, masters: list[int]):
        import psycopg

        self.masters = masters
        self.conn = psycopg.connect(url.replace("postgres://", "postgresql://", 1), autocommit=True)
        self.before: dict[str, dict[int, float]] = {}

    def snapshot(self) -> dict[str, dict[int, float]]:
        backends = self.conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
        return {
            "app": {pid: proc_cpu(pid) for master in self.masters for pid in [master, *children_of(master)]},
            "db": {pid: proc_cpu(pid) for (pid,) in backends},
        }

    def start(self) -> None:
        self.before = self.snapshot()

    def stop(self, result: Result) -> None:
        after = self.snapshot()
        for kind in ("app", "db"):
            used = sum(cpu - self.before[kind].get(pid, 0.0) for pid, cpu in after[kind].items())
            setattr(result, f"{kind}_cpu_ms", used * 1000 / max(result.count, 1))

    def close(self) -> None:
        self.conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument(
        "--configs",
        default="sync4,gthread2x8,gthread4x4",
        help="gunicorn set-ups: syncN, gthreadWxT or gthreadWxTcC, each perhaps after nginx:; comma-separated",
    )
    parser.add_argument("--clients", type=int, default=32, help="concurrent clients (default 32)")
    parser.add_argument("--seconds", type=float, default=20.0, help="longest a phase runs (default 20)")
    parser.add_argument("--max-requests", type=int, default=6000, help="most requests in a phase (default 6000)")
    parser.add_argument(
        "--in-process", type=int, default=210, help="activations timed in this process first (default 210)"
    )
    parser.add_argument(
        "--warm-up",
        type=int,
        default=WARM_UP_REQUESTS,
        help=f"requests of each kind before a configuration's phases, not counted (default {WARM_UP_REQUESTS})",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="the login page, write and read phases alternate this many times, each round a share of"
        " --seconds and --max-requests (default 3)",
    )
    paced_default = ",".join(f"{rate:g}" for rate in PACED_RATES)
    parser.add_argument(
        "--paced",
        default=paced_default,
        help="open-loop phases: requests a second offered by the --clients together, comma-separated;"
        f" each for --paced-seconds, latency from each request's due time (default {paced_default}; empty: none)",
    )
    parser.add_argument("--paced-seconds", type=float, default=5.0, help="each paced phase (default 5)")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    try:
        paced_rates = [float(text) for text in args.paced.split(",") if text.strip()]
    except ValueError:
        parser.error("--paced takes requests a second, e.g. 150,300")
    if any(rate <= 0 for rate in paced_rates):
        parser.error("--paced rates must be above 0")
    paced_counts = [max(1, round(rate * args.paced_seconds)) for rate in paced_rates]
    single_client = min(SINGLE_CLIENT_REQUESTS, args.max_requests)
    configs = [parse_config(text.strip()) for text in args.configs.split(",") if text.strip()]

    migrate(args.database_url)
    setup_django(args.database_url)
    from django.db import connection

    from core.audit import Actor
    from draws.services import draw_cancel

    rng = random.Random(args.seed)
    per_config = args.warm_up + single_client + args.max_requests + sum(paced_counts)
    needed = len(configs) * per_config + args.in_process
    draw, device, token, cards, holders, open_draws = prepare(needed, rng)
    print(
        f"Draw {draw.pk} ({draw.name}) at {draw.property.code}, window open now; device {device.name!r};"
        f" {holders:,} members hold tickets, {len(cards):,} picked for activations."
    )
    print(f"Draws open now at {draw.property.code} (each one is an allocation per read request): {open_draws}")
    if len(cards) < needed:
        print(f"NOTE: only {len(cards):,} members hold tickets; phases will end early.")
    read_cards = list(cards)
    unused = list(reversed(cards))

    def take(count: int) -> list[str]:
        return [unused.pop() for _ in range(min(count, len(unused)))]

    lock_notes, receipts = [], []
    if args.in_process > 10:
        run = in_process(draw.pk, device, token, take(args.in_process), read_cards[:20])
        receipts += run.receipts
        lock_notes.append(in_process_note(run))
        print(lock_notes[-1], flush=True)
    connection.close()  # gunicorn's workers should not wait on this process's connection

    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    log_dir = Path(tempfile.mkdtemp(prefix="bench-activation-"))
    created = len(receipts)
    reports: list[tuple[str, list[tuple[Result, Result | None]]]] = []
    load_before = os.getloadavg()
    cpu_before = time.process_time()
    wall_before = time.perf_counter()
    try:
        for index, (label, options, fronted) in enumerate(configs):
            server = Gunicorn(args.database_url, options, log_dir, f"{index}")
            front = meter = None
            try:
                server.wait_ready()
                masters = [server.process.pid]
                if fronted:
                    front = NginxFront(server.port, log_dir, f"{index}")
                    front.wait_ready()
                    masters.append(front.process.pid)
                meter = CpuMeter(args.database_url, masters)
                via = f"; nginx in front ({front.prefix})" if front else ""
                print(f"\n{label}: {server.command}  (log {server.log_path}{via})", flush=True)
                port = front.port if front else server.port

                def phase(
                    name, requests, *, keep=False, clients=args.clients, auth=True, seconds=args.seconds,
                    rate=None, port=port, meter=meter,
                ):  # fmt: skip
                    meter.start()
                    result = drive(
                        port,
                        name,
                        requests,
                        clients=clients,
                        seconds=seconds,
                        headers=headers if auth else {},
                        keep_bodies=keep,
                        rate=rate,
                    )
                    meter.stop(result)
                    return result

                # Warm-up: every worker imports, connects and fills its caches.
                for warm_result in (
                    phase("warm-up write", activation_requests(take(args.warm_up), draw.pk), keep=True),
                    phase("warm-up read", read_requests(read_cards, args.warm_up, rng)),
                    phase("warm-up", [("GET", "/api/v1/openapi.json", None)] * args.warm_up),
                    phase("warm-up", [("GET", "/accounts/login/", None)] * args.warm_up),
                ):
                    created += warm_result.statuses.get(201, 0)
                    receipts.extend(json.loads(body) for body in warm_result.bodies)
                # The baseline and the two measured phases alternate, so that a drift of the machine's
                # speed moves a round and its baseline together (Result.round_ratios).
                per_round, round_seconds = max(1, args.max_requests // args.rounds), args.seconds / args.rounds
                logins, writes, reads = [], [], []
                for _round in range(args.rounds):
                    logins.append(
                        phase(
                            "baseline GET login page",
                            [("GET", "/accounts/login/", None)] * per_round,
                            seconds=round_seconds,
                        )
                    )
                    writes.append(
                        phase(
                            "write POST activations",
                            activation_requests(take(per_round), draw.pk),
                            keep=True,
                            seconds=round_seconds,
                        )
                    )
                    reads.append(
                        phase(
                            "read GET members/{card}/draws",
                            read_requests(read_cards, per_round, rng),
                            seconds=round_seconds,
                        )
                    )
                login, write, read = merged(logins), merged(writes, logins), merged(reads, logins)
                unauthorised = phase(
                    "baseline API, no token (401)",
                    [("GET", "/api/v1/members/0/draws", None)] * args.max_requests,
                    auth=False,
                )
                openapi = phase(
                    "baseline GET openapi.json", [("GET", "/api/v1/openapi.json", None)] * args.max_requests
                )
                single = phase(
                    "write, 1 client",
                    activation_requests(take(single_client), draw.pk),
                    keep=True,
                    clients=1,
                )
                # Open load at fixed rates: the latency a kiosk sees below the most the server takes.
                paced = []
                limit = 2 * args.paced_seconds + 5  # a server that falls behind still ends the phase
                for rate, count in zip(paced_rates, paced_counts, strict=True):
                    paced.append(
                        phase(
                            f"{PACED_WRITE} {rate:g}/s",
                            activation_requests(take(count), draw.pk),
                            keep=True,
                            rate=rate,
                            seconds=limit,
                        )
                    )
                    reads_due = read_requests(read_cards, count, rng)
                    paced.append(phase(f"{PACED_READ} {rate:g}/s", reads_due, rate=rate, seconds=limit))
                for made in (single, write, *paced):
                    created += made.statuses.get(201, 0)
                    receipts.extend(json.loads(body) for body in made.bodies)
                results = [(login, None), (unauthorised, login), (openapi, login), (single, login)]
                results += [(write, login), (read, login)] + [(result, None) for result in paced]
                reports.append((label, results))
                print(
                    f"  {'':<34} {'reqs':>6} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}"
                    "  app/db CPU ms per request; statuses; vs the login page"
                )
                for result, base in results:
                    print(row(result, base), flush=True)
            finally:
                if meter is not None:
                    meter.close()
                if front is not None:
                    front.stop()
                server.stop()
    finally:
        load_after = os.getloadavg()
        cpu = time.process_time() - cpu_before
        wall = time.perf_counter() - wall_before
        problems = verify(draw.pk, created, receipts)
        draw_cancel(actor=Actor.system("bench"), draw_id=draw.pk, reason="bench run finished")

    print()
    print(
        f"{args.clients} clients (the 'write, 1 client' phase: one), phases of at most {args.seconds:.0f} s or"
        f" {args.max_requests:,} requests (the login page, write and read phases in {args.rounds} alternated"
        " rounds sharing them; a ratio to the login page is the median of the rounds'), after"
        f" {args.warm_up} warm-up requests of each kind. Load average"
        f" (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after; {load_average()} now. The load"
        f" generator used {cpu:.0f} s of CPU in {wall:.0f} s ({cpu / wall:.0%} of one CPU)."
    )
    for note in lock_notes:
        print(note)
    print(
        f"Targets (ARCHITECTURE): >= {TARGET_RATIO}x the login page's requests/s in the same run (about"
        f" {TARGET_RPS}/s here) and p99 <= {TARGET_P99_MS:.0f} ms at 32 clients."
    )
    header = (
        f"{'gunicorn':<34} {'endpoint':<32} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>8}"
        f" {'app CPU':>7} {'db CPU':>6}  target"
    )
    print(header)
    print("-" * len(header))
    for label, results in reports:
        for result, base in results:
            verdict = ""
            if result.label.startswith(("write POST", "read GET")):
                ratio = ratio_to(result, base) if base else 0.0
                fast = ratio >= TARGET_RATIO and result.pct(0.99) <= TARGET_P99_MS
                verdict = f"{ratio:.2f}x login, {'met' if fast else 'MISSED'}"
            elif result.label.startswith((PACED_WRITE, PACED_READ)):
                verdict = f"p99 {'met' if result.pct(0.99) <= TARGET_P99_MS else 'MISSED'} at this load"
            print(
                f"{label:<34} {result.label:<32} {result.rps:>7.1f} {result.pct(0.5):>7.1f} {result.pct(0.95):>7.1f}"
                f" {result.pct(0.99):>8.1f} {result.app_cpu_ms:>7.1f} {result.db_cpu_ms:>6.1f}  {verdict}"
            )
    print("(app CPU / db CPU: milliseconds of CPU per request in gunicorn's processes and in PostgreSQL's backends)")
    if paced_rates:
        print(
            f"(paced: {args.clients} clients offering that many requests a second together, open loop; latency from"
            " each request's due time. The other multi-client phases are closed loop: each client sends again as soon"
            f" as it is answered, so their mean latency is {args.clients} / (requests a second), Little's law.)"
        )
    if problems:
        print("VERIFICATION FAILED: " + "; ".join(problems))
        sys.exit(1)
    print("Verified: one activation per 201 response, serial ranges contiguous from 1 without overlap,")
    print("every receipt's range as the API answered it. The draw is now cancelled.")


if __name__ == "__main__":
    main()
