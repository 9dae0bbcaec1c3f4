"""Building a promotion's record pack (issue 16, item 1): the request, the worker's build with its
progress, and the tick's part. records.pack_files makes the files; records.pack_pdf the PDF.

- A request is a new RecordPack row (queued), audited, and its task queued once committed. While
  one of the promotion's packs is queued or building, another request is refused.
- The task claims the pack with one conditional UPDATE (queued → building, or a building pack
  whose worker stopped reporting PACK_STALE ago): a task delivered twice builds once.
- Both files are written to temporary files beside their final place and renamed into it, and
  only then does the row point at them: a worker killed mid-build leaves no half pack behind a
  row (at most a "*.part" file, swept by the tick), and the row is claimed again when stale.
"""

import datetime as dt
import hashlib
import logging
import os
import tempfile
import zipfile
from pathlib import Path

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from core.audit import Actor, audit_log
from core.audit_seal import latest_seal
from core.errors import DomainError
from draws.models import Draw, DrawStatus
from promotions.models import Promotion
from records import pack_files
from records.models import IN_FLIGHT, PackStatus, RecordPack

logger = logging.getLogger(__name__)

BUILDER = Actor.system("record_pack")
FOLDER = "records/packs"
PACK_STALE = dt.timedelta(minutes=10)  # no progress for this long: the worker is gone
PART_SUFFIX = ".part"
# Draws that may still be drawn: a promotion with one of them is not finished.
OPEN_DRAW_STATUSES = (DrawStatus.SCHEDULED, DrawStatus.CLOSED, DrawStatus.RUNNING)


# --- Finished promotions -----------------------------------------------------------------------


def finished_at(promotion: Promotion) -> dt.datetime:
    """The first moment after the promotion's last day (midnight, Johannesburg)."""
    day_after = promotion.ends_on + dt.timedelta(days=1)
    return timezone.make_aware(dt.datetime.combine(day_after, dt.time.min))


def is_finished(promotion: Promotion, now: dt.datetime | None = None) -> bool:
    """Its last day is over and none of its draws can still be drawn (each drawn or cancelled)."""
    now = now or timezone.now()
    if now < finished_at(promotion):
        return False
    return not Draw.objects.filter(series__promotion=promotion, status__in=OPEN_DRAW_STATUSES).exists()


def stored_pack(promotion: Promotion) -> RecordPack | None:
    """The finished promotion's pack: the latest built after its end."""
    return (
        RecordPack.objects.filter(promotion=promotion, status=PackStatus.DONE, requested_at__gte=finished_at(promotion))
        .order_by("-finished_at", "-pk")
        .first()
    )


# --- The request ----------------------------------------------------------------------------


def pack_request(*, actor: Actor, promotion: Promotion, now: dt.datetime | None = None) -> RecordPack:
    """A new pack of the promotion, queued for the worker. Managers and auditors may ask: a pack
    changes no business data (the request is audited all the same)."""
    with transaction.atomic():
        Promotion.objects.select_for_update().filter(pk=promotion.pk).exists()  # one request at a time
        if RecordPack.objects.filter(promotion=promotion, status__in=IN_FLIGHT).exists():
            raise DomainError(
                f"A record pack of {promotion.name} is already being built: wait for it to finish.",
                code="record_pack_in_progress",
            )
        pack = RecordPack.objects.create(
            promotion=promotion,
            requested_at=now or timezone.now(),
            requested_by=actor.label,
            requested_by_user=actor.user,
            queued_at=now or timezone.now(),
            step="Waiting for a worker",
        )
        audit_log(actor=actor, action="record_pack.requested", obj=pack, data={"promotion": promotion.code})
        _queue(pack.pk)
    return pack


def _queue(pack_id: int) -> None:
    from records.tasks import record_pack_build  # the tasks module imports this one

    record_pack_build.delay_on_commit(pack_id)


# --- The build ----------------------------------------------------------------------------------


def _claim(pack_id: int, now: dt.datetime) -> bool:
    stale = Q(status=PackStatus.BUILDING, heartbeat_at__lt=now - PACK_STALE)
    return bool(
        RecordPack.objects.filter(Q(status=PackStatus.QUEUED) | stale, pk=pack_id).update(
            status=PackStatus.BUILDING, started_at=now, heartbeat_at=now, done_count=0, step="Starting"
        )
    )


class _Progress:
    """Reports each step on the row (the page polls it), only while this build holds the claim."""

    def __init__(self, pack_id: int, claim: dt.datetime, total: int) -> None:
        self.pack_id, self.claim, self.total, self.done = pack_id, claim, total, 0
        self._update(step="Starting", total_count=total)

    def _update(self, **fields) -> None:
        mine = RecordPack.objects.filter(pk=self.pack_id, status=PackStatus.BUILDING, started_at=self.claim)
        if not mine.update(heartbeat_at=timezone.now(), **fields):
            raise _ClaimLost()

    def step(self, words: str) -> None:
        self._update(step=words, done_count=self.done)

    def advance(self) -> None:
        self.done += 1
        self._update(done_count=self.done)


class _ClaimLost(Exception):
    """Another build took this pack over (this one was taken for dead): stop, store nothing."""


def _media_path(name: str) -> Path:
    return Path(default_storage.path(name))


def _part_file(final: Path):
    final.parent.mkdir(parents=True, exist_ok=True)
    return tempfile.NamedTemporaryFile(dir=final.parent, prefix=final.name + ".", suffix=PART_SUFFIX, delete=False)


def pack_build(*, pack_id: int, now: dt.datetime | None = None) -> bool:
    """Build the pack if it is waiting (or its build was abandoned): True when this call stored
    it. A failure marks it failed with the error in words; nothing half-made is kept."""
    claim = now or timezone.now()
    if not _claim(pack_id, claim):
        return False
    pack = RecordPack.objects.select_related("promotion").get(pk=pack_id)
    promotion = pack.promotion
    parts: list[Path] = []
    try:
        result = _build_files(pack, claim, parts)
    except _ClaimLost:
        _remove(parts)
        return False
    except Exception as error:
        logger.exception("Record pack %s of %s could not be built", pack_id, promotion.code)
        _remove(parts)
        _finish_failed(pack_id, claim, error)
        return False
    zip_name, pdf_name, manifest_sha256, files, zip_bytes, seal = result
    with transaction.atomic():
        stored = RecordPack.objects.filter(pk=pack_id, status=PackStatus.BUILDING, started_at=claim).update(
            status=PackStatus.DONE,
            zip_file=zip_name,
            pdf_file=pdf_name,
            zip_bytes=zip_bytes,
            manifest_sha256=manifest_sha256,
            file_count=files,
            seal_day=seal.day if seal else None,
            seal_digest=seal.digest if seal else "",
            finished_at=timezone.now(),
            step="Ready",
            error="",
        )
        if not stored:  # taken over meanwhile: that build stores its own files
            _remove([_media_path(zip_name), _media_path(pdf_name)])
            return False
        pack.refresh_from_db()
        audit_log(
            actor=BUILDER,
            action="record_pack.built",
            obj=pack,
            data={"promotion": promotion.code, "manifest_sha256": manifest_sha256, "files": files},
        )
    return True


def _build_files(pack: RecordPack, claim: dt.datetime, parts: list[Path]):
    from records.pack_pdf import pack_pdf

    promotion = pack.promotion
    draws = pack_files.promotion_draws(promotion)
    recorded = [d for d in draws if pack_files.recorded(d)]
    # rules, each recorded draw, the draws list, winners, registers, manifest, PDF
    progress = _Progress(pack.pk, claim, total=len(recorded) + 6)
    stem = f"{FOLDER}/{promotion.code}-pack-{pack.pk}"
    final_zip, final_pdf = _media_path(stem + ".zip"), _media_path(stem + ".pdf")
    seal = latest_seal()
    with _part_file(final_zip) as raw:
        parts.append(Path(raw.name))
        with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            pack_zip = pack_files.PackZip(archive)
            progress.step("The rules as published")
            rules = pack_files.write_rules(pack_zip, promotion)
            progress.advance()
            for number, draw in enumerate(recorded, 1):
                progress.step(f"Draw {number} of {len(recorded)}: {draw.name}")
                pack_files.write_draw(pack_zip, draw)
                progress.advance()
            progress.step("The list of draws")
            pack_files.write_draws_list(pack_zip, draws)
            progress.advance()
            progress.step("Winners and what they received")
            pack_files.write_winners(pack_zip, draws)
            progress.advance()
            progress.step("Proxies and declines")
            pack_files.write_registers(pack_zip, promotion)
            progress.advance()
            progress.step("The manifest")
            manifest = pack_files.manifest_json(promotion, pack_zip.files, built_at=claim, seal=seal)
            listed = list(pack_zip.files)
            manifest_file = pack_zip.write("manifest.json", [manifest])
            archive.writestr("manifest.txt", pack_files.manifest_txt([*listed, manifest_file]))
            progress.advance()
        raw.flush()
        os.fsync(raw.fileno())
    manifest_sha256 = hashlib.sha256(manifest).hexdigest()
    progress.step("The PDF for reading")
    content = pack_pdf(promotion, draws=draws, rules=rules, files=listed, manifest_sha256=manifest_sha256, seal=seal)
    with _part_file(final_pdf) as raw:
        parts.append(Path(raw.name))
        raw.write(content)
        raw.flush()
        os.fsync(raw.fileno())
    progress.advance()
    os.replace(parts[0], final_zip)
    os.replace(parts[1], final_pdf)
    parts[:] = [final_zip, final_pdf]  # from here on a failure removes the final names
    return (
        stem + ".zip",
        stem + ".pdf",
        manifest_sha256,
        len(listed) + 2,
        final_zip.stat().st_size,
        seal,
    )


def _remove(paths: list[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _error_words(error: Exception) -> str:
    return (
        f"The record pack could not be built ({type(error).__name__}: {error}). Press “Build record pack” to "
        "try again; if it fails again, call IT support with the promotion's name."
    )


def _finish_failed(pack_id: int, claim: dt.datetime, error: Exception) -> None:
    words = _error_words(error)
    with transaction.atomic():
        pack = (
            RecordPack.objects.select_for_update()
            .select_related("promotion")
            .filter(pk=pack_id, status=PackStatus.BUILDING, started_at=claim)
            .first()
        )
        if pack is None:
            return
        pack.status, pack.error, pack.finished_at, pack.step = PackStatus.FAILED, words, timezone.now(), "Failed"
        pack.save(update_fields=["status", "error", "finished_at", "step"])
        audit_log(
            actor=BUILDER,
            action="record_pack.failed",
            obj=pack,
            data={"promotion": pack.promotion.code, "error": words},
        )


# --- The tick -------------------------------------------------------------------------------------


def packs_due(now: dt.datetime | None = None) -> dict:
    """The tick's step: send the task again for a pack whose worker went silent or whose task was
    lost (once per PACK_STALE), ask once for the pack of each promotion that has finished and has
    none requested since its end (a failed automatic build then waits for a person), and sweep
    the temporary files of builds killed long ago."""
    now = now or timezone.now()
    quiet = now - PACK_STALE
    stale = RecordPack.objects.filter(status__in=IN_FLIGHT, queued_at__lt=quiet).filter(
        Q(heartbeat_at__lt=quiet) | Q(heartbeat_at__isnull=True)
    )
    requeued = 0
    for pack_id in stale.values_list("pk", flat=True)[:20]:
        if RecordPack.objects.filter(pk=pack_id, queued_at__lt=quiet).update(queued_at=now):
            _queue(pack_id)
            requeued += 1
    requested = 0
    today = timezone.localdate(now)
    # requested_at__date is the Johannesburg day: a pack asked for after the promotion's last day.
    candidates = Promotion.objects.filter(ends_on__lt=today, status__in=("published", "closed")).exclude(
        record_packs__requested_at__date__gt=F("ends_on")
    )
    for promotion in candidates.order_by("ends_on")[:20]:
        if not is_finished(promotion, now):
            continue
        try:
            pack_request(actor=Actor.system("tick"), promotion=promotion, now=now)
            requested += 1
        except DomainError:
            continue
    return {"requeued": requeued, "requested": requested, "swept": _sweep_parts(now)}


def _sweep_parts(now: dt.datetime) -> int:
    folder = _media_path(FOLDER)
    if not folder.is_dir():
        return 0
    old = (now - dt.timedelta(days=1)).timestamp()
    swept = 0
    for part in folder.glob("*" + PART_SUFFIX):
        if part.stat().st_mtime < old:
            part.unlink(missing_ok=True)
            swept += 1
    return swept
