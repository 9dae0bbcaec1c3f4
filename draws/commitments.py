"""Verify a draw from the database: the record's two files (draws.verification, DRAWS.md §6) and
what the draw committed to when its entries froze, as two append-only witnesses kept it.

The files alone prove that the picks follow from the seed and the entry list; they cannot prove
that the seed is the one committed before the start (a seed and its hash swapped together give a
record that verifies). So the record's entry-list hash and seed hash are also held against

- the database's commitments (draws.DrawCommitment: appended by a trigger whenever a draw's
  hashes are set or replaced, never written by the application): the last one must be the
  record's, and a draw that is not a RAPS session has exactly one (its entries freeze once);
- the audit log (append-only): the first `draw.entries_frozen` event of the draw; for a RAPS
  session, the last `draw.raps_list_uploaded` event before `draw.started`.

The record checked is exported afresh from the database, registers included
(docs/draw-records-registers.md): a nomination or decline changed in its table behind the
services' back shows at the pick whose outcome rests on it.

draw_verify(draw) is the one entry point: the Verify page and `manage.py verify_draw` call it;
draws_verify(draws) checks several together (refs to other draws, win-once across them). The
entry list is streamed from the database into the verifier: memory does not grow with it.
"""

import json

from django.db import connection

from core.formats import local_datetime
from core.models import AuditEvent
from draws.models import CommitmentStep, Draw, DrawCommitment
from draws.record import entries_chunks, record_json
from draws.verification import RECORD_FORMAT, Report, verify_record
from promotions.models import DrawMethod

DATABASE_CHECK = "Commitment kept by the database"
AUDIT_CHECK = "Commitment in the audit log"


def draw_verify(draw: Draw, *, others: dict[int, dict] | None = None) -> Report:
    """Every check of the record's files, then the record's commitments against the database's
    and the audit log's. The same Report as draws.verification.verify_record. `others`: the
    records of other draws checked with it (draw id -> record)."""
    return _verify(draw, record_json(draw), others)


def draws_verify(draws: list[Draw]) -> list[Report]:
    """Several draws checked together (e.g. a promotion's): each as draw_verify, with the
    others' records given, so a redraw resting on a win in another draw is checked against it."""
    texts = [(draw, record_json(draw)) for draw in draws]
    others = {}
    for draw, text in texts:
        record = json.loads(text)
        if record.get("format") == RECORD_FORMAT:
            others[draw.pk] = record
    return [_verify(draw, text, others) for draw, text in texts]


def _verify(draw: Draw, text: bytes, others: dict[int, dict] | None) -> Report:
    report = verify_record(text, lambda: entries_chunks(draw), others=others)
    try:
        record = json.loads(text)
        committed = (record["entries"]["sha256"], record["seed"]["sha256"])
    except (ValueError, KeyError, TypeError):
        return report  # verify_record already says the record is unreadable
    if None in committed:
        return report  # nothing committed yet: the file checks say so ("not verified yet")
    raps = draw.method == DrawMethod.RAPS
    if connection.vendor == "postgresql":  # SQLite (`make run` without a server) keeps no commitments
        _check_database(report, draw, committed, raps=raps)
    _check_audit_log(report, draw, committed, raps=raps)
    return report


def raps_uploads(draw: Draw) -> int:
    """How many times the session's active-player list was uploaded (each upload commits anew)."""
    return DrawCommitment.objects.filter(draw=draw, step=CommitmentStep.RAPS_LIST).count()


def _hashes(entries_sha256: str, seed_sha256: str) -> str:
    return f"entry list {entries_sha256}, seed {seed_sha256}"


def _check_database(report: Report, draw: Draw, committed: tuple[str, str], *, raps: bool) -> None:
    rows = list(DrawCommitment.objects.filter(draw=draw).order_by("id"))
    if not rows:
        report.add(DATABASE_CHECK, False, "the database recorded no commitment for this draw")
        return
    last = rows[-1]
    at = local_datetime(last.recorded_at)
    if (last.entries_sha256, last.seed_sha256) != committed:
        report.add(
            DATABASE_CHECK,
            False,
            f"when the entries froze ({at}) the database recorded {_hashes(last.entries_sha256, last.seed_sha256)}; "
            f"the record says {_hashes(*committed)}: the record's hashes are not the ones committed",
        )
        return
    if raps:
        uploads = sum(row.step == CommitmentStep.RAPS_LIST for row in rows)
        times = "once" if uploads == 1 else f"{uploads} times"
        report.add(
            DATABASE_CHECK,
            True,
            f"the active-player list was uploaded {times}; the last upload ({at}) committed the record's hashes",
        )
    elif len(rows) != 1:
        report.add(
            DATABASE_CHECK,
            False,
            f"the database recorded {len(rows)} commitments for this draw, but its entries freeze only once: "
            "its hashes were replaced after the freeze",
        )
    else:
        report.add(DATABASE_CHECK, True, f"the database recorded the record's hashes when the entries froze ({at})")


def _check_audit_log(report: Report, draw: Draw, committed: tuple[str, str], *, raps: bool) -> None:
    events = AuditEvent.objects.filter(object_type=Draw._meta.label_lower, object_id=str(draw.pk))
    if raps:
        started = events.filter(action="draw.started").order_by("created_at", "id").first()
        uploads = events.filter(action="draw.raps_list_uploaded")
        if started is not None:
            uploads = uploads.filter(created_at__lt=started.created_at)
        event = uploads.order_by("-created_at", "-id").first()
        what, key = "the last upload of the active-player list before the start", "list_sha256"
    else:
        event = events.filter(action="draw.entries_frozen").order_by("created_at", "id").first()
        what, key = "the freeze of the entries", "entries_sha256"
    if event is None:
        report.add(AUDIT_CHECK, False, f"the audit log has no event for {what}")
        return
    logged = (str(event.data.get(key, "")), str(event.data.get("seed_sha256", "")))
    at = local_datetime(event.created_at)
    if logged != committed:
        report.add(
            AUDIT_CHECK,
            False,
            f"the audit log recorded {_hashes(*logged)} at {what} ({at}); the record says {_hashes(*committed)}",
        )
    else:
        report.add(AUDIT_CHECK, True, f"the audit log recorded the record's hashes at {what} ({at})")
