"""Prize letters and payouts (issue 15; PRODUCT.md "Prize letter"; PRIZES.md §3). Imported by
prizes.models, so Django sees them as the prizes app's models.

- PrizeLetter: issued at the Rewards desk to one winner of one draw, in person; it covers that
  winner's money lines of the draw (LetterLine) and is paid at the cash desk until `expires_at`.
  Its `code` is an HMAC over its fields (prizes.letter_codes): a letter altered or made up fails.
- LetterLine: one prize line on one letter. Never two live letters for one prize line: a partial
  unique index on the line where `live` (a voided letter's lines are not live: they are free for
  its reissue; an expired or paid letter keeps them, so a lapsed prize is never lettered again).
- Payout: one prize line paid, by whichever path (the cash desk against a letter, or at the
  device for Royal Flush's bonus jackpot sessions, r14 and r29): the line is unique, so a line is
  paid once whatever happens.
- LetterCounter: the per-property, per-year sequence of letter numbers, taken under a row lock.

Times are stored in UTC; `expires_at` is the first instant the letter can no longer be paid
(midnight, Johannesburg, ending its last day: promotions.Promotion.collection_expires_at).
"""

import datetime as dt

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from members.identity import IdType

LETTER_KINDS = ("cash", "play", "vehicle", "other")  # prizes.lines.LineKind: paid by letter (never place, entries)


class LetterStatus(models.TextChoices):
    ISSUED = "issued", "Issued: to be collected"
    PAID = "paid", "Paid"
    VOIDED = "voided", "Voided"
    EXPIRED = "expired", "Expired: not collected in time"


# A letter is "live" while it stands for its lines: one per winner per draw (the partial unique
# index below), and the one that may still be paid while issued.
LIVE_STATUSES = (LetterStatus.ISSUED, LetterStatus.PAID)


class RenderState(models.TextChoices):
    """The letter's PDF, rendered by a Celery task into `pdf` (issue 15, item 5)."""

    PENDING = "pending", "Waiting to be rendered"
    RENDERING = "rendering", "Rendering"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


class LetterCounter(models.Model):
    """The last letter number given at a property in a year ("GRC-26-000123")."""

    property = models.ForeignKey("members.Property", on_delete=models.PROTECT, related_name="+")
    year = models.PositiveSmallIntegerField()
    last = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["property", "year"], name="letter_counter_per_property_year")]

    def __str__(self) -> str:
        return f"{self.property_id}/{self.year}: {self.last}"


class PrizeLetterQuerySet(models.QuerySet):
    def with_related(self) -> "PrizeLetterQuerySet":
        return self.select_related(
            "draw", "draw__series", "draw__series__promotion", "draw__property", "member", "property", "pick"
        )

    def live(self) -> "PrizeLetterQuerySet":
        return self.filter(status__in=LIVE_STATUSES)


class PrizeLetter(models.Model):
    number = models.CharField(max_length=24, unique=True, help_text="e.g. GRC-26-000123: property, year, sequence.")
    draw = models.ForeignKey("draws.Draw", on_delete=models.PROTECT, related_name="+")
    pick = models.ForeignKey("draws.DrawPick", on_delete=models.PROTECT, related_name="+")
    member = models.ForeignKey("members.Member", on_delete=models.PROTECT, related_name="+")
    property = models.ForeignKey(
        "members.Property", on_delete=models.PROTECT, related_name="+", help_text="Where it was won: where it is paid."
    )
    collection_place = models.CharField(max_length=300, help_text="Where the winner collects, as the letter says.")
    issued_at = models.DateTimeField()
    issued_by = models.CharField(max_length=150)
    issued_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    id_type_seen = models.CharField(max_length=20, choices=IdType.choices, help_text="The winner's ID, checked.")
    expires_at = models.DateTimeField(help_text="The first instant it can no longer be paid.")
    status = models.CharField(max_length=10, choices=LetterStatus.choices, default=LetterStatus.ISSUED)
    status_changed_at = models.DateTimeField(null=True, blank=True, help_text="When it was paid, voided or expired.")
    voided_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.CharField(max_length=150, blank=True)
    voided_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    void_reason = models.TextField(blank=True)
    replaces = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="replaced_by",
        help_text="The voided letter this one was reissued for.",
    )
    code = models.CharField(max_length=64, help_text="HMAC-SHA256 (hex) of its fields: prizes.letter_codes.")
    # The PDF, rendered once by the worker and stored (never re-rendered per download).
    pdf = models.FileField(upload_to="letters/%Y/%m/", blank=True)
    render_state = models.CharField(max_length=10, choices=RenderState.choices, default=RenderState.PENDING)
    rendered_at = models.DateTimeField(null=True, blank=True)
    render_error = models.TextField(blank=True)
    # When the render was last queued or started: the tick queues it again once this is old
    # (prizes.letter_pdf.letters_render_stale), so a lost task never leaves a letter unrendered.
    render_queued_at = models.DateTimeField(null=True, blank=True)

    objects = PrizeLetterQuerySet.as_manager()

    class Meta:
        ordering = ["-issued_at", "-id"]
        permissions = [("void_prizeletter", "Can void and reissue a prize letter")]
        indexes = [
            # letters_expire: the issued letters past their expiry, each tick.
            models.Index(fields=["expires_at"], condition=Q(status="issued"), name="letter_issued_expiry_idx"),
            models.Index(fields=["member", "-issued_at"], name="letter_member_idx"),
            models.Index(fields=["draw"], name="letter_draw_idx"),
        ]
        constraints = [
            # One live letter per winner per draw (a reissue voids the old one first).
            models.UniqueConstraint(
                fields=["pick"], condition=Q(status__in=["issued", "paid"]), name="one_live_letter_per_winner"
            ),
            models.CheckConstraint(
                condition=(Q(status="voided") & Q(voided_at__isnull=False) & ~Q(void_reason=""))
                | (~Q(status="voided") & Q(voided_at__isnull=True)),
                name="letter_voided_has_time_and_reason",
            ),
            models.CheckConstraint(
                condition=Q(expires_at__gt=models.F("issued_at")), name="letter_expires_after_issue"
            ),
        ]

    def __str__(self) -> str:
        return f"Prize letter {self.number}"

    def state(self, now: dt.datetime | None = None):
        """What the letter is at `now`, in words, and what may be done (prizes.letter_states)."""
        from prizes.letter_states import LetterState

        return LetterState(self, now or timezone.now())

    def last_day(self) -> dt.date:
        """The last Johannesburg day it may be paid (the day before `expires_at`'s midnight)."""
        return timezone.localtime(self.expires_at - dt.timedelta(microseconds=1)).date()

    def qr_text(self) -> str:
        """What its QR code holds, for the cash desk's scanner (prizes.letter_codes)."""
        from prizes.letter_codes import scan_text

        return scan_text(self)


class LetterLine(models.Model):
    letter = models.ForeignKey(PrizeLetter, on_delete=models.PROTECT, related_name="lines")
    prize_line = models.ForeignKey("prizes.PrizeLine", on_delete=models.PROTECT, related_name="letter_lines")
    live = models.BooleanField(default=True, help_text="False once its letter is voided: the line is free again.")

    class Meta:
        ordering = ["letter", "prize_line_id"]
        constraints = [
            models.UniqueConstraint(fields=["letter", "prize_line"], name="letter_line_once_per_letter"),
            # Never two live letters for one prize line (issue 15, item 4).
            models.UniqueConstraint(fields=["prize_line"], condition=Q(live=True), name="one_live_letter_per_line"),
        ]

    def __str__(self) -> str:
        return f"Line {self.prize_line_id} of {self.letter_id}"


class PayoutPlace(models.TextChoices):
    CASH_DESK = "cash_desk", "Cash desk"
    DEVICE = "device", "At the device"


class Payout(models.Model):
    """One prize line paid: cash or +Play handed over, a vehicle handed over (its stated value as
    the amount), at the cash desk against a letter or at the device (RF RAPS: no letter)."""

    prize_line = models.OneToOneField("prizes.PrizeLine", on_delete=models.PROTECT, related_name="payout")
    letter = models.ForeignKey(PrizeLetter, null=True, blank=True, on_delete=models.PROTECT, related_name="payouts")
    property = models.ForeignKey("members.Property", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=10, help_text="The line's kind (prizes.lines.LineKind).")
    amount_cents = models.BigIntegerField()
    paid_at = models.DateTimeField()
    paid_by = models.CharField(max_length=150)
    paid_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    where = models.CharField(max_length=10, choices=PayoutPlace.choices)
    id_type_seen = models.CharField(max_length=20, choices=IdType.choices, blank=True)
    id_last_digits = models.CharField(
        max_length=4, blank=True, help_text="The last digits of the ID presented, as the cashier typed them."
    )
    signature_acknowledged = models.BooleanField(default=False, help_text="The winner signed for receipt.")
    handed_over = models.BooleanField(default=False, help_text="A vehicle: handed over to the winner.")

    class Meta:
        ordering = ["-paid_at", "-id"]
        permissions = [("record_device_payout", "Can record a prize paid at the device")]
        indexes = [models.Index(fields=["property", "-paid_at"], name="payout_property_day_idx")]
        constraints = [
            # The cash desk pays against a letter; the device, never.
            models.CheckConstraint(
                condition=Q(where="cash_desk", letter__isnull=False) | Q(where="device", letter__isnull=True),
                name="payout_letter_by_place",
            ),
            models.CheckConstraint(condition=Q(amount_cents__gte=0), name="payout_amount_not_negative"),
        ]

    def __str__(self) -> str:
        return f"Payout of line {self.prize_line_id}"
