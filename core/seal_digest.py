"""A day's audit-log digest, exactly as docs/audit-seal.md specifies it, with no Django: the
sealer (core.audit_seal) and the verifier share it, and an outsider can run it on exported rows.

A row is a sequence of the nine fields in canonical order (FIELDS). `created_at` is an aware
datetime (any zone) or the already-canonical UTC text; `data` is the event's JSON value.
"""

import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

VERSION = "promodesk-audit-seal/1"
GENESIS = "0" * 64  # the "previous digest" of the first sealed day
ZONE = ZoneInfo("Africa/Johannesburg")
FIELDS = ("id", "created_at", "actor_id", "actor_label", "action", "object_type", "object_id", "ip", "data")


@dataclass(frozen=True)
class DayDigest:
    digest: str
    count: int
    first_id: int | None
    last_id: int | None


def day_bounds(day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """The day's start (inclusive) and end (exclusive) in UTC, days being Johannesburg's."""
    start = dt.datetime.combine(day, dt.time(), tzinfo=ZONE)
    end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=ZONE)
    return start.astimezone(dt.UTC), end.astimezone(dt.UTC)


def utc_text(moment: dt.datetime | str) -> str:
    """2026-03-01T07:05:09.000120Z: UTC, always six digits of microseconds."""
    if isinstance(moment, str):
        return moment
    if moment.tzinfo is None:
        raise ValueError("an audit event's time must carry its zone")
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event_line(row: Sequence) -> bytes:
    """One event's canonical bytes: a JSON array of the nine fields, ASCII only, keys sorted,
    no spaces, then a line feed. JSON escapes every line feed inside a value, so lines cannot
    be confused with one another."""
    if len(row) != len(FIELDS):
        raise ValueError(f"an audit row has {len(FIELDS)} fields, not {len(row)}")
    values = list(row)
    values[1] = utc_text(values[1])
    text = json.dumps(values, ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return (text + "\n").encode("ascii")


def day_digest(day: dt.date, previous_digest: str, rows: Iterable[Sequence]) -> DayDigest:
    """SHA-256 over the version line, the day, the previous day's digest, the day's events in id
    order and their count. `rows` is consumed once, as it comes (a database cursor streams it)."""
    if len(previous_digest) != 64 or previous_digest != previous_digest.lower():
        raise ValueError("the previous digest is 64 lowercase hexadecimal characters")
    hasher = hashlib.sha256(f"{VERSION}\nday {day.isoformat()}\nprevious {previous_digest}\n".encode("ascii"))
    count, first_id, last_id = 0, None, None
    for row in rows:
        event_id = row[0]
        if last_id is not None and event_id <= last_id:
            raise ValueError(f"audit rows must come in increasing id order ({event_id} after {last_id})")
        hasher.update(event_line(row))
        count += 1
        first_id = event_id if first_id is None else first_id
        last_id = event_id
    hasher.update(f"count {count}\n".encode("ascii"))
    return DayDigest(hasher.hexdigest(), count, first_id, last_id)
