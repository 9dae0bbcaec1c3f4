"""Per-worker copies of what every activation and every kiosk read needs and what rarely
changes: a draw with its series, earning rule, promotion, property, tiers and ticket windows,
and device tokens. Loading them costs five statements and most of Django's object building, on
every request of a busy Saturday; a copy costs nothing.

How stale a copy can be, and why that is safe:

* A draw's copy is used only when its version, kept by the database (draws_draw.cache_version)
  and read in the request's own first statement (`draw_version_sql`), equals the copy's: any
  change to the draw (but its serial counter), its windows, series, rule, tiers, promotion or
  property makes a new version, so the copy is never older than that statement. A copy takes
  its version in its first statement and the rest after it, so it may hold a newer state than its
  version says (it is then loaded again), never an older one. What can still change after it
  (the window closing, the rule or a proxy registered) is checked again under the draw's row lock
  by the database itself (draws.services.activation_create), never from the copy.
* A device token is kept DEVICE_SECONDS after it was read. Revoking it in this process forgets
  it at once (device_token_set_active); another worker may still admit it for at most
  DEVICE_SECONDS on reads and the feed, while an activation asks the database whether the token
  is still active in its first statement, so a revoked kiosk never activates.
"""

import functools
import hashlib
import threading
import time
import uuid

from django.core.exceptions import ObjectDoesNotExist
from django.db import connection
from django.db.models.expressions import RawSQL

from draws.models import DeviceToken, Draw
from promotions.models import DrawSeries, EarningRule

DEVICE_SECONDS = 5.0
MAX_DRAWS = 512  # a group's draws open at once are far fewer; past this the copies start again


class DeviceRevoked(Exception):
    """The device's token was revoked since this worker read it: the API answers 401."""


_lock = threading.Lock()
_draws: dict[int, Draw] = {}
_devices: dict[str, tuple[float, DeviceToken]] = {}


def _tables() -> dict[str, str]:
    return {
        "rule": EarningRule._meta.db_table,
        "eligible": DrawSeries._meta.get_field("eligible_tiers").remote_field.through._meta.db_table,
    }


@functools.cache  # built on every request otherwise; the tables never change while running
def draw_version_sql(draw_id: str) -> str:
    """A SQL expression: the version of the draw whose id is `draw_id` (a column or a
    placeholder), NULL when there is none. The database keeps it (draws_draw.cache_version, by
    the triggers of draws/migrations/0022_draw_cache_version.py): a new one whenever the draw
    (but its serial counter, which moves with every activation and no copy reads) or anything
    its copy holds changes."""
    return f"(SELECT dv.cache_version FROM {Draw._meta.db_table} dv WHERE dv.id = {draw_id})"  # noqa: S608


@functools.cache
def rule_fingerprint_sql(series_id: str) -> str:
    """What a draw's ticket count depends on in its series, in SQL: the earning rule's row (its
    MD5) and the eligible tiers' ids, as one text. `series_id`: a column or a placeholder."""
    t = _tables()
    return f"""(SELECT coalesce((SELECT md5(to_jsonb(r)::text) FROM {t["rule"]} r WHERE r.series_id = {series_id}), '')
        || '|' || coalesce((SELECT string_agg(e.tier_id::text, ',' ORDER BY e.tier_id)
                            FROM {t["eligible"]} e WHERE e.drawseries_id = {series_id}), ''))"""  # noqa: S608


def draws_as_copied():
    """Draws with everything a copy holds (what activation and the kiosk read use of a draw)."""
    return Draw.objects.with_related().prefetch_related(
        "series__eligible_tiers", "series__desk_assisted_tiers", "windows"
    )


def load_draw(draw_id: int) -> Draw | None:
    """The draw with everything activation reads, from the database; its `cache_version` and
    `rule_fingerprint` come from the same statement as its series and rule, so the fingerprint
    is that of the rule the allocation will read."""
    if connection.vendor != "postgresql":
        return _load_draw_portably(draw_id)
    for _attempt in range(3):
        draw = (
            draws_as_copied()
            .annotate(
                # Fixed SQL built from the models' table names: no value is formatted in.
                cache_version=RawSQL(draw_version_sql('"draws_draw"."id"'), []),  # noqa: S611
                rule_fingerprint=RawSQL(rule_fingerprint_sql('"draws_draw"."series_id"'), []),  # noqa: S611
            )
            .filter(pk=draw_id)
            .first()
        )
        if draw is None:
            return None
        # The tiers came in a second statement: they must be those the fingerprint names.
        tiers = ",".join(str(t.pk) for t in sorted(draw.series.eligible_tiers.all(), key=lambda t: t.pk))
        if draw.rule_fingerprint.rsplit("|", 1)[1] == tiers:
            draw.allocation_sql_memo = {}  # draws.allocation.allocation_sql: this copy never changes
            return draw
    return draw  # changing under us three times running: the lock's re-check refuses if it matters


def _load_draw_portably(draw_id: int) -> Draw | None:
    """load_draw on `make run`'s SQLite (no md5 nor to_jsonb there): the fingerprint computed
    here from the rows read; no version, as SQLite has no worker copies (copy_of, cached_draw)."""
    draw = draws_as_copied().filter(pk=draw_id).first()
    if draw is None:
        return None
    try:
        rule = draw.series.rule
    except ObjectDoesNotExist:
        rule = None
    values = [(f.attname, getattr(rule, f.attname)) for f in rule._meta.concrete_fields] if rule else []
    tiers = ",".join(str(t.pk) for t in sorted(draw.series.eligible_tiers.all(), key=lambda t: t.pk))
    draw.rule_fingerprint = f"{hashlib.md5(repr(values).encode()).hexdigest() if rule else ''}|{tiers}"  # noqa: S324
    draw.cache_version = None
    draw.allocation_sql_memo = {}
    return draw


def copy_of(draw_id: int) -> Draw | None:
    """This worker's copy of the draw, whatever its version (None: none yet): what a statement
    may be built from before the database says whether it is current (cached_draw)."""
    return _draws.get(draw_id)


def cached_draw(draw_id: int, version: uuid.UUID) -> Draw | None:
    """The draw as of `version` (from draw_version_sql in this request): this worker's copy when
    it is that version, else a fresh load kept for the next request."""
    draw = _draws.get(draw_id)
    if draw is not None and draw.cache_version == version:
        return draw
    draw = load_draw(draw_id)
    if draw is not None:
        with _lock:
            if len(_draws) >= MAX_DRAWS:
                _draws.clear()
            _draws[draw_id] = draw
    return draw


def forget_draw(draw_id: int) -> None:
    with _lock:
        _draws.pop(draw_id, None)


def device_by_key(key_sha256: str) -> DeviceToken | None:
    """The active device token with this key hash, read at most DEVICE_SECONDS ago."""
    now = time.monotonic()
    kept = _devices.get(key_sha256)
    if kept is not None and kept[0] > now:
        return kept[1]
    device = DeviceToken.objects.select_related("property").filter(key_sha256=key_sha256, is_active=True).first()
    with _lock:
        if device is None:
            _devices.pop(key_sha256, None)
        else:
            if len(_devices) >= MAX_DRAWS:
                _devices.clear()
            _devices[key_sha256] = (now + DEVICE_SECONDS, device)
    return device


def forget_device(device: DeviceToken) -> None:
    with _lock:
        _devices.pop(device.key_sha256, None)


def refuse_if_revoked(device: DeviceToken | None) -> None:
    """DeviceRevoked when the device's token is no longer active in the database (this worker's
    copy of it forgotten): for a path that did not ask in its own statement."""
    if device is not None and not DeviceToken.objects.filter(pk=device.pk, is_active=True).exists():
        forget_device(device)
        raise DeviceRevoked()


def forget_all() -> None:
    """Drop every copy (tests that rewrite rows behind the services' back)."""
    with _lock:
        _draws.clear()
        _devices.clear()
