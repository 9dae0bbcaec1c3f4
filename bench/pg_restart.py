"""PostgreSQL restarted under load (issue 16, part 4): requests in flight fail cleanly and the
next ones succeed, with no restart of gunicorn or the Celery worker.

    .venv/bin/python bench/pg_restart.py [--clients 8] [--seconds 20] [--idle-seconds 4] [--timeout 10]
        [--grace 0] [--workers 2] [--threads 4] [--no-worker] [--keep]

Everything runs in a temporary folder and is removed at the end, also on an error or Ctrl-C:

1. a PRIVATE PostgreSQL cluster (initdb, then pg_ctl start on a free loopback port with its socket
   in the folder; the shared server on 5432 is never touched), migrated, with 20 demo members
   (members.demo.seed_members) and a Rewards desk user signed in (a session made in this process);
2. gunicorn (config/gunicorn.conf.py, gthread --workers x --threads, APP_ENV=development,
   DEBUG=0, persistent connections: DB_CONN_MAX_AGE 60 as in production) and a Celery worker
   (solo pool), both on kombu's filesystem broker in the folder (no Redis needed);
3. --clients threads, each on its own keep-alive connection, loop for --seconds: half GET
   /healthz (SELECT 1, no session), half GET /members/<id>/ (session, permissions, ORM). Halfway,
   `pg_ctl restart -m fast` on the private cluster (it waits until the server accepts
   connections again).

Then a second restart while no request is running, and --idle-seconds more of the same load:
every kept connection died unseen, which only CONN_HEALTH_CHECKS catches (without it each
gunicorn thread's next request fails: tried, 6 of 208 failed).

Each request of the first load is counted by when it started: before the restart, during it
(from `pg_ctl restart` until it returned, plus --grace seconds) or after. It prints per phase the
answers and the slowest; how long until the first success after the restart; and whether
gunicorn kept its workers. With the worker, a tick (`config.tasks.tick`) before the restart and
one after: the second must advance WorkerHeartbeat("beat") on the same worker process.

Exit status 1 when a request after the window or after the idle restart failed, when any failure
was not a clean 500/503 (a timeout beyond --timeout, a reset or another status: the first runs
found a 400 "Bad Request", Django's answer to a session save that failed, now a 500 by
core/sessions.py), when gunicorn booted a new worker or the worker's tick did not run.
"""

import argparse
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from drawbench import ROOT, load_average, percentile, stop_process_group

CLEAN_FAILURES = {500, 503}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pg_bin(name: str) -> str:
    """The newest installed PostgreSQL's program (pg_ctl, initdb)."""
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=lambda p: int(p.parts[-3]))
    if not found:
        raise SystemExit(f"no /usr/lib/postgresql/*/bin/{name}")
    return str(found[-1])


def as_owner(folder: Path) -> list[str]:
    """PostgreSQL refuses to run as root: then the cluster is run as the `postgres` account and
    the folder handed to it (this script, as root, still writes its logs there)."""
    if os.geteuid() != 0:
        return []
    shutil.chown(folder, user="postgres", group="postgres")
    return ["runuser", "-u", "postgres", "--"]


class Cluster:
    """A private PostgreSQL cluster in `folder`: trust auth for postgres, loopback and a socket
    in the folder only."""

    def __init__(self, folder: Path):
        self.data = folder / "pgdata"
        self.port = free_port()
        self.started = False
        self.owner = as_owner(folder)
        subprocess.run(
            [*self.owner, pg_bin("initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self.log = folder / "postgres.log"
        self.options = f"-p {self.port} -k {folder} -c listen_addresses=127.0.0.1"
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/promodesk"

    def pg_ctl(self, *args: str) -> None:
        command = [
            *self.owner,
            pg_bin("pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            self.options,
            "-l",
            str(self.log),
            "-w",
            *args,
        ]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

    def start(self) -> None:
        self.started = True  # before: Ctrl-C during pg_ctl start must still stop it
        self.pg_ctl("start")
        subprocess.run(
            [pg_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "promodesk"], check=True
        )

    def restart(self) -> None:
        self.pg_ctl("restart", "-m", "fast")

    def stop(self) -> None:
        if self.started:
            subprocess.run(
                [*self.owner, pg_bin("pg_ctl"), "-D", str(self.data), "-w", "stop", "-m", "immediate"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self.started = False


def app_env(url: str, folder: Path) -> dict:
    """What gunicorn, the worker and this process share: the private database, the filesystem
    broker in the folder (VAR_DIR), development settings without DEBUG."""
    env = {**os.environ, "APP_ENV": "development", "DATABASE_URL": url, "DEBUG": "0"}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", VAR_DIR=str(folder / "var"), DB_CONN_MAX_AGE="60")
    for name in ("CELERY_BROKER_URL", "REDIS_URL", "ALLOWED_HOSTS", "MIGRATION_DATABASE_URL"):
        env.pop(name, None)
    return env


class Service:
    """gunicorn or the worker: its own session (Ctrl-C reaches only this script), output to a log."""

    def __init__(self, name: str, command: list[str], env: dict, folder: Path):
        self.name = name
        self.log_path = folder / f"{name}.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> None:
        if self.process.poll() is not None:
            raise SystemExit(f"{self.name} exited with {self.process.returncode}:\n{self.text()[-3000:]}")

    def stop(self) -> None:
        stop_process_group(self.process)
        self.log.close()


def wait_http(server: Service, port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        server.alive()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/accounts/login/")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.25)
    raise SystemExit(f"gunicorn did not answer within {timeout:.0f} s; see {server.log_path}")


# --- data (in this process, through the project's code) ---------------------------------------


def prepare() -> tuple[int, str]:
    """20 demo members and a Rewards desk user at GRC, signed in: (a member's id, the session)."""
    import secrets

    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    from core.roles import REWARDS_DESK
    from members.demo import seed_members
    from members.models import Member, Property, StaffProfile

    user = get_user_model().objects.create_user(username="bench-desk", password=secrets.token_urlsafe(16))
    user.groups.add(Group.objects.get(name=REWARDS_DESK))
    seed_members(count=20, recorder=user)
    StaffProfile.objects.create(user=user, home_property=Property.objects.get(code="GRC"))
    client = Client()
    client.force_login(user)
    member_id = Member.objects.order_by("pk").values_list("pk", flat=True).first()
    return member_id, client.cookies["sessionid"].value


def beat_ticks() -> int:
    from core.models import WorkerHeartbeat

    return WorkerHeartbeat.objects.filter(name="beat").values_list("ticks", flat=True).first() or 0


def tick_through_worker(worker: Service, timeout: float = 60.0) -> float:
    """Send config.tasks.tick and wait until the worker has advanced the beat heartbeat: seconds."""
    from django.db import close_old_connections

    from config.tasks import tick

    before = beat_ticks()
    sent = time.monotonic()
    tick.delay()
    while time.monotonic() - sent < timeout:
        worker.alive()
        time.sleep(0.2)
        close_old_connections()
        if beat_ticks() > before:
            return time.monotonic() - sent
    raise TimeoutError


# --- the load -------------------------------------------------------------------------------------


@dataclass
class Answer:
    path: str
    started: float
    ended: float
    status: int | str  # the HTTP status, or "timeout" / the exception's name

    @property
    def ok(self) -> bool:
        return self.status == 200


def client_loop(port: int, paths: list[str], cookie: str, timeout: float, stop: threading.Event, out: list):
    signed_in = {"Cookie": f"sessionid={cookie}", "Host": "127.0.0.1"}
    anonymous = {"Host": "127.0.0.1"}  # a monitor sends no session: /healthz then needs no session row
    conn = None
    i = 0
    while not stop.is_set():
        path = paths[i % len(paths)]
        i += 1
        started = time.monotonic()
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
            conn.request("GET", path, headers=anonymous if path == "/healthz" else signed_in)
            response = conn.getresponse()
            response.read()
            status: int | str = response.status
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except TimeoutError:
            status = "timeout"
        except Exception as error:  # every outcome is counted, errors included
            status = type(error).__name__
        if not isinstance(status, int) and conn is not None:
            conn.close()
            conn = None
        out.append(Answer(path, started, time.monotonic(), status))
    if conn is not None:
        conn.close()


def load(port: int, paths: list[str], cookie: str, args, seconds: float, meanwhile) -> tuple[list[Answer], int]:
    """--clients threads for `seconds` while `meanwhile(t0)` runs here: (the answers, threads still
    waiting after --timeout)."""
    stop = threading.Event()
    answers: list[Answer] = []
    threads = [
        threading.Thread(
            target=client_loop,
            args=(port, paths[i % 2 :] + paths[: i % 2], cookie, args.timeout, stop, answers),
            daemon=True,
        )
        for i in range(args.clients)
    ]
    t0 = time.monotonic()
    for thread in threads:
        thread.start()
    meanwhile(t0)
    time.sleep(max(0.0, t0 + seconds - time.monotonic()))
    stop.set()
    for thread in threads:
        thread.join(timeout=args.timeout + 5)
    return answers, sum(thread.is_alive() for thread in threads)


def describe(answers: list[Answer]) -> str:
    if not answers:
        return "no requests"
    counts = Counter(a.status for a in answers)
    slowest = max(a.ended - a.started for a in answers) * 1000
    p95 = percentile([(a.ended - a.started) * 1000 for a in answers], 0.95)
    answer_text = ", ".join(f"{status}: {n}" for status, n in sorted(counts.items(), key=lambda kv: str(kv[0])))
    return f"{len(answers):5d} requests ({answer_text}); p95 {p95:.0f} ms, slowest {slowest:.0f} ms"


def interrupted(signum, frame):
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--timeout", type=float, default=10.0, help="a request slower than this is hung")
    parser.add_argument("--idle-seconds", type=float, default=4.0, help="the load after the restart while idle")
    parser.add_argument("--grace", type=float, default=0.0, help="seconds after pg_ctl returns still in the window")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--no-worker", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the folder (logs, data) for a look")
    args = parser.parse_args()

    # Ctrl-C and SIGTERM (also when started in the background) end the run through the finally below.
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    folder = Path(tempfile.mkdtemp(prefix="pgr-"))  # short: the socket path has a length limit
    cluster = None
    services: list[Service] = []
    try:
        print(f"load: {load_average()}")
        started = time.monotonic()
        cluster = Cluster(folder)
        cluster.start()
        env = app_env(cluster.url, folder)
        for sub in ("queue", "processed", "control"):
            (folder / "var" / "celery" / sub).mkdir(parents=True, exist_ok=True)
        os.environ.update(env)
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        call_command("migrate", interactive=False, verbosity=0)

        from core.services import tick_run

        member_id, cookie = prepare()
        tick_run()  # /healthz counts a beat older than two minutes as unhealthy
        connection.close()
        took = time.monotonic() - started
        print(f"private cluster on 127.0.0.1:{cluster.port} ready, migrated, 20 members: {took:.1f} s")

        port = free_port()
        gunicorn = [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi", "--config", "config/gunicorn.conf.py"]
        gunicorn += ["--bind", f"127.0.0.1:{port}", "--worker-class", "gthread"]
        gunicorn += ["--workers", str(args.workers), "--threads", str(args.threads)]
        web = Service("gunicorn", gunicorn, env, folder)
        services.append(web)
        worker = None
        if not args.no_worker:
            celery = [str(Path(sys.executable).parent / "celery"), "-A", "config", "worker", "--pool", "solo"]
            celery += ["--loglevel", "INFO", "--hostname", "pgbench@%h", "--without-mingle", "--without-gossip"]
            worker = Service("worker", celery, env, folder)
            services.append(worker)
        wait_http(web, port)
        gunicorn_pid = web.process.pid
        if worker:
            print(f"tick through the worker before the restart: beat advanced in {tick_through_worker(worker):.1f} s")
            worker_pid = worker.process.pid
        connection.close()

        paths = ["/healthz", f"/members/{member_id}/"]
        marks: dict[str, float] = {}

        def restart_halfway(t0: float) -> None:
            marks["t0"] = t0
            time.sleep(max(0.0, t0 + args.seconds / 2 - time.monotonic()))
            marks["restart_at"] = time.monotonic()
            cluster.restart()
            marks["ready_at"] = time.monotonic()

        answers, hung_threads = load(port, paths, cookie, args, args.seconds, restart_halfway)
        t0, restart_at, ready_at = marks["t0"], marks["restart_at"], marks["ready_at"]
        window_end = ready_at + args.grace
        # Then a restart while nobody asks anything: every kept connection dies unseen, and only
        # CONN_HEALTH_CHECKS keeps each worker thread's next request from failing on it.
        idle_started = time.monotonic()
        cluster.restart()
        idle_took = time.monotonic() - idle_started
        idle_answers, idle_hung = load(port, paths, cookie, args, args.idle_seconds, lambda t0: None)
        hung_threads += idle_hung

        before = [a for a in answers if a.started < restart_at]
        during = [a for a in answers if restart_at <= a.started < window_end]
        after = [a for a in answers if a.started >= window_end]
        failed = [a for a in answers if not a.ok]
        idle_failed = [a for a in idle_answers if not a.ok]
        unclean = [a for a in failed + idle_failed if a.status not in CLEAN_FAILURES]
        print(
            f"{args.clients} clients for {args.seconds:.0f} s, gunicorn gthread {args.workers}x{args.threads}; "
            f"pg_ctl restart -m fast at +{restart_at - t0:.1f} s took {ready_at - restart_at:.2f} s"
        )
        print(f"  before the restart  {describe(before)}")
        print(f"  during (+{args.grace:.1f} s)     {describe(during)}")
        print(f"  after               {describe(after)}")
        for path in paths:
            mine = [a for a in failed if a.path == path]
            print(f"  failed on {path}: {len(mine)} ({dict(Counter(a.status for a in mine))})")
        if failed:
            print(
                f"  failed requests started from {min(a.started for a in failed) - restart_at:+.2f} s and ended by "
                f"{max(a.ended for a in failed) - restart_at:+.2f} s, counted from the start of the restart"
            )
        recovered = [a for a in answers if a.ok and a.ended >= ready_at]
        if recovered:
            first = min(recovered, key=lambda a: a.ended)
            print(
                f"  first success after the restart: +{first.ended - restart_at:.2f} s after pg_ctl restart began, "
                f"+{first.ended - ready_at:.2f} s after PostgreSQL accepted connections again"
            )
        after_failed = [a for a in after if not a.ok]
        print(
            f"  after the window: {len(after) - len(after_failed)} of {len(after)} requests succeeded"
            f"{'' if after_failed else ' (every one)'}"
        )

        print(
            f"restart while idle (took {idle_took:.2f} s), then {args.clients} clients for {args.idle_seconds:.0f} s: "
            f"{describe(idle_answers)}"
        )

        booted = len(re.findall(r"Booting worker with pid", web.text()))
        same_web = web.process.poll() is None and web.process.pid == gunicorn_pid and booted == args.workers
        verdict = "yes" if same_web else "NO"
        print(f"  gunicorn: same master, {booted} workers booted in all ({args.workers} at start): {verdict}")
        tick_ok = True
        if worker:
            try:
                took = tick_through_worker(worker)
                same_worker = worker.process.poll() is None and worker.process.pid == worker_pid
                tick_ok = same_worker
                print(f"  tick after the restart: beat advanced in {took:.1f} s, same worker process: {same_worker}")
            except TimeoutError:
                tick_ok = False
                print("  tick after the restart: the beat did NOT advance within 60 s")
            step_failures = worker.text().count("Tick step")
            print(f"  worker log: {step_failures} tick steps failed")

        problems = []
        if after_failed:
            problems.append(f"{len(after_failed)} requests after the window failed")
        if idle_failed:
            problems.append(f"{len(idle_failed)} requests after the restart while idle failed")
        if unclean:
            kinds = dict(Counter(a.status for a in unclean))
            problems.append(f"{len(unclean)} failures were not a clean 500/503: {kinds}")
        if hung_threads:
            problems.append(f"{hung_threads} client threads still waiting")
        if not same_web:
            problems.append("gunicorn restarted a worker or died")
        if not tick_ok:
            problems.append("the worker's tick after the restart did not run")
        print("RESULT: " + ("ok" if not problems else "FAILED: " + "; ".join(problems)))
        return 1 if problems else 0
    except KeyboardInterrupt:
        print("interrupted: cleaning up")
        return 130
    finally:
        for service in reversed(services):
            service.stop()
        if cluster:
            cluster.stop()
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
