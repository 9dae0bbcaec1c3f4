from django.conf import settings
from django.db import models
from django.db.models.functions import Now


class AuditEvent(models.Model):
    """One thing that happened, append-only.

    On PostgreSQL a trigger (migration 0002) refuses UPDATE and DELETE, so not even the
    application can rewrite history; the application's database role may only SELECT and
    INSERT here (core.dbroles), and the database stamps created_at itself (migration 0003), so
    a back-dated row cannot be written either. The actor is kept as a plain id plus a label so
    that deleting a user never needs to touch the log.
    """

    # Set by the database, never by Python: INSERT ... RETURNING hands the value back.
    created_at = models.DateTimeField(db_default=Now(), editable=False)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    actor_label = models.CharField(max_length=150)
    action = models.CharField(max_length=80)
    object_type = models.CharField(max_length=80, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    data = models.JSONField(default=dict, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The audit page pages by keyset on (created_at, id), newest first (core.paging), alone
            # or within a filter by action, actor or object: each index ends in that key, so any
            # page of any filter is one index range read, at 2,000,000 events as at 20.
            models.Index(fields=["-created_at", "-id"], name="audit_time_key_idx"),
            models.Index(fields=["action", "-created_at", "-id"], name="audit_action_key_idx"),
            models.Index(fields=["actor_label", "-created_at", "-id"], name="audit_actor_key_idx"),
            models.Index(fields=["object_type", "object_id", "-created_at", "-id"], name="audit_object_key_idx"),
            # "Everything in an area" is `action LIKE 'draw.%' OR ...`: a rare area is found here
            # instead of by reading the whole log (pattern ops: LIKE on any collation).
            models.Index(fields=["action"], opclasses=["varchar_pattern_ops"], name="audit_action_prefix_idx"),
        ]

    def __str__(self) -> str:
        return (
            f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.actor_label} {self.action} {self.object_type}#{self.object_id}"
        )


class WorkerHeartbeat(models.Model):
    """When the beat tick last ran, so the desk can see that scheduled jobs are alive."""

    name = models.CharField(max_length=40, primary_key=True)
    last_tick_at = models.DateTimeField()
    ticks = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.name} @ {self.last_tick_at:%H:%M:%S}"


class SignInFailure(models.Model):
    """One wrong password, kept for the sign-in throttle (core.throttle) and deleted when a
    pause is lifted, when its own account signs in from that address, or after a day.

    `stranger`: the account had never signed in from this address when the failure happened,
    so the failure may be someone else's guess; such failures can pause an account only for a
    short while, and only from addresses it has never used.
    """

    LOGIN = "login"
    PASSWORD_CHANGE = "password_change"  # noqa: S105 (a kind of failure, not a password)
    KINDS = [(LOGIN, "Signing in"), (PASSWORD_CHANGE, "Changing the password")]

    kind = models.CharField(max_length=20, choices=KINDS, default=LOGIN)
    username = models.CharField(max_length=150)
    ip = models.GenericIPAddressField(null=True, blank=True)
    stranger = models.BooleanField(default=True)
    # Python's clock, not the database's: the throttle's tests pin the time.
    at = models.DateTimeField()

    class Meta:
        default_permissions = ()
        permissions = [("unlock_sign_in", "Can see and lift pauses on signing in")]
        indexes = [
            models.Index(fields=["username", "-at"], name="signin_failure_user_idx"),
            models.Index(fields=["ip", "-at"], name="signin_failure_ip_idx"),
            models.Index(fields=["-at"], name="signin_failure_at_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.username} from {self.ip} at {self.at:%Y-%m-%d %H:%M:%S}"


class SignInAddress(models.Model):
    """An address an account has signed in from: failures from it are never a stranger's."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    ip = models.GenericIPAddressField()
    first_at = models.DateTimeField()
    last_at = models.DateTimeField()

    class Meta:
        default_permissions = ()
        constraints = [models.UniqueConstraint(fields=["user", "ip"], name="signin_address_unique")]

    def __str__(self) -> str:
        return f"user {self.user_id} from {self.ip}"


class AuditSeal(models.Model):
    """One Johannesburg day of the audit log, sealed: the SHA-256 of that day's events in a
    canonical form (docs/audit-seal.md, core.seal_digest) chained to the previous day's seal.
    Every day from the first event's on has a row, empty days included, so the chain has no
    gap. Written once by core.audit_seal.seal_due; on PostgreSQL a trigger (migration 0005)
    refuses UPDATE and DELETE, and the application's role may only SELECT and INSERT here."""

    day = models.DateField(unique=True)
    version = models.CharField(max_length=40, help_text="The canonical form's version tag, hashed with the day.")
    event_count = models.PositiveIntegerField()
    first_event_id = models.BigIntegerField(null=True, blank=True)
    last_event_id = models.BigIntegerField(null=True, blank=True)
    digest = models.CharField(max_length=64)
    previous_digest = models.CharField(max_length=64)
    sealed_at = models.DateTimeField()

    # core.dbroles: the application's database role may read and append, nothing else.
    app_role_privileges = ("SELECT", "INSERT")

    class Meta:
        ordering = ["-day"]
        default_permissions = ()

    def __str__(self) -> str:
        return f"Audit seal of {self.day:%Y-%m-%d}: {self.digest[:12]}…"

    @property
    def digest_groups(self) -> str:
        """The digest in groups of four, easier to read aloud and compare by eye."""
        return " ".join(self.digest[i : i + 4] for i in range(0, len(self.digest), 4))
