import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.formats import local_date, local_datetime
from members.identity import IdType


class Property(models.Model):
    """A casino where members play and promotions run."""

    code = models.CharField(max_length=10, unique=True, help_text="Short code used in imports, e.g. GRC.")
    name = models.CharField(max_length=100, unique=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "properties"

    def __str__(self) -> str:
        return self.name


class Tier(models.Model):
    """A rewards tier; rank orders them, lowest first (Ten < Jack < Queen < King < Ace)."""

    code = models.CharField(max_length=10, unique=True)
    name = models.CharField(max_length=30, unique=True)
    rank = models.PositiveSmallIntegerField(unique=True)

    class Meta:
        ordering = ["rank"]

    def __str__(self) -> str:
        return self.name


class MemberQuerySet(models.QuerySet):
    def with_related(self) -> "MemberQuerySet":
        return self.select_related("tier", "home_property")


class Member(models.Model):
    card_number = models.CharField(max_length=20, unique=True)
    first_name = models.CharField(max_length=60)
    last_name = models.CharField(max_length=60)
    # Lower-case "first last", kept by save() and the importers; the trigram index for
    # partial-name lookup sits on this column (migration 0002, PostgreSQL only).
    search_name = models.CharField(max_length=121, editable=False)
    id_type = models.CharField(max_length=20, choices=IdType.choices, default=IdType.SA_ID)
    id_number = models.CharField(max_length=20)
    date_of_birth = models.DateField()
    phone = models.CharField(max_length=20, blank=True)
    email = models.EmailField(blank=True)
    # No per-row foreign keys (issue 17): a 100,000-row import paid 2 x 100,000 deferred checks
    # at COMMIT, a third of its insert. Migration 0017's triggers check a statement's tiers and
    # properties once (locked as a foreign key locks them), and refuse to delete one that a
    # member names, with the foreign-key error code. The indexes stay: the members list filters
    # by both.
    tier = models.ForeignKey(Tier, on_delete=models.PROTECT, related_name="members", db_constraint=False)
    home_property = models.ForeignKey(Property, on_delete=models.PROTECT, related_name="members", db_constraint=False)
    app_registered_on = models.DateField(null=True, blank=True, help_text="When the member registered on the app.")
    # The add-ons of issue 14 read it at the moment a winner is verified (TH r21: "+Play if
    # they can verify that they have registered and actively played on playTSOGO"): a date, as
    # for the app, so "was he active on the day he won" has an answer.
    playtsogo_active_since = models.DateField(
        null=True, blank=True, help_text="Registered and active on playTSOGO online betting since; empty: not active."
    )
    # Set by the gaming-system feed: the app may only activate tickets while this is true, and
    # only for draws at the property whose feed reported the play (issue 6, 2.6).
    playing_now = models.BooleanField(default=False)
    playing_updated_at = models.DateTimeField(null=True, blank=True)
    playing_property = models.ForeignKey(
        Property,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
        db_constraint=False,
        db_index=False,  # member_playing_property_idx: only members playing now
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MemberQuerySet.as_manager()

    class Meta:
        ordering = ["last_name", "first_name"]
        # change_member (managers) corrects every field; the desk corrects contact details only.
        permissions = [("change_member_contact", "Can change a member's phone and e-mail")]
        constraints = [
            # One member per document number whatever its type: a number typed once as an SA ID
            # and once as a passport is the same person (issue 6, 2.1). Also the index for lookup
            # by ID number and for the exclusion check of the ticket allocation.
            models.UniqueConstraint(fields=["id_number"], name="member_unique_id_number"),
        ]
        indexes = [
            # For a property's delete (Django sets it to NULL first; the guard of migration 0017
            # looks): a member not playing, as every imported one, has no entry to write.
            models.Index(
                fields=["playing_property"],
                name="member_playing_property_idx",
                condition=Q(playing_property__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.first_name} {self.last_name} ({self.card_number})"

    def save(self, *args, **kwargs):
        self.search_name = f"{self.first_name} {self.last_name}".lower()
        if "update_fields" in kwargs and kwargs["update_fields"] is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "search_name"}
        super().save(*args, **kwargs)

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"

    @property
    def masked_id_number(self) -> str:
        return "*" * max(len(self.id_number) - 4, 0) + self.id_number[-4:]


class CardNumberCounter(models.Model):
    """The last card serial issued; locked while a new card number is taken."""

    last_serial = models.PositiveBigIntegerField()


class ExclusionKind(models.TextChoices):
    SELF_EXCLUSION = "self_exclusion", "Self-excluded"
    REFUSAL_OF_ENTRY = "refusal_of_entry", "Refusal of Entry order"
    CONNECTED_PERSON = "connected_person", "Connected person (staff, director, agent or family)"


class ExclusionQuerySet(models.QuerySet):
    def in_force_at(self, moment) -> "ExclusionQuerySet":
        return self.in_force_during(moment, moment)

    def in_force_during(self, start, end) -> "ExclusionQuerySet":
        """In force at some moment from `start` to `end` (inclusive)."""
        return self.filter(Q(starts_at__lte=end), Q(ends_at__isnull=True) | Q(ends_at__gt=start))

    def for_identity(self, id_number: str) -> "ExclusionQuerySet":
        """Exclusions of this (normalised) document number whatever type it was recorded as:
        an exclusion bars the person whichever document the desk picks."""
        return self.filter(id_number=id_number)


class Exclusion(models.Model):
    """A person barred from promotions, identified by ID document so that it also bars a
    guest who has no card yet (national self-exclusion register, Refusal of Entry orders)."""

    id_type = models.CharField(max_length=20, choices=IdType.choices)
    id_number = models.CharField(max_length=20)
    full_name = models.CharField(max_length=121, blank=True)
    kind = models.CharField(max_length=20, choices=ExclusionKind.choices)
    reason = models.TextField()
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(null=True, blank=True, help_text="Empty: in force until ended.")
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(auto_now_add=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    objects = ExclusionQuerySet.as_manager()

    class Meta:
        ordering = ["-starts_at"]
        # for_identity() and the allocation's NOT EXISTS match on the number alone.
        indexes = [models.Index(fields=["id_number"], name="exclusion_id_number_idx")]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__isnull=True) | Q(ends_at__gt=models.F("starts_at")),
                name="exclusion_ends_after_start",
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.full_name or self.id_number}"

    @property
    def last_day(self) -> dt.date | None:
        """The last local day the exclusion is in force: the manager's "last day" is stored as
        the start of the next day (ends_at), which must not be shown as the end."""
        if self.ends_at is None:
            return None
        return timezone.localdate(self.ends_at - dt.timedelta(microseconds=1))

    @property
    def ends_at_midnight(self) -> bool:
        """True when it ends with a whole day (as entered), False when ended at a time of day."""
        return self.ends_at is not None and timezone.localtime(self.ends_at).time() == dt.time.min

    @property
    def until_label(self) -> str:
        """ "29 Nov 2027, inclusive", or the day and time it was ended early; "" without an end."""
        if self.ends_at is None:
            return ""
        if self.ends_at_midnight:
            return f"{local_date(self.last_day)}, inclusive"
        return local_datetime(self.ends_at)


class PointsEntry(models.Model):
    """Points earned by carded play, from the casino management system. Never spent:
    later issues count the points earned in a draw's earning period."""

    # No per-row foreign keys (issue 17): a 200,000-row file paid 3 x 200,000 deferred checks at
    # COMMIT. Migration 0011's triggers check a statement's members, properties and import jobs
    # once per statement, and refuse to delete a member, property or job that has points, with
    # the foreign-key error code. Of the indexes a foreign key would add, member_id's and
    # property_id's are below; nothing reads the ledger by import job but that delete guard.
    member = models.ForeignKey(
        Member, on_delete=models.PROTECT, related_name="points", db_constraint=False, db_index=False
    )
    property = models.ForeignKey(
        Property, on_delete=models.PROTECT, related_name="+", db_constraint=False, db_index=False
    )
    earned_at = models.DateTimeField()
    points = models.PositiveIntegerField()
    reference = models.CharField(max_length=64)
    import_job = models.ForeignKey(
        "ImportJob",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    # The row's identity is the casino's: its reference at a property (re-importing a file adds
    # nothing twice). On PostgreSQL the ledger is partitioned by month of earned_at (migration
    # 0018) and a unique key must hold the partition key, so earned_at closes it; a reference met
    # again with another earned_at is kept out by the import's anti-join (members.imports.
    # points_apply), under the points imports' lock. No surrogate id (migration 0019): its
    # sequence and its index cost every imported row, and nothing looked a row up by it.
    pk = models.CompositePrimaryKey("property", "reference", "earned_at")

    class Meta:
        verbose_name_plural = "points entries"
        constraints = [
            models.CheckConstraint(condition=Q(points__gt=0), name="points_positive"),
        ]
        # No index of the property's own (migration 0021): the key leads with property_id, and a
        # draw's allocation reads its period's months (0018) by the key or in sequence.
        indexes = [
            # One member's rows: their allocation, the member page (tens to hundreds of rows; the
            # earning period is filtered on those). Keyed by member alone, PostgreSQL stores each
            # member once with the list of their rows (deduplication): 88 MB at 10 M rows against
            # 301 MB with earned_at in the key, and a new row's entry joins the end of its
            # member's list. A points file sorted by member dirties that much less (migration 0013).
            models.Index(fields=["member"], name="points_member_idx"),
        ]


class ImportKind(models.TextChoices):
    MEMBERS = "members", "Members"
    POINTS = "points", "Points"


class ImportStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Imported"
    FAILED = "failed", "Rejected"


class ImportJob(models.Model):
    kind = models.CharField(max_length=10, choices=ImportKind.choices)
    # Emptied when a rejected upload has been kept IMPORT_KEEP_REJECTED_DAYS (import_files_purge).
    file = models.FileField(upload_to="imports/%Y/%m/", blank=True)
    original_name = models.CharField(max_length=255)
    size_bytes = models.PositiveBigIntegerField(default=0)
    status = models.CharField(max_length=10, choices=ImportStatus.choices, default=ImportStatus.QUEUED)
    rows_total = models.PositiveIntegerField(default=0)
    rows_imported = models.PositiveIntegerField(default=0)
    rows_skipped = models.PositiveIntegerField(default=0, help_text="Already imported before (points only).")
    error_count = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The running worker touches heartbeat_at with every chunk; a job whose heartbeat is older
    # than IMPORT_STALE_SECONDS lost its worker and is run again (import_jobs_fail_stale). Of a
    # queued job it is when it was last sent again (import_jobs_requeue_lost).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Times a worker started this import.")
    # Who holds the job: written by the claiming UPDATE and checked by each later write, so a
    # worker that lost the job (presumed dead, then woke up) cannot write into it any more.
    claim = models.CharField(max_length=32, blank=True, editable=False)
    file_purged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        # The imports list pages by keyset on (created_at, id), newest first (core.paging).
        indexes = [models.Index(fields=["-created_at", "-id"], name="import_time_key_idx")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} import #{self.pk} ({self.original_name})"

    @property
    def is_finished(self) -> bool:
        return self.status in (ImportStatus.SUCCEEDED, ImportStatus.FAILED)

    @property
    def succeeded(self) -> bool:
        return self.status == ImportStatus.SUCCEEDED

    @property
    def is_waiting_to_restart(self) -> bool:
        """Its worker stopped during the import; back in the queue for another worker."""
        return self.status == ImportStatus.QUEUED and self.attempts > 0

    @property
    def was_restarted(self) -> bool:
        """A worker stopped during this import and it was started again from the beginning."""
        return self.attempts > 1 and not self.is_finished

    def is_stalled(self, now) -> bool:
        """Running, but its worker has not reported for longer than IMPORT_STALE_SECONDS."""
        beat = self.heartbeat_at or self.started_at
        stale = dt.timedelta(seconds=settings.IMPORT_STALE_SECONDS)
        return self.status == ImportStatus.RUNNING and beat is not None and beat < now - stale


class ImportRowError(models.Model):
    """One bad row of a rejected import, by line number of the file (the header is line 1)."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="row_errors")
    line = models.PositiveIntegerField()
    message = models.CharField(max_length=500)
    # The row as the file has it, so the report can be read without the file (purged later).
    text = models.TextField(blank=True)

    class Meta:
        ordering = ["job", "line", "id"]


# --- Import staging: rows of a running import, written chunk by chunk in short transactions
# and moved to the real tables in one short step (members.services._import_apply). Never read
# by anything else; a job's rows are deleted when it finishes or is started again.


class ImportStagedMember(models.Model):
    # No foreign key in the database: it was checked once per staged row (100,000 checks for a
    # 100,000-row file); the job's row exists while its worker holds it, and deleting a job
    # still deletes its staged rows (Django cascades). The table is UNLOGGED (migration 0010). No
    # index of its own either: the two below lead with it (one fewer index a staged row, 0016).
    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False)
    line = models.PositiveIntegerField()
    card_number = models.CharField(max_length=20)
    first_name = models.CharField(max_length=60)
    last_name = models.CharField(max_length=60)
    search_name = models.CharField(max_length=121)
    id_type = models.CharField(max_length=20)
    id_number = models.CharField(max_length=20)
    date_of_birth = models.DateField()
    phone = models.CharField(max_length=20, blank=True)
    email = models.CharField(max_length=254, blank=True)
    tier_id = models.BigIntegerField()
    home_property_id = models.BigIntegerField()
    app_registered_on = models.DateField(null=True, blank=True)

    class Meta:
        indexes = [
            # Duplicates in the same file, found chunk by chunk.
            models.Index(fields=["job", "card_number"], name="staged_member_card_idx"),
            models.Index(fields=["job", "id_number"], name="staged_member_number_idx"),
        ]


class ImportStagedMemberText(models.Model):
    """A row of a plain members file as the file has it, cell by cell, written by COPY (PostgreSQL
    only: members.imports.members_read_plain). One statement checks and converts the rows of the
    usual shape (members_checked): into the members table at once when every row is
    (members_apply_checked), else into ImportStagedMember, beside the others parsed in Python.
    No foreign key or index: the job's rows are only ever read whole, and the table is UNLOGGED
    (migration 0014)."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False)
    line = models.PositiveIntegerField()
    # False when the line holds whitespace that str.strip() may remove from a cell: Python reads it.
    plain = models.BooleanField()
    card_number = models.TextField()
    first_name = models.TextField()
    last_name = models.TextField()
    id_type = models.TextField()
    id_number = models.TextField()
    date_of_birth = models.TextField()
    tier = models.TextField()
    property = models.TextField()
    phone = models.TextField()
    email = models.TextField()
    app_registered_on = models.TextField()


class ImportStagedPoints(models.Model):
    # On PostgreSQL the rows are written by COPY with their card number, and the member is found
    # by the final statement (members.imports.points_apply); member_id is SQLite's. No foreign
    # key to the job (a check a row); the table is UNLOGGED there (migration 0010): an import a
    # crash interrupts is read again from its file.
    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False)
    line = models.PositiveIntegerField()
    card_number = models.CharField(max_length=20, blank=True, default="")
    member_id = models.BigIntegerField(null=True)
    property_id = models.BigIntegerField()
    earned_at = models.DateTimeField()
    points = models.PositiveIntegerField()
    reference = models.CharField(max_length=64)

    class Meta:
        verbose_name_plural = "import staged points"
        indexes = [
            # A reference twice in the same file, found chunk by chunk: SQLite only (PostgreSQL
            # checks the whole file by one statement; migration 0022 drops it there, so a later
            # migration that renames or changes it must not expect it on PostgreSQL).
            models.Index(fields=["job", "property_id", "reference"], name="staged_points_ref_idx"),
        ]


class StaffProfile(models.Model):
    """Where a member of staff works: the desk's pages (home, draws list, the member page's
    draws) start at the home property. A manager who looks after several casinos also has the
    others. A user without a profile sees every property, as before profiles existed."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_profile")
    home_property = models.ForeignKey(Property, on_delete=models.PROTECT, related_name="+")
    other_properties = models.ManyToManyField(
        Property,
        blank=True,
        related_name="+",
        help_text="Further casinos this person looks after (managers of several properties).",
    )

    class Meta:
        verbose_name = "staff property"
        verbose_name_plural = "staff properties"

    def __str__(self) -> str:
        return f"{self.user.get_username()} at {self.home_property}"
