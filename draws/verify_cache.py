"""Verify's report, computed once per complete draw (issue 12: a 300,000-activation draw took
3.9 s a press, 8 presses at once about 21 s each).

Only a complete (drawn) draw's record can no longer change (its rows are frozen in PostgreSQL), so
only its report is kept: in the Django cache, under the draw's id and a fingerprint of its record
as stored (status, completion time, commitments, seed, settings, witness, every pick and the
registers), so a record that differed would not find it. A running draw's record grows with each pick: it is
verified afresh on every press.

While one press computes a report, the others wait for it instead of computing it too: the first
takes a lock (cache.add, which only one caller wins) and the others poll the cache until the
report is there or the lock is gone. A lock left by a process that died expires by itself.

`cached_verify(draw, compute)` knows nothing of what is checked: `compute()` returns the report
(whatever the record page's Verify shows), so what Verify checks can change behind it; bump
VERSION when it does, so reports cached by the previous code are not shown.
"""

import dataclasses
import hashlib
import json
import time
import uuid
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache

from draws import registers
from draws.models import Draw, DrawPick, DrawStatus, RapsList

Report = TypeVar("Report")

VERSION = "4"  # of what compute() returns: bump it when the checks change (3: format 2; 4: registers)
KEEP_SECONDS = 30 * 24 * 3600  # a complete draw's report; recomputed after that, or if evicted
LOCK_SECONDS = 120  # a lock left by a press whose process died frees itself after this
WAIT_SECONDS = 60  # a press waits this long for another's report, then computes its own
POLL_SECONDS = 0.05

_DRAW_FIELDS = (
    "status",
    "method",
    "scheduled_at",
    "entries_frozen_at",
    "entries_count",
    "tickets_total",
    "entries_sha256",
    "seed_sha256",
    "seed_hex",
    "started_at",
    "started_by",
    "witness_name",
    "winners_wanted",
    "win_once",
    "completed_at",
    "ended_short_reason",
    "software_version",
)
_PICK_FIELDS = (
    "seq",
    "k",
    "pool",
    "serial",
    "member_id",
    "card_number",
    "picked_at",
    "picked_by",
    "outcome",
    "reason",
    "outcome_at",
    "outcome_by",
)


def record_fingerprint(draw_id: int) -> str | None:
    """A SHA-256 of the draw's record as stored (not its entries: those are the entry hash's,
    and the rows behind it are frozen), or None while the draw is not complete."""
    row = Draw.objects.filter(pk=draw_id).values(*_DRAW_FIELDS).first()
    if row is None or row["status"] != DrawStatus.DRAWN:
        return None
    picks = list(DrawPick.objects.filter(draw_id=draw_id).order_by("seq").values_list(*_PICK_FIELDS))
    raps = RapsList.objects.filter(draw_id=draw_id).values_list("list_sha256", "uploaded_at").first()
    # The record holds the registers too (docs/draw-records-registers.md): a registration
    # changed in its table behind the services' back must not find the report of before.
    found = registers.registrations(Draw.objects.get(pk=draw_id))
    registrations = [dataclasses.astuple(r) for r in [*found.proxy, *found.decline]]
    text = json.dumps([draw_id, row, picks, raps, registrations], default=str, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached_verify(draw: Draw, compute: Callable[[], Report], *, version: str = VERSION) -> Report:
    """compute()'s report for this draw: for a complete draw, computed once and kept; for any
    other, computed now."""
    fingerprint = record_fingerprint(draw.pk)
    if fingerprint is None:
        return compute()
    key = f"draws:verify:{version}:{draw.pk}:{fingerprint}"
    report = cache.get(key)
    if report is not None:
        return report
    lock, token = f"{key}:computing", uuid.uuid4().hex
    give_up_at = time.monotonic() + WAIT_SECONDS
    while True:
        if time.monotonic() > give_up_at or cache.add(lock, token, LOCK_SECONDS):
            try:
                report = cache.get(key)  # computed by the press that held the lock before
                if report is None:
                    report = compute()
                    cache.set(key, report, KEEP_SECONDS)
                return report
            finally:
                if cache.get(lock) == token:
                    cache.delete(lock)
        time.sleep(POLL_SECONDS)
        report = cache.get(key)
        if report is not None:
            return report
