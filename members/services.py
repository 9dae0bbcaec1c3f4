"""State changes of members and exclusions. Each one validates, writes in a transaction
and leaves an audit event."""

import datetime as dt

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from members.cards import card_numbers_issue
from members.eligibility import person_refusals
from members.identity import identify_document, validate_identity
from members.imports import (
    ErrorSpool,
    FileRejected,
    ImportCounts,
    import_members_rows,
    import_points_rows,
    read_rows,
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

    _refuse_existing_member(identity.number)
    refusals = person_refusals(id_number=identity.number, date_of_birth=identity.date_of_birth, at=timezone.now())
    if refusals:
        raise DomainError("Sign-up refused. " + " ".join(refusals), code="not_eligible")

    with transaction.atomic():
        (card_number,) = card_numbers_issue(1)
        member = Member(
            card_number=card_number,
            first_name=first_name.strip(),
            last_name=last_name.strip(),
            id_type=identity.id_type,
            id_number=identity.number,
            date_of_birth=identity.date_of_birth,
            phone=phone.strip(),
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


def exclusion_end(*, actor: Actor, exclusion_id: int, ends_at: dt.datetime | None = None) -> Exclusion:
    """End an exclusion (for example a self-exclusion whose term is over)."""
    ends_at = ends_at or timezone.now()
    with transaction.atomic():
        exclusion = Exclusion.objects.select_for_update().get(pk=exclusion_id)
        if exclusion.ends_at is not None and exclusion.ends_at <= timezone.now():
            raise DomainError("This exclusion has already ended.", code="already_ended")
        if ends_at <= exclusion.starts_at:
            raise DomainError("An exclusion cannot end before it starts.", code="ends_before_start")
        exclusion.ends_at = ends_at
        exclusion.ended_by = actor.user
        exclusion.save(update_fields=["ends_at", "ended_by"])
        audit_log(actor=actor, action="exclusion.ended", obj=exclusion, data={"ends_at": ends_at.isoformat()})
    return exclusion


# --- Imports -------------------------------------------------------------------------------


class _Rollback(Exception):
    """Raised inside the import's transaction to undo it when any row was bad."""


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


def import_job_progress(job: ImportJob) -> dict:
    """Rows read so far and the share of the file done, as the worker last reported."""
    return cache.get(_progress_key(job.pk)) or {"rows": job.rows_total, "percent": 100 if job.is_finished else 0}


def import_job_run(*, job_id: int, actor: Actor) -> ImportJob:
    """Run a queued import, all or nothing. Idempotent: a job that another worker has
    claimed, or that has finished, is left alone."""
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportStatus.QUEUED).update(
        status=ImportStatus.RUNNING, started_at=timezone.now()
    )
    job = ImportJob.objects.get(pk=job_id)
    if claimed != 1:
        return job

    counts = ImportCounts()
    errors = ErrorSpool()
    try:
        message = _import_file(job, errors, counts)
    except Exception as error:
        # Never leave a job "running" forever: record the failure, then let the worker log it.
        _import_job_finish(job, actor, counts, errors, f"The import stopped on an unexpected error ({error}).")
        raise
    else:
        _import_job_finish(job, actor, counts, errors, message)
    finally:
        errors.close()
        cache.set(_progress_key(job.pk), {"rows": counts.rows, "percent": 100}, timeout=3600)
    return job


def _import_file(job: ImportJob, errors: ErrorSpool, counts: ImportCounts) -> str:
    """Import the rows inside one transaction; the refusal message, or "" when imported."""
    with open(job.file.path, "rb") as binary:

        def progress(counts: ImportCounts) -> None:
            done = min(100, round(100 * binary.tell() / job.size_bytes)) if job.size_bytes else 100
            cache.set(_progress_key(job.pk), {"rows": counts.rows, "percent": done}, timeout=24 * 3600)

        try:
            with transaction.atomic():
                rows = read_rows(binary, job.kind)
                if job.kind == ImportKind.MEMBERS:
                    import_members_rows(rows, errors, counts, progress)
                else:
                    import_points_rows(rows, errors, counts, progress, job.pk)
                if errors.count:
                    raise _Rollback
                if counts.rows == 0:
                    raise FileRejected("The file has a header but no rows.")
        except FileRejected as rejected:
            return str(rejected)
        except _Rollback:
            return f"{errors.count} bad row(s): nothing was imported. Fix them and upload the whole file again."
    return ""


def _import_job_finish(job: ImportJob, actor: Actor, counts: ImportCounts, errors: ErrorSpool, message: str) -> None:
    with transaction.atomic():
        ImportRowError.objects.bulk_create(
            (ImportRowError(job=job, line=line, message=text) for line, text in errors), batch_size=5000
        )
        job.status = ImportStatus.FAILED if message else ImportStatus.SUCCEEDED
        job.rows_total = counts.rows
        job.rows_imported = 0 if message else counts.imported
        job.rows_skipped = 0 if message else counts.skipped
        job.error_count = errors.count
        job.message = message
        job.finished_at = timezone.now()
        job.save()
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
            },
        )


def member_set_playing(*, actor: Actor, member: Member, playing: bool) -> Member:
    """The gaming-system feed's "actively playing now" flag, which app activation requires."""
    with transaction.atomic():
        changed = member.playing_now != playing
        member.playing_now = playing
        member.playing_updated_at = timezone.now()  # a repeated "still playing" keeps it fresh
        member.save(update_fields=["playing_now", "playing_updated_at"])
        if changed:
            audit_log(actor=actor, action="member.activity_changed", obj=member, data={"playing": playing})
    return member


STALE_IMPORT = dt.timedelta(hours=2)


def import_jobs_fail_stale(*, now: dt.datetime | None = None) -> int:
    """A job still "running" long after it started lost its worker (killed, machine restarted):
    mark it failed so the page stops waiting and the manager uploads again. Nothing of it was
    written (the import is one transaction)."""
    now = now or timezone.now()
    failed = 0
    for job_id in ImportJob.objects.filter(status=ImportStatus.RUNNING, started_at__lt=now - STALE_IMPORT).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            changed = ImportJob.objects.filter(pk=job_id, status=ImportStatus.RUNNING).update(
                status=ImportStatus.FAILED,
                finished_at=now,
                message="The worker stopped during this import; nothing was imported. Upload the file again.",
            )
            if changed:
                audit_log(actor=Actor.system("tick"), action="import.abandoned", obj=ImportJob(pk=job_id))
                failed += 1
    return failed
