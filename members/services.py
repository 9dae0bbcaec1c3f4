"""State changes of members and exclusions. Each one validates, writes in a transaction
and leaves an audit event."""

import datetime as dt
import functools
import logging
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import mask_id_number
from core.queueing import enqueue
from members.cards import card_numbers_issue
from members.eligibility import person_refusals
from members.identity import IdType, identify_document, validate_identity
from members.imports import (
    CsvSource,
    ErrorSpool,
    FastCsvSource,
    FileRejected,
    ImportCounts,
    Lookups,
    PointsReader,
    chunks,
    heap_frozen,
    job_today,
    members_apply,
    members_apply_checked,
    members_check,
    members_chunk_check,
    members_conflicts,
    members_copy,
    members_read_plain,
    members_stage,
    points_apply,
    points_bad_rows,
    points_chunk_check,
    points_file_is_plain,
    points_months,
    points_stage,
    staging_clear,
    with_row_texts,
)
from members.models import (
    Exclusion,
    ExclusionKind,
    ImportJob,
    ImportKind,
    ImportRowError,
    ImportStatus,
    Member,
    Property,
    Tier,
)
from members.phones import normalise_phone


def member_sign_up(
    *,
    actor: Actor,
    first_name: str,
    last_name: str,
    id_type: str,
    id_number: str,
    date_of_birth: dt.date | None,
    home_property: Property,
    phone: str = "",
    email: str = "",
    tier: Tier | None = None,
    app_registered_on: dt.date | None = None,
) -> Member:
    """Sign a non-carded guest up and issue a new card number.

    Refused for anyone under 18, excluded (self-exclusion, Refusal of Entry order, connected
    person) or already holding a card: the rules that open every seed promotion. The ID
    document's type is corrected to SA ID when the number is one (issue 6, 2.1).
    """
    try:
        identity = validate_identity(id_type, id_number, date_of_birth)
    except ValidationError as error:
        raise DomainError(error.messages[0], code=error.code or "invalid_identity") from None

    phone = _phone(phone)
    _refuse_existing_member(identity.number)
    refusals = person_refusals(id_number=identity.number, date_of_birth=identity.date_of_birth, at=timezone.now())
    if refusals:
        raise DomainError("Sign-up refused. " + " ".join(refusals), code="person_refused")

    with transaction.atomic():
        (card_number,) = card_numbers_issue(1)
        member = Member(
            card_number=card_number,
            first_name=first_name.strip(),
            last_name=last_name.strip(),
            id_type=identity.id_type,
            id_number=identity.number,
            date_of_birth=identity.date_of_birth,
            phone=phone,
            email=email.strip(),
            tier=tier or Tier.objects.order_by("rank").first(),
            home_property=home_property,
            app_registered_on=app_registered_on,
        )
        try:
            # Uniqueness is left to the database: the check above is only for the usual case.
            member.full_clean(validate_unique=False, validate_constraints=False)
        except ValidationError as error:
            raise DomainError(" ".join(error.messages), code="invalid_member") from None
        _member_insert(member)
        audit_log(
            actor=actor,
            action="member.signed_up",
            obj=member,
            data={"card_number": card_number, "tier": member.tier.code, "property": home_property.code},
        )
    return member


def _phone(text: str) -> str:
    try:
        return normalise_phone(text)
    except ValidationError as error:
        raise DomainError(error.messages[0], code="invalid_phone") from None


class _Unchanged:
    """The default of member_update's fields: "leave as it is" (None and "" are values)."""

    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Any = _Unchanged()

# What the desk may correct itself; every other field needs members.change_member.
MEMBER_CONTACT_FIELDS = ("phone", "email")
_IDENTITY_FIELDS = ("id_type", "id_number", "date_of_birth")


def member_update(
    *,
    actor: Actor,
    member_id: int,
    first_name: str = UNCHANGED,
    last_name: str = UNCHANGED,
    id_type: str = UNCHANGED,
    id_number: str = UNCHANGED,
    date_of_birth: dt.date | None = UNCHANGED,
    phone: str = UNCHANGED,
    email: str = UNCHANGED,
    tier: Tier = UNCHANGED,
    home_property: Property = UNCHANGED,
    app_registered_on: dt.date | None = UNCHANGED,
    playtsogo_active_since: dt.date | None = UNCHANGED,
) -> Member:
    """Correct a member's record after sign-up; only the fields passed change.

    A manager (members.change_member) corrects any of them, the desk
    (members.change_member_contact) the phone and e-mail only. A new ID document goes through
    the sign-up's checks: a valid number, the date of birth it carries, not another member's,
    not under 18, not excluded. The audit event keeps each changed field before and after (ID
    numbers masked but for the last four digits, as on the pages). Nothing changed: nothing
    written.
    """
    given = {name: value for name, value in locals().items() if name in _EDITABLE and value is not UNCHANGED}
    refusal = member_update_refusal(actor=actor, fields=given)
    if refusal:
        raise DomainError(refusal, code="not_allowed")
    cleaned = _member_changes_clean(given)
    with transaction.atomic():
        member = Member.objects.select_for_update().select_related("tier", "home_property").get(pk=member_id)
        if any(name in cleaned for name in _IDENTITY_FIELDS):
            cleaned |= _member_identity_check(member, cleaned)
        changed = [name for name in cleaned if getattr(member, name) != cleaned[name]]
        if not changed:
            return member
        changes = {}
        for name in changed:
            before, after = getattr(member, name), cleaned[name]
            changes[name] = {"before": _audit_value(name, before), "after": _audit_value(name, after)}
            setattr(member, name, cleaned[name])
        try:
            member.full_clean(validate_unique=False, validate_constraints=False)
        except ValidationError as error:
            raise DomainError(" ".join(error.messages), code="invalid_member") from None
        try:
            with transaction.atomic():  # a savepoint: another desk took the number meanwhile
                member.save(update_fields=changed)
        except IntegrityError:
            existing = Member.objects.filter(id_number=member.id_number).exclude(pk=member.pk).first()
            if existing is None:
                raise
            raise _already_member(existing) from None
        audit_log(
            actor=actor,
            action="member.updated",
            obj=member,
            data={"changes": changes},
        )
    return member


_EDITABLE = (
    "first_name",
    "last_name",
    "id_type",
    "id_number",
    "date_of_birth",
    "phone",
    "email",
    "tier",
    "home_property",
    "app_registered_on",
    "playtsogo_active_since",
)


def member_update_refusal(*, actor: Actor, fields: Iterable[str] = ()) -> str:
    """Why `actor` may not correct these fields of a member ("" when they may); the edit page
    asks it with no fields to know whether to offer the edit at all. A job or the system
    (no user) may correct anything."""
    user = actor.user
    if user is None or user.has_perm("members.change_member"):
        return ""
    if not user.has_perm("members.change_member_contact"):
        return "Only a promotions manager or the Rewards desk can correct a member's details."
    beyond = [name for name in fields if name not in MEMBER_CONTACT_FIELDS]
    if beyond:
        return "The desk can correct the phone number and e-mail only; ask a promotions manager for the rest."
    return ""


def _member_changes_clean(given: dict[str, Any]) -> dict[str, Any]:
    """The given fields, trimmed and checked one by one (the ID document is checked as a whole
    against the member's record by _member_identity_check)."""
    cleaned = dict(given)
    for name in ("first_name", "last_name"):
        if name in cleaned:
            cleaned[name] = (cleaned[name] or "").strip()
            if not cleaned[name]:
                raise DomainError(f"The {name.replace('_', ' ')} cannot be empty.", code="invalid_member")
    if "phone" in cleaned:
        cleaned["phone"] = _phone(cleaned["phone"])
    if "email" in cleaned:
        cleaned["email"] = (cleaned["email"] or "").strip()
    if "id_type" in cleaned and cleaned["id_type"] not in IdType.values:
        raise DomainError("Pick the kind of ID document.", code="invalid_identity")
    for name in ("tier", "home_property"):
        if name in cleaned and cleaned[name] is None:
            raise DomainError(f"The {name.replace('_', ' ')} cannot be empty.", code="invalid_member")
    return cleaned


def _member_identity_check(member: Member, cleaned: dict[str, Any]) -> dict[str, Any]:
    """The ID document the member will have, checked as sign-up checks it; its true type,
    normalised number and birth date. Run inside the transaction, the member's row locked."""
    id_type = cleaned.get("id_type", member.id_type)
    id_number = cleaned.get("id_number", member.id_number)
    try:
        # An SA ID number brings its own birth date: the old one is not kept to contradict it.
        carries_birth_date = identify_document(id_type, id_number).date_of_birth is not None
        kept = None if carries_birth_date else member.date_of_birth
        identity = validate_identity(id_type, id_number, cleaned.get("date_of_birth", kept))
    except ValidationError as error:
        raise DomainError(error.messages[0], code=error.code or "invalid_identity") from None
    identity_changed = (identity.number, identity.date_of_birth) != (member.id_number, member.date_of_birth)
    if identity.number != member.id_number:
        existing = Member.objects.filter(id_number=identity.number).exclude(pk=member.pk).first()
        if existing:
            raise _already_member(existing)
    if identity_changed:
        refusals = person_refusals(id_number=identity.number, date_of_birth=identity.date_of_birth, at=timezone.now())
        if refusals:
            raise DomainError("Correction refused. " + " ".join(refusals), code="person_refused")
    return {"id_type": identity.id_type, "id_number": identity.number, "date_of_birth": identity.date_of_birth}


def _audit_value(name: str, value: Any) -> Any:
    """A field's value as the audit log keeps it: codes for a tier or property, ISO dates,
    ID numbers masked."""
    if isinstance(value, Tier | Property):
        return value.code
    if isinstance(value, dt.date):
        return value.isoformat()
    if name == "id_number" and value:
        return mask_id_number(value)
    return value


def _refuse_existing_member(id_number: str) -> None:
    existing = Member.objects.filter(id_number=id_number).first()
    if existing:
        raise _already_member(existing)


def _already_member(existing: Member) -> DomainError:
    return DomainError(
        f"This person is already a member: card {existing.card_number} ({existing.full_name}).",
        code="already_member",
    )


def _member_insert(member: Member) -> None:
    """Insert a new member. A desk that signed the same person up a moment earlier (after our
    check, before our insert) wins, and this one gets the same refusal as the check gives."""
    try:
        with transaction.atomic():  # a savepoint: the caller's transaction stays usable
            member.save()
    except IntegrityError:
        existing = Member.objects.filter(id_number=member.id_number).first()
        if existing is None:  # another constraint: not a duplicate person
            raise
        raise _already_member(existing) from None


def exclusion_record(
    *,
    actor: Actor,
    id_type: str,
    id_number: str,
    full_name: str,
    kind: str,
    reason: str,
    starts_at: dt.datetime,
    ends_at: dt.datetime | None = None,
) -> Exclusion:
    """Bar a person, by ID document, from every promotion from `starts_at`.

    The number is normalised as the member record's is, and an SA ID number is recorded as an
    SA ID whatever type was picked; it bars the number under any type (issue 6, 2.1).
    """
    if actor.user is None:
        raise DomainError("Only a signed-in manager can record an exclusion.", code="no_user")
    try:
        document = identify_document(id_type, id_number)
    except ValidationError as error:
        raise DomainError(error.messages[0], code="invalid_identity") from None
    if kind not in ExclusionKind.values:
        raise DomainError(f"Unknown kind of exclusion {kind!r}.", code="invalid_kind")
    if ends_at is not None and ends_at <= starts_at:
        raise DomainError("The exclusion must end after it starts.", code="ends_before_start")
    with transaction.atomic():
        exclusion = Exclusion.objects.create(
            id_type=document.id_type,
            id_number=document.number,
            full_name=full_name.strip(),
            kind=kind,
            reason=reason.strip(),
            starts_at=starts_at,
            ends_at=ends_at,
            recorded_by=actor.user,
        )
        audit_log(
            actor=actor,
            action="exclusion.recorded",
            obj=exclusion,
            data={
                "kind": kind,
                "id_type": document.id_type,
                "id_number_last4": document.number[-4:],
                "starts_at": starts_at.isoformat(),
                "ends_at": ends_at.isoformat() if ends_at else None,
            },
        )
    return exclusion


def exclusion_end_refusal(
    exclusion: Exclusion, *, now: dt.datetime, ends_at: dt.datetime | None = None
) -> DomainError | None:
    """Why the exclusion cannot be ended at `ends_at` (now by default), or None when it can: the
    list offers "End now" only where this says None."""
    ends_at = ends_at or now
    if exclusion.ends_at is not None and exclusion.ends_at <= now:
        return DomainError("This exclusion has already ended.", code="already_ended")
    if ends_at <= exclusion.starts_at:
        return DomainError("An exclusion cannot end before it starts.", code="ends_before_start")
    return None


def exclusion_end(*, actor: Actor, exclusion_id: int, ends_at: dt.datetime | None = None) -> Exclusion:
    """End an exclusion (for example a self-exclusion whose term is over)."""
    ends_at = ends_at or timezone.now()
    with transaction.atomic():
        exclusion = Exclusion.objects.select_for_update().get(pk=exclusion_id)
        refusal = exclusion_end_refusal(exclusion, now=timezone.now(), ends_at=ends_at)
        if refusal:
            raise refusal
        exclusion.ends_at = ends_at
        exclusion.ended_by = actor.user
        exclusion.save(update_fields=["ends_at", "ended_by"])
        audit_log(actor=actor, action="exclusion.ended", obj=exclusion, data={"ends_at": ends_at.isoformat()})
    return exclusion


# --- Imports -------------------------------------------------------------------------------
#
# A job is claimed by a conditional UPDATE that writes a fresh claim token; every later write
# of the run (each staged chunk, the final step) first re-checks that token, so a worker that
# was presumed dead and wakes up can write nothing more. The running import touches
# heartbeat_at with every chunk; one silent for IMPORT_STALE_SECONDS is put back in the queue
# (and run again from the start, which is safe: nothing reaches the real tables before the
# final step) or, after IMPORT_MAX_ATTEMPTS starts, failed. The final step holds the job's row
# lock from its first statement, and recovery skips locked rows: an apply that takes long (a
# big file, or waiting behind another import) is never taken for a dead worker.

logger = logging.getLogger(__name__)

# Row errors are written this many at a time: a million bad rows never sit in memory at once.
ROW_ERROR_BATCH = 5000

UNEXPECTED_IMPORT_ERROR = (
    "The import stopped on an unexpected error; nothing was imported. Upload the file again; if this "
    "happens again, tell the system administrator (import #{job_id}: the details are in the worker's log)."
)


class _ClaimLost(Exception):
    """This worker no longer holds the job: it was presumed dead and the job given to another."""


def import_job_create(*, actor: Actor, kind: str, file, name: str) -> ImportJob:
    """Store an uploaded CSV and queue it; a worker runs it (see members.tasks)."""
    if kind not in ImportKind.values:
        raise DomainError(f"Unknown import kind {kind!r}.", code="unknown_kind")
    size = getattr(file, "size", None) or 0
    if size > settings.IMPORT_MAX_BYTES:
        raise DomainError(
            f"The file is {size // 2**20} MB; the limit is {settings.IMPORT_MAX_BYTES // 2**20} MB. Split it.",
            code="file_too_large",
        )
    with transaction.atomic():
        job = ImportJob(kind=kind, original_name=name, size_bytes=size, created_by=actor.user)
        job.file.save(name, file, save=False)
        job.save()
        audit_log(actor=actor, action="import.queued", obj=job, data={"kind": kind, "file": name, "bytes": size})
    return job


def _progress_key(job_id: int) -> str:
    return f"import-progress:{job_id}"


# Reading and checking the file fills the bar to here; the final step (saving the rows, or
# listing the bad ones) moves it on to 100, so a big file's last minute is not spent at "100%".
READ_SHARE = 90


def import_job_progress(job: ImportJob) -> dict:
    """Rows read so far, the share of the work done and the step ("reading", "saving",
    "listing" the bad rows), as the worker last reported."""
    return cache.get(_progress_key(job.pk)) or {"rows": job.rows_total, "percent": 100 if job.is_finished else 0}


def _progress_report(job: ImportJob, *, rows: int, percent: int, step: str) -> None:
    cache.set(_progress_key(job.pk), {"rows": rows, "percent": percent, "step": step}, timeout=24 * 3600)


def import_job_run(*, job_id: int, actor: Actor) -> ImportJob:
    """Run a queued import, all or nothing. Idempotent: a job that a live worker holds, or
    that has finished, is left alone; a redelivered task whose job lost its worker (no
    heartbeat for IMPORT_STALE_SECONDS) runs it again from the start."""
    now = timezone.now()
    _import_job_recover(job_id=job_id, now=now)
    claim = uuid.uuid4().hex
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportStatus.QUEUED).update(
        status=ImportStatus.RUNNING, started_at=now, heartbeat_at=now, claim=claim, attempts=F("attempts") + 1
    )
    job = ImportJob.objects.get(pk=job_id)
    if claimed != 1:
        return job

    counts = ImportCounts()
    errors = ErrorSpool()
    lost = False
    try:
        _import_file(job, claim, actor, errors, counts)
    except _ClaimLost:
        lost = True
        logger.warning("Import #%s was given to another worker while this one ran it; stopped.", job_id)
    except Exception:
        # Never leave a job "running", and never show the database's own words to the manager.
        logger.exception("Import #%s stopped on an unexpected error", job_id)
        no_rows = ErrorSpool()  # the rows checked so far are not the whole story: none listed
        try:
            with transaction.atomic():
                _import_job_finish(job, claim, actor, counts, no_rows, UNEXPECTED_IMPORT_ERROR.format(job_id=job_id))
        except _ClaimLost:
            lost = True
        finally:
            no_rows.close()
        raise
    finally:
        errors.close()
        if not lost:  # the progress bar now belongs to the worker that has the job
            cache.set(_progress_key(job.pk), {"rows": counts.rows, "percent": 100}, timeout=3600)
    job.refresh_from_db()
    return job


def _import_job_beat(job: ImportJob, claim: str) -> None:
    """The heartbeat, and the proof that this worker still holds the job (else _ClaimLost)."""
    held = ImportJob.objects.filter(pk=job.pk, status=ImportStatus.RUNNING, claim=claim).update(
        heartbeat_at=timezone.now()
    )
    if held != 1:
        raise _ClaimLost


def _import_job_hold(job: ImportJob, claim: str) -> None:
    """Lock the job's row until the end of the caller's transaction, if this worker still holds
    the job (else _ClaimLost). Recovery skips locked rows, so it leaves this job alone."""
    held = ImportJob.objects.select_for_update().filter(pk=job.pk, status=ImportStatus.RUNNING, claim=claim)
    if not held.exists():
        raise _ClaimLost


def _import_file(job: ImportJob, claim: str, actor: Actor, errors: ErrorSpool, counts: ImportCounts) -> None:
    """Stage the file chunk by chunk, each chunk in a short transaction of its own, then move
    it to the real tables in one transaction if no row was bad."""
    staging_clear(job.pk)  # what an earlier, interrupted attempt left
    lookups = Lookups.load(points_importer=actor if job.kind == ImportKind.POINTS else None)
    now = timezone.now()
    if job.kind == ImportKind.MEMBERS:
        check, stage = members_chunk_check, members_stage
    else:
        check, stage = functools.partial(points_chunk_check, now=now), points_stage
    # Points on PostgreSQL: read near COPY's speed, checked by whole statements at the end
    # (members.imports.PointsReader, points_apply).
    bulk_points = job.kind == ImportKind.POINTS and connection.vendor == "postgresql"
    points_reader = PointsReader(job.pk, lookups, errors, counts, now)
    message = ""
    usual = False  # a plain members file whose rows may all be of the usual shape
    with open(job.file.path, "rb") as binary:
        # A plain members file on PostgreSQL: COPY, then checked by whole statements
        # (members.imports.members_read_plain, members_apply_checked, or members_check and
        # members_conflicts).
        bulk_members = job.kind == ImportKind.MEMBERS and connection.vendor == "postgresql"
        bulk_members = bulk_members and points_file_is_plain(binary)
        # Any other members file is read the fast way (its rows are cheap to check; reading dominated).
        source = (FastCsvSource if job.kind == ImportKind.MEMBERS else CsvSource)(binary, job.kind)
        try:
            with heap_frozen():
                if bulk_points:
                    _points_read(job, claim, binary, points_reader)
                if bulk_members:
                    usual = _members_read(job, claim, binary, errors, counts)
                for chunk in chunks(iter(source)) if not (bulk_points or bulk_members) else ():
                    rows = check(chunk, job_id=job.pk, lookups=lookups, errors=errors, counts=counts)
                    with transaction.atomic():
                        _import_job_beat(job, claim)
                        stage(rows)
                    read = min(1, source.bytes_read / job.size_bytes) if job.size_bytes else 1
                    _progress_report(job, rows=counts.rows, percent=round(READ_SHARE * read), step="reading")
            if counts.rows == 0 and not errors.count:
                raise FileRejected("The file has a header but no rows.")
        except FileRejected as rejected:
            message = str(rejected)
    # The final step may wait behind another import's and then take long on a big file: a
    # committed heartbeat, then the row lock for the whole step, and recovery stays away.
    with transaction.atomic():
        _import_job_beat(job, claim)
        if bulk_points and not message and not errors.count:
            points_months(points_reader.months())  # the ledger's partitions for the file's months, committed first
    # A plain file of ASCII rows without odd spaces: most likely one statement checks and inserts it.
    one_statement = usual and not message and not errors.count
    if one_statement and _members_apply_checked(job, claim, actor, lookups, counts, errors):
        return
    if bulk_members and not message:
        _members_check(job, claim, lookups, errors, counts)
    with transaction.atomic():
        _import_job_hold(job, claim)
        if not message and not errors.count:
            _progress_report(job, rows=counts.rows, percent=READ_SHARE + 5, step="saving")
            message = _import_apply(job, counts, errors)
        elif not message and bulk_points:
            message = _points_apply_bulk(job, counts, errors)  # lists the rest of the bad rows
        elif not message and bulk_members:
            _conflicts_record(job, errors)  # the taken cards and numbers, not yet looked for
            message = _bad_rows_message(errors)
        elif not message:
            message = _bad_rows_message(errors)
        _import_job_finish(job, claim, actor, counts, errors, message)


def _bad_rows_message(errors: ErrorSpool) -> str:
    rows = "1 bad row" if errors.count == 1 else f"{errors.count:,} bad rows"
    return f"{rows}: nothing was imported. Fix {'it' if errors.count == 1 else 'them'} and upload the whole file again."


def _import_lock(job: ImportJob) -> None:
    """One import of a kind applies at a time: the second then sees the first's rows (on SQLite
    the IMMEDIATE transaction already holds the only write lock). Until the transaction ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"members.import.{job.kind}"])


class _NotUsual(Exception):
    """A row of the file that members_apply_checked leaves to members_check: nothing inserted."""


def _members_apply_checked(
    job: ImportJob, claim: str, actor: Actor, lookups: Lookups, counts: ImportCounts, errors: ErrorSpool
) -> bool:
    """A plain members file whose every row is of the usual shape, in one transaction: checked
    and inserted by one statement (members.imports.members_apply_checked), then the job finished.
    False, and nothing written, if some row is not, or a card or document number is taken: then
    members_check looks at every row (a file with bad rows pays for the statement twice)."""
    with transaction.atomic():
        _import_job_hold(job, claim)
        _progress_report(job, rows=counts.rows, percent=READ_SHARE + 5, step="saving")
        _import_lock(job)
        try:
            with transaction.atomic():
                inserted = members_apply_checked(job.pk, lookups, job_today(job.pk), timezone.now())
                if inserted != counts.rows:
                    raise _NotUsual
        except (_NotUsual, IntegrityError):
            # A fresh heartbeat as the lock goes: the statement may have taken minutes on a big file.
            _import_job_beat(job, claim)
            return False
        counts.imported = inserted
        _import_job_finish(job, claim, actor, counts, errors, "")
    return True


def _import_apply(job: ImportJob, counts: ImportCounts, errors: ErrorSpool) -> str:
    """Move the staged rows to the real tables (inside the caller's transaction); the refusal
    message, or "" when imported."""
    _import_lock(job)
    if job.kind == ImportKind.POINTS and connection.vendor == "postgresql":
        return _points_apply_bulk(job, counts, errors)
    if job.kind == ImportKind.POINTS:
        _, _, inserted = points_apply(job.pk)
        counts.skipped += counts.imported - inserted  # imported meanwhile by another file
        counts.imported = inserted
        return ""
    # The cards and numbers were checked as the file was read. One that a member got since (a
    # sign-up, another import) fails the insert on the unique index, and only then are the rows
    # named: a clean file is not looked up a second time, row by row, under the lock.
    try:
        with transaction.atomic():
            counts.imported = members_apply(job.pk, timezone.now())
            if counts.imported != counts.rows:  # a row neither inserted nor refused: insert none
                raise RuntimeError(f"Import #{job.pk}: {counts.imported} of {counts.rows} rows inserted")
            return ""
    except IntegrityError:
        _conflicts_record(job, errors)
        if not errors.count:
            raise
    return _bad_rows_message(errors)


def _points_read(job: ImportJob, claim: str, binary, reader: PointsReader) -> None:
    """Stage a points file through COPY, a batch a short transaction (heartbeat and progress)."""

    def stage(data: bytes | Iterator[bytes]) -> None:
        with transaction.atomic():
            _import_job_beat(job, claim)
            points_stage(data)
        read = min(1, binary.tell() / job.size_bytes) if job.size_bytes else 1
        _progress_report(job, rows=reader.counts.rows, percent=round(READ_SHARE * read), step="reading")

    if points_file_is_plain(binary):
        reader.read_plain(binary, stage)
    else:
        reader.read_records(binary, stage)


def _members_read(job: ImportJob, claim: str, binary, errors: ErrorSpool, counts: ImportCounts) -> bool:
    """Stage a plain members file through COPY, a chunk a short transaction (heartbeat and
    progress); whether its rows may all be of the usual shape (members_read_plain)."""

    def stage(data: Iterator[bytes]) -> None:
        with transaction.atomic():
            _import_job_beat(job, claim)
            members_copy(data)
        read = min(1, counts.bytes_read / job.size_bytes) if job.size_bytes else 1
        _progress_report(job, rows=counts.rows, percent=round(READ_SHARE * read), step="reading")

    return members_read_plain(binary, job.pk, errors, counts, stage)


def _members_check(job: ImportJob, claim: str, lookups: Lookups, errors: ErrorSpool, counts: ImportCounts) -> None:
    """Check the rows a plain members file staged by COPY into the staged members: one
    statement, and Python for the rows it leaves, a batch a transaction."""

    def stage_rows(rows: list[tuple]) -> None:
        with transaction.atomic():
            _import_job_beat(job, claim)
            members_stage(rows)

    members_check(job.pk, lookups, errors, counts, stage_rows)


class _PointsRejected(Exception):
    """Bad rows found by the final step: what it inserted is rolled back."""


def _points_apply_bulk(job: ImportJob, counts: ImportCounts, errors: ErrorSpool) -> str:
    """Check the staged points against the members and the ledger and, if no row of the file is
    bad, insert them, in one statement (inside the caller's transaction); the refusal message,
    or "" when imported. The bad rows are looked for only when the counts say there are some."""
    clean = not errors.count
    try:
        with transaction.atomic():
            staged, unknown, inserted = points_apply(job.pk, insert=clean)
            if not clean or unknown or inserted < staged:  # bad rows, or skipped ones, or both
                with open(job.file.path, "rb") as binary:
                    for line, message, text in with_row_texts(binary, job.kind, points_bad_rows(job.pk)):
                        errors.add(line, message, text)
                if errors.count:
                    raise _PointsRejected
            counts.imported, counts.skipped = inserted, staged - inserted
            return ""
    except _PointsRejected:
        return _bad_rows_message(errors)


def _conflicts_record(job: ImportJob, errors: ErrorSpool) -> None:
    """Staged rows whose card or number another member took meanwhile, as row errors with their
    text from the file (read again alongside: the conflicts come in line order)."""
    with open(job.file.path, "rb") as binary:
        for line, message, text in with_row_texts(binary, job.kind, members_conflicts(job.pk)):
            errors.add(line, message, text)


def _import_job_finish(
    job: ImportJob, claim: str, actor: Actor, counts: ImportCounts, errors: ErrorSpool, message: str
) -> None:
    """Record the outcome (inside the caller's transaction) if this worker still holds the job."""
    _import_job_hold(job, claim)
    staging_clear(job.pk)
    ImportRowError.objects.filter(job=job).delete()
    # bulk_create makes a list of what it is given: hand it one batch at a time.
    row_errors = (ImportRowError(job=job, line=line, message=message, text=text) for line, message, text in errors)
    for listed, batch in enumerate(_batches(row_errors, ROW_ERROR_BATCH), start=1):
        ImportRowError.objects.bulk_create(batch)
        if errors.count > ROW_ERROR_BATCH:  # only a long list takes long enough to show
            done = READ_SHARE + round((100 - READ_SHARE) * min(1, listed * ROW_ERROR_BATCH / errors.count))
            _progress_report(job, rows=counts.rows, percent=done, step="listing")
    job.status = ImportStatus.FAILED if message else ImportStatus.SUCCEEDED
    job.rows_total = counts.rows
    job.rows_imported = 0 if message else counts.imported
    job.rows_skipped = 0 if message else counts.skipped
    job.error_count = errors.count
    job.message = message
    job.finished_at = timezone.now()
    job.claim = ""
    job.save(
        update_fields=[
            "status",
            "rows_total",
            "rows_imported",
            "rows_skipped",
            "error_count",
            "message",
            "finished_at",
            "claim",
        ]
    )
    audit_log(
        actor=actor,
        action="import.rejected" if message else "import.completed",
        obj=job,
        data={
            "kind": job.kind,
            "file": job.original_name,
            "rows": job.rows_total,
            "imported": job.rows_imported,
            "skipped": job.rows_skipped,
            "errors": job.error_count,
            "attempt": job.attempts,
        },
    )


def _batches(items: Iterable, size: int) -> Iterator[list]:
    """`items` in lists of `size` (itertools.batched is Python 3.12)."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def member_set_playing(*, actor: Actor, member: Member, playing: bool, prop: Property) -> Member:
    """The gaming-system feed's "actively playing now" flag, which app activation requires, and
    the property whose feed reported it: play at one casino does not open another's draws."""
    if not playing and member.playing_property_id not in (None, prop.pk):
        # "Stopped" from a casino the member has already left says nothing about where they
        # play now: it must not close the app at the casino they moved on to.
        return member
    with transaction.atomic():
        changed = member.playing_now != playing or member.playing_property_id != prop.pk
        member.playing_now = playing
        member.playing_property = prop
        member.playing_updated_at = timezone.now()  # a repeated "still playing" keeps it fresh
        member.save(update_fields=["playing_now", "playing_updated_at", "playing_property"])
        if changed:
            audit_log(
                actor=actor,
                action="member.activity_changed",
                obj=member,
                data={"playing": playing, "property": prop.code},
            )
    return member


def _stalled(now: dt.datetime) -> Q:
    """Running, but silent for IMPORT_STALE_SECONDS: its worker was killed or the machine stopped."""
    silent_since = now - dt.timedelta(seconds=settings.IMPORT_STALE_SECONDS)
    return Q(status=ImportStatus.RUNNING) & (
        Q(heartbeat_at__lt=silent_since) | Q(heartbeat_at__isnull=True, started_at__lt=silent_since)
    )


def _import_job_recover(*, job_id: int, now: dt.datetime) -> str:
    """Put a stalled job back in the queue to be run again from the start, or fail it once it
    has been started IMPORT_MAX_ATTEMPTS times (a file that kills its worker every time).
    Returns "requeued", "failed" or "" when the job is not stalled."""
    with transaction.atomic():
        # skip_locked: a locked row is a worker in its final step (or staging a chunk), not a
        # dead one; its staged rows are cleared only by whoever holds the row's lock.
        job = ImportJob.objects.select_for_update(skip_locked=True).filter(_stalled(now), pk=job_id).first()
        if job is None:
            return ""
        staging_clear(job.pk)
        silent = job.heartbeat_at or job.started_at
        data = {"attempts": job.attempts, "silent_since": silent.isoformat()}
        job.claim = ""
        if job.attempts >= settings.IMPORT_MAX_ATTEMPTS:
            job.status = ImportStatus.FAILED
            job.finished_at = now
            job.message = (
                f"The worker stopped during this import {job.attempts} times; nothing was imported. Upload the "
                "file again; if it stops again, split the file or tell the system administrator."
            )
            outcome, action = "failed", "import.abandoned"
        else:
            job.status = ImportStatus.QUEUED
            job.heartbeat_at = now  # of a queued job: when it was last sent (import_jobs_requeue_lost)
            outcome, action = "requeued", "import.restarted"
        job.save(update_fields=["status", "claim", "finished_at", "message", "heartbeat_at"])
        audit_log(actor=Actor.system("import"), action=action, obj=job, data=data)
    return outcome


def import_jobs_fail_stale(*, now: dt.datetime | None = None) -> int:
    """For the tick: an import whose worker stopped (killed, machine restarted) is run again
    from the start by a new task, or failed after IMPORT_MAX_ATTEMPTS starts, within
    IMPORT_STALE_SECONDS of its last heartbeat. How many jobs were recovered."""
    from members.tasks import import_job_run_task  # the tasks module imports this one

    now = now or timezone.now()
    recovered = 0
    for job_id in ImportJob.objects.filter(_stalled(now)).values_list("pk", flat=True):
        outcome = _import_job_recover(job_id=job_id, now=now)
        if outcome == "requeued":
            enqueue(import_job_run_task, job_id)
        recovered += bool(outcome)
    return recovered


def import_jobs_requeue_lost(*, now: dt.datetime | None = None) -> int:
    """For the tick: a job still queued IMPORT_STALE_SECONDS after it was sent (uploaded, or put
    back by import_jobs_fail_stale) may have lost its message (the broker was down or restarted):
    send it again. A doubled message is harmless (import_job_run claims a queued job once); a job
    waiting behind a long import is sent again at most every IMPORT_STALE_SECONDS. How many."""
    from members.tasks import import_job_run_task  # the tasks module imports this one

    now = now or timezone.now()
    sent_before = now - dt.timedelta(seconds=settings.IMPORT_STALE_SECONDS)
    lost = Q(status=ImportStatus.QUEUED) & (
        Q(heartbeat_at__lt=sent_before) | Q(heartbeat_at__isnull=True, created_at__lt=sent_before)
    )
    job_ids = []
    with transaction.atomic():
        for job_id in ImportJob.objects.select_for_update(skip_locked=True).filter(lost).values_list("pk", flat=True):
            # Conditional: of two ticks at once, one sends it.
            if ImportJob.objects.filter(lost, pk=job_id).update(heartbeat_at=now):
                job_ids.append(job_id)
                enqueue(import_job_run_task, job_id)
    return len(job_ids)


def import_files_purge(*, now: dt.datetime | None = None) -> int:
    """For the tick: delete the stored file of an upload rejected more than
    IMPORT_KEEP_REJECTED_DAYS ago; the job and its error report stay. How many were deleted."""
    now = now or timezone.now()
    kept_since = now - dt.timedelta(days=settings.IMPORT_KEEP_REJECTED_DAYS)
    due = ImportJob.objects.filter(status=ImportStatus.FAILED, finished_at__lt=kept_since).exclude(file="")
    purged = 0
    for job_id in due.values_list("pk", flat=True)[:500]:  # the next tick takes the rest
        with transaction.atomic():
            job = due.select_for_update(skip_locked=True).filter(pk=job_id).first()
            if job is None:
                continue
            stored, storage = job.file.name, job.file.storage
            job.file = ""
            job.file_purged_at = now
            job.save(update_fields=["file", "file_purged_at"])
            audit_log(
                actor=Actor.system("tick"),
                action="import.file_purged",
                obj=job,
                data={"file": job.original_name, "stored_as": stored, "kept_days": settings.IMPORT_KEEP_REJECTED_DAYS},
            )
            # Deleted once the row says so: a failed commit leaves the file, never a dangling row.
            transaction.on_commit(functools.partial(_stored_file_delete, storage, stored))
        purged += 1
    return purged


def _stored_file_delete(storage, name: str) -> None:
    try:
        storage.delete(name)
    except OSError:
        logger.exception("Could not delete the stored import file %s", name)
