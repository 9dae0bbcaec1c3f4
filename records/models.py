"""A promotion's record pack for the regulator (issue 16, item 1): the rules as published, every
draw's certificate and DRAWS.md §6 record, the winners and what they received, the registers, and
a manifest of SHA-256 digests; a ZIP of all that and one PDF for reading.

    queued ─(a worker claims it)→ building ─→ done (both files stored, the manifest's digest kept)
                                           └→ failed (the error in words; "Build" makes a new pack)

A pack is never rebuilt in place: each build request is a new row, so a pack once done keeps the
files and digest it was handed out with."""

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q


class PackStatus(models.TextChoices):
    QUEUED = "queued", "Waiting for a worker"
    BUILDING = "building", "Being built"
    DONE = "done", "Ready"
    FAILED = "failed", "Failed"


IN_FLIGHT = (PackStatus.QUEUED, PackStatus.BUILDING)


class RecordPack(models.Model):
    promotion = models.ForeignKey("promotions.Promotion", on_delete=models.PROTECT, related_name="record_packs")
    requested_at = models.DateTimeField()
    requested_by = models.CharField(max_length=150, help_text="Who asked for it: a username or the system.")
    requested_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    status = models.CharField(max_length=10, choices=PackStatus.choices, default=PackStatus.QUEUED)
    # Progress, written by the worker as it goes: the step in words and how many of the files.
    step = models.CharField(max_length=200, blank=True)
    done_count = models.PositiveIntegerField(default=0)
    total_count = models.PositiveIntegerField(default=0)
    # The worker's claim: when it started and when it last reported. A build that stops reporting
    # (the worker killed) may be claimed again by a later delivery of its task.
    queued_at = models.DateTimeField(help_text="When its task was last sent to the workers.")
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    zip_file = models.FileField(upload_to="records/packs/", blank=True)
    pdf_file = models.FileField(upload_to="records/packs/", blank=True)
    zip_bytes = models.BigIntegerField(default=0)
    manifest_sha256 = models.CharField(max_length=64, blank=True)
    file_count = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # The audit log's latest seal when the pack was built (core.audit_seal), printed on it.
    seal_day = models.DateField(null=True, blank=True)
    seal_digest = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [models.Index(fields=["promotion", "-requested_at"], name="record_pack_promotion_idx")]
        constraints = [
            models.CheckConstraint(
                condition=~Q(status="done") | (~Q(manifest_sha256="") & ~Q(zip_file="") & ~Q(pdf_file="")),
                name="record_pack_done_has_files",
            ),
        ]

    def __str__(self) -> str:
        return f"Record pack {self.pk} of {self.promotion}"

    @property
    def in_flight(self) -> bool:
        return self.status in IN_FLIGHT

    @property
    def percent(self) -> int:
        if self.status == PackStatus.DONE:
            return 100
        return int(100 * self.done_count / self.total_count) if self.total_count else 0

    def is_stale(self, now: dt.datetime, after: dt.timedelta) -> bool:
        last = self.heartbeat_at or self.started_at or self.requested_at
        return self.in_flight and last < now - after
