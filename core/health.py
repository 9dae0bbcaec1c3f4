"""Is the system alive: the database, the Celery broker and the beat tick (issue 16, part 5).

`report()` runs three cheap checks, each bounded in time, and never raises: `/healthz`
(core.health_views) and `manage.py health` (compose's beat healthcheck) both answer from it.
The answer holds no personal data and no error text (which could name hosts or users): the
reason a check failed goes to the log only.
"""

import datetime as dt
import logging
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from kombu import Connection

from core.models import WorkerHeartbeat

logger = logging.getLogger(__name__)

# The tick runs every TICK_SECONDS (15 by default): two minutes without one is eight missed
# ticks, so beat or the worker is down (the threshold).
TICK_STALE_SECONDS = 120
# Each check gives up after this long: a healthcheck must answer before its own timeout.
DATABASE_TIMEOUT_MS = 2000
BROKER_TIMEOUT_SECONDS = 1.5

CHECKS = ("database", "broker", "tick")


@dataclass(frozen=True)
class Tick:
    ok: bool
    last_tick_at: dt.datetime | None
    age_seconds: int | None

    def as_json(self) -> dict:
        return {
            "ok": self.ok,
            "last_tick_at": self.last_tick_at.isoformat() if self.last_tick_at else None,
            "age_seconds": self.age_seconds,
        }


def database_ok() -> bool:
    """SELECT 1 under a short statement timeout (PostgreSQL; SQLite has none and needs none)."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SET LOCAL statement_timeout = %s", [DATABASE_TIMEOUT_MS])
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        logger.warning("healthz: the database check failed", exc_info=True)
        return False


def broker_ok() -> bool:
    """One connection attempt to the Celery broker, no retries: a down broker answers within
    BROKER_TIMEOUT_SECONDS (connection refused at once, a silent host at the timeout)."""
    options = {
        **getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}),
        # Redis: one socket attempt, bounded reads and no reconnect loop inside kombu.
        "socket_timeout": BROKER_TIMEOUT_SECONDS,
        "socket_connect_timeout": BROKER_TIMEOUT_SECONDS,
        "max_retries": 0,
    }
    try:
        with Connection(
            settings.CELERY_BROKER_URL, connect_timeout=BROKER_TIMEOUT_SECONDS, transport_options=options
        ) as conn:
            # Redis: opening the connection's first channel sends a PING.
            conn.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_SECONDS)
        return True
    except Exception:
        logger.warning("healthz: the broker check failed", exc_info=True)
        return False


def tick_state(now: dt.datetime | None = None) -> Tick:
    """The beat tick's last run (core.services.tick_run): older than TICK_STALE_SECONDS, or
    never, is unhealthy."""
    now = now or timezone.now()
    try:
        last = WorkerHeartbeat.objects.filter(name="beat").values_list("last_tick_at", flat=True).first()
    except Exception:
        logger.warning("healthz: the tick could not be read", exc_info=True)
        return Tick(False, None, None)
    if last is None:
        return Tick(False, None, None)
    age = max(0, int((now - last).total_seconds()))
    return Tick((now - last).total_seconds() <= TICK_STALE_SECONDS, last, age)


def report(only: tuple[str, ...] = CHECKS) -> dict:
    """{"status": "ok"|"unhealthy", "database": {"ok"}, "broker": {"ok"}, "tick": {...}} for the
    checks named in `only`."""
    body: dict = {}
    if "database" in only:
        body["database"] = {"ok": database_ok()}
    if "broker" in only:
        body["broker"] = {"ok": broker_ok()}
    if "tick" in only:
        body["tick"] = tick_state().as_json()
    healthy = all(part["ok"] for part in body.values())
    return {"status": "ok" if healthy else "unhealthy", **body}
