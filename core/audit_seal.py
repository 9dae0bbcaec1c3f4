"""Sealing the audit log day by day, and checking the seals (docs/audit-seal.md).

seal_due() is a step of the beat tick: it seals, in order, every Johannesburg day from the
first event's (or the day after the latest seal) up to yesterday. verify_chain() recomputes
every sealed day from the events, streaming, and names the first day that does not match.

Nothing here locks core_auditevent: writers never wait for the sealer. Sealers exclude one
another with a transaction-level advisory lock (a doubled tick skips), and the day is unique.

A late commit: created_at is the database's clock_timestamp() at INSERT, so an event written at
23:59:59 by a transaction that commits at 00:00:05 is dated in day D yet invisible until then.
Day D is therefore sealed only once
  - GRACE has passed since D's end (clock skew between the app and the database), and
  - no client transaction on this database that began before D's end is still open
    (pg_stat_activity.xact_start): every event of D was inserted by such a transaction, so once
    none is open, every event of D is committed (or rolled back) and visible.
The application's role sees xact_start of its own role's sessions only (web, worker and beat all
connect as it); a session of another role (the owner's, a superuser's) is covered by GRACE alone.
"""

import datetime as dt
import logging
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Min
from django.utils import timezone

from core.models import AuditEvent, AuditSeal
from core.seal_digest import FIELDS, GENESIS, VERSION, ZONE, DayDigest, day_bounds, day_digest

log = logging.getLogger(__name__)

GRACE = dt.timedelta(minutes=5)
ROWS_PER_FETCH = 2000
LOCK_NAME = "core.audit_seal"


def _local_day(moment: dt.datetime) -> dt.date:
    return moment.astimezone(ZONE).date()


def day_rows(day: dt.date):
    """The day's events as canonical rows, in id order, from a server-side cursor."""
    start, end = day_bounds(day)
    return (
        AuditEvent.objects.filter(created_at__gte=start, created_at__lt=end)
        .order_by("id")
        .values_list(*FIELDS)  # the model's names are the spec's
        .iterator(chunk_size=ROWS_PER_FETCH)
    )


def latest_seal() -> AuditSeal | None:
    """The most recent sealed day (shown on the start pages, printed on record packs)."""
    return AuditSeal.objects.order_by("-day").first()


def _first_event_day() -> dt.date | None:
    first = AuditEvent.objects.aggregate(first=Min("created_at"))["first"]
    return _local_day(first) if first is not None else None


def _try_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(hashtext(%s))", [LOCK_NAME])
        return cursor.fetchone()[0]


def open_transactions_before(moment: dt.datetime) -> int:
    """How many other client transactions on this database began before `moment` and are still
    open: any of them may yet commit an event dated before it."""
    with connection.cursor() as cursor:
        # pg_stat_activity is read once per transaction unless the snapshot is cleared.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend' "
            "AND xact_start IS NOT NULL AND xact_start < %s",
            [moment],
        )
        return cursor.fetchone()[0]


def seal_due(*, max_days: int | None = None) -> list[AuditSeal]:
    """Seal every unsealed day up to yesterday (Johannesburg), oldest first, each in its own
    transaction; stop at the first day that is not yet safe to seal. Returns the new seals."""
    if connection.vendor != "postgresql":
        return []  # make run's SQLite: no triggers, no pg_stat_activity, nothing to prove
    sealed: list[AuditSeal] = []
    while max_days is None or len(sealed) < max_days:
        with transaction.atomic():
            if not _try_lock():
                return sealed  # another tick is sealing
            seal = _seal_next(timezone.now())
        if seal is None:
            return sealed
        sealed.append(seal)
    return sealed


def _seal_next(now: dt.datetime) -> AuditSeal | None:
    latest = latest_seal()
    if latest is not None:
        day, previous = latest.day + dt.timedelta(days=1), latest.digest
    else:
        day, previous = _first_event_day(), GENESIS
        if day is None:
            return None  # no event yet: the chain starts with the first one's day
    end = day_bounds(day)[1]
    if now < end + GRACE:
        return None
    blocking = open_transactions_before(end)
    if blocking:
        log.info("Audit seal of %s waits: %d transaction(s) begun before its end are still open.", day, blocking)
        return None
    result: DayDigest = day_digest(day, previous, day_rows(day))
    return AuditSeal.objects.create(
        day=day,
        version=VERSION,
        event_count=result.count,
        first_event_id=result.first_id,
        last_event_id=result.last_id,
        digest=result.digest,
        previous_digest=previous,
        sealed_at=now,
    )


@dataclass(frozen=True)
class ChainCheck:
    """What verify_chain found: `ok`, and otherwise the first day that does not match and why."""

    ok: bool
    message: str
    first_bad_day: dt.date | None = None
    days_checked: int = 0
    events_checked: int = 0
    latest: AuditSeal | None = None


def _fail(day: dt.date, what: str, days: int, events: int) -> ChainCheck:
    return ChainCheck(
        ok=False,
        first_bad_day=day,
        message=f"The audit log of {day:%Y-%m-%d} does not match its seal: {what}.",
        days_checked=days,
        events_checked=events,
    )


def _difference(seal: AuditSeal, found: DayDigest) -> str | None:
    """What changed in a sealed day, in words, or None when it holds."""
    if found.count < seal.event_count:
        missing = seal.event_count - found.count
        return f"{missing} event{'s' if missing != 1 else ''} missing (sealed {seal.event_count}, found {found.count})"
    if found.count > seal.event_count:
        extra = found.count - seal.event_count
        return f"{extra} event{'s' if extra != 1 else ''} inserted (sealed {seal.event_count}, found {found.count})"
    if (found.first_id, found.last_id) != (seal.first_event_id, seal.last_event_id):
        return (
            f"events replaced (sealed ids {seal.first_event_id} to {seal.last_event_id}, "
            f"found {found.first_id} to {found.last_id})"
        )
    if found.digest != seal.digest:
        return "an event was changed (same events by count and ids, different content)"
    return None


def verify_chain(from_day: dt.date | None = None) -> ChainCheck:
    """Recompute every sealed day from `from_day` on (all when None) from the events, streaming,
    and check each day's count, ids and digest and each link to the day before. Days after the
    latest seal are not checked (they are not sealed yet)."""
    seals = AuditSeal.objects.order_by("day")
    before = None
    if from_day is not None:
        before = seals.filter(day__lt=from_day).order_by("-day").first()
        seals = seals.filter(day__gte=from_day)
    days = events = 0
    seal = None
    for seal in seals.iterator(chunk_size=500):
        if before is None:
            if seal.previous_digest != GENESIS:
                what = "the first seal does not start the chain (its previous digest is not the genesis value)"
                return _fail(seal.day, what, days, events)
            # Nothing may be older than the first sealed day.
            start = day_bounds(seal.day)[0]
            older = AuditEvent.objects.filter(created_at__lt=start).aggregate(first=Min("created_at"))["first"]
            if older is not None:
                return _fail(_local_day(older), "an event inserted before the first sealed day", days, events)
        else:
            if seal.day != before.day + dt.timedelta(days=1):
                return _fail(before.day + dt.timedelta(days=1), "its seal is missing from the chain", days, events)
            if seal.previous_digest != before.digest:
                return _fail(seal.day, "broken link (its seal does not name the previous day's digest)", days, events)
        if seal.version != VERSION:
            return _fail(seal.day, f"the seal is of an unknown form ({seal.version})", days, events)
        found = day_digest(seal.day, seal.previous_digest, day_rows(seal.day))
        difference = _difference(seal, found)
        if difference is not None:
            return _fail(seal.day, difference, days, events)
        days += 1
        events += found.count
        before = seal
    if seal is None:
        return ChainCheck(ok=True, message="No day of the audit log is sealed yet: nothing to check.")
    first = seals.first().day
    return ChainCheck(
        ok=True,
        message=(
            f"The audit log holds: {days:,} sealed day{'s' if days != 1 else ''} from {first:%Y-%m-%d} to "
            f"{seal.day:%Y-%m-%d}, {events:,} events, every link intact; latest digest {seal.digest}."
        ),
        days_checked=days,
        events_checked=events,
        latest=seal,
    )
