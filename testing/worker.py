"""A real Celery worker for integration tests.

`celery_worker` starts `celery -A config worker` in a subprocess (once per test module) on
Redis database 14 (TEST_REDIS_URL; 15 in the second pytest-xdist process), pointed at the
pytest-django test database, and switches this process (the broker the tasks are sent to, the
cache the import progress goes through, MEDIA_ROOT) to the same places for the duration of one
test. Tests that use it need committed data, so the fixture pulls in `transactional_db`.

    from testing.worker import celery_worker_fixture, celery_worker_process_fixture  # noqa: F401

(The fixtures are named `celery_worker` and `celery_worker_process`; importing them under their
function names keeps the test arguments from shadowing the imports. Imported into a module, a
fixture is that module's own, so each module that uses it starts, and stops, its own worker.)

    def test_something(celery_worker):
        some_task.delay()
        celery_worker.wait_for(lambda: ..., "the task to finish")

A test that needs another worker on the same queue (to stand in for a restarted one after
`celery_worker.kill()`) starts it with `worker_start(...)` and stops it with `worker.stop()`.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from celery import _state as celery_state
from django.conf import settings
from django.db import connection
from django.test import override_settings

from config.celery import app as celery_app
from testing.db import server_url


def redis_url_of_this_process(base: str, xdist_worker: str | None) -> str:
    """The Redis database this pytest process may flush: `base` itself, or under pytest-xdist
    (`make test` runs the suite in two processes, gw0 and gw1) base's database number plus the
    worker's, so one process's flush never empties the queue another's worker is reading."""
    if not xdist_worker or not xdist_worker.startswith("gw"):
        return base
    parts = urlsplit(base)
    database = int(parts.path.strip("/") or 0) + int(xdist_worker[2:])
    return urlunsplit(parts._replace(path=f"/{database}"))


# TEST_REDIS_URL lets two suites run side by side on one machine (the fixture flushes its db).
REDIS_URL = redis_url_of_this_process(
    os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/14"), os.environ.get("PYTEST_XDIST_WORKER")
)
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
WAIT_TIMEOUT = 20.0

T = TypeVar("T")


@dataclass
class Worker:
    process: subprocess.Popen
    hostname: str
    queue: str
    log_path: Path
    media_root: Path
    database_url: str

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError as error:
            return f"(no worker log: {error})"
        return "\n".join(text.splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL to the worker's whole process group (the main process and any pool child),
        as `kill -9` or the OOM killer would: no shutdown, no task acknowledged or requeued."""
        # Started in a session of its own, so this group is the worker's and never pytest's.
        assert os.getpgid(self.process.pid) == self.process.pid, "the worker does not lead its own process group"
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=STOP_TIMEOUT)

    def stop(self) -> None:
        _stop(self.process)

    def wait_for(self, probe: Callable[[], T], what: str, timeout: float = WAIT_TIMEOUT, interval: float = 0.1) -> T:
        """Call `probe` until it returns something truthy and return that; fail after `timeout` s."""
        deadline = time.monotonic() + timeout
        while True:
            value = probe()
            if value:
                return value
            if self.process.poll() is not None:
                pytest.fail(
                    f"The Celery worker exited (code {self.process.returncode}) while waiting for {what}.\n"
                    f"Worker log:\n{self.log_tail()}"
                )
            if time.monotonic() >= deadline:
                pytest.fail(
                    f"Timed out after {timeout:.0f} s waiting for {what} (last value: {value!r}).\n"
                    f"Worker log:\n{self.log_tail()}"
                )
            time.sleep(interval)


def _drop_pool() -> None:
    """Drop the connection pool bound to the previous broker. app.close() does that, but also
    takes the app off Celery's list of live apps: a @shared_task module imported after that
    (members.tasks, first imported by a view during a test) would never reach app.tasks."""
    celery_app.close()
    celery_state._register_app(celery_app)
    # app.close() leaves the producer pool (amqp.producer_pool, made once from the first broker
    # this process sent to): tasks and control messages would still go to the previous broker
    # (e.g. a fault test's private Redis, killed since: its ping then retries for ever).
    celery_app.amqp._producer_pool = None


@contextlib.contextmanager
def sending_to(queue: str, redis_url: str = REDIS_URL) -> Iterator[None]:
    """Send this process's tasks (and control messages) to the test broker and queue."""
    conf = celery_app.conf
    saved = {
        "broker_url": conf.broker_url,
        "broker_transport_options": conf.broker_transport_options,
        "task_default_queue": conf.task_default_queue,
    }
    saved_env = os.environ.get("CELERY_BROKER_URL")  # Celery prefers it over conf.broker_url
    _drop_pool()
    os.environ["CELERY_BROKER_URL"] = redis_url
    conf.broker_url = redis_url
    conf.broker_transport_options = dict(settings.REDIS_BROKER_TRANSPORT_OPTIONS)
    conf.task_default_queue = queue
    try:
        yield
    finally:
        _drop_pool()
        for key, value in saved.items():
            setattr(conf, key, value)
        if saved_env is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = saved_env


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    process.terminate()  # warm shutdown
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT)


def worker_start(
    *,
    folder: Path,
    queue: str,
    media_root: Path,
    redis_url: str = REDIS_URL,
    app: str = "config",
    env: dict[str, str] | None = None,
) -> Worker:
    """Start `celery -A config worker` on the test database, Redis and `queue`, with the uploads
    under `media_root`, and wait until it answers a ping. It runs in a process group of its
    own (see Worker.kill); its log goes to `folder`. `redis_url`, `app` (a test's own Celery
    app module that patches something in the worker, e.g. testing.slow_letters) and `env` (more
    environment) are for the fault tests."""
    tag = uuid.uuid4().hex[:10]
    database_url = server_url(connection.settings_dict)  # the test database, set up by now
    hostname = f"pytest-{tag}@localhost"
    env = {
        **os.environ,
        "APP_ENV": "test",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url,
        "DB_CONN_MAX_AGE": "0",  # no connection left open to the test database after a task
        "CELERY_BROKER_URL": redis_url,
        "REDIS_URL": redis_url,
        "MEDIA_ROOT": str(media_root),
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    celery = Path(sys.executable).with_name("celery")
    if not celery.exists():
        celery = Path(settings.BASE_DIR) / ".venv" / "bin" / "celery"
    command = [
        str(celery),
        "-A",
        app,
        "worker",
        "--pool=solo",
        "--loglevel=INFO",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        f"--hostname={hostname}",
        f"--queues={queue}",
    ]
    log_path = folder / f"worker-{tag}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(  # noqa: S603 (our own venv's celery, fixed arguments)
            command,
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    worker = Worker(process, hostname, queue, log_path, media_root, database_url)
    try:
        with sending_to(queue, redis_url):
            worker.wait_for(
                lambda: celery_app.control.ping(destination=[hostname], timeout=0.5),
                f"the Celery worker {hostname} to answer a ping",
                timeout=START_TIMEOUT,
                interval=0.2,
            )
    except BaseException:
        _stop(process)
        raise
    return worker


@pytest.fixture(scope="module", name="celery_worker_process")
def celery_worker_process_fixture(django_db_setup, tmp_path_factory) -> Iterator[Worker]:
    """One `celery -A config worker` per test module, on the test database and REDIS_URL."""
    redis.Redis.from_url(REDIS_URL).flushdb()
    folder = tmp_path_factory.mktemp("celery-worker")
    media_root = folder / "media"
    media_root.mkdir()
    try:
        worker = worker_start(folder=folder, queue=f"pytest-{uuid.uuid4().hex[:10]}", media_root=media_root)
        try:
            yield worker
        finally:
            worker.stop()
    finally:
        redis.Redis.from_url(REDIS_URL).flushdb()


@pytest.fixture(name="celery_worker")
def celery_worker_fixture(celery_worker_process, transactional_db) -> Iterator[Worker]:
    """The running worker, with this process sending to it and sharing its cache and media."""
    worker = celery_worker_process
    if worker.process.poll() is not None:
        pytest.fail(f"The Celery worker has exited (code {worker.process.returncode}).\n{worker.log_tail()}")
    caches = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    with sending_to(worker.queue), override_settings(CACHES=caches, MEDIA_ROOT=str(worker.media_root)):
        yield worker
