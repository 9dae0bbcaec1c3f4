from django.db import models
from django.db.models import Q

# --- Progressive jackpots (issue 14, item 5; jackpots' part) ------------------------------------
# Kept at the end of this module: the boards' models (PrizeBoard, BoardSlot, PrizeLine) come first.


class Progressive(models.Model):
    """A jackpot whose value is carried from draw to draw: TH's digit safe (r120-126), FL's
    R20,000 progressive reveal (r107), GH's vault jackpot (r9, A4). Its value is never stored
    here: it is the balance of its last entry (the base before any)."""

    promotion = models.ForeignKey("promotions.Promotion", on_delete=models.PROTECT, related_name="progressives")
    series = models.ForeignKey(
        "promotions.DrawSeries",
        on_delete=models.PROTECT,
        related_name="progressives",
        help_text="The draws that grow it or are won from it (TH: the Saturday 9pm draws).",
    )
    code = models.SlugField(max_length=40)
    name = models.CharField(max_length=120)
    base_cents = models.PositiveBigIntegerField(help_text="Its value at the start and after each win.")
    increment_cents = models.PositiveBigIntegerField(
        default=0, help_text="Added each time a draw of the series closes without a win; 0: it never grows."
    )
    share_series = models.ForeignKey(
        "promotions.DrawSeries",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="The draw that shares it out if it is never won (TH r135: 20 Dec 21h30).",
    )

    class Meta:
        ordering = ["promotion_id", "code"]
        constraints = [models.UniqueConstraint(fields=["promotion", "code"], name="progressive_unique_code")]

    def __str__(self) -> str:
        return self.name


class ProgressiveEntryKind(models.TextChoices):
    GROW = "grow", "Grew"
    WON = "won", "Won"
    RESET = "reset", "Back to base"
    SHARE_OUT = "share_out", "Shared out"
    SET = "set", "Amount set"


class ProgressiveEntry(models.Model):
    """One change of a progressive, by a service (prizes/progressives.py), never by hand: the
    database refuses to change or delete an entry, and an entry whose balance is not the last
    balance plus its change (migration: prizes_progressiveentry_guard)."""

    progressive = models.ForeignKey(Progressive, on_delete=models.PROTECT, related_name="entries")
    draw = models.ForeignKey(
        "draws.Draw", on_delete=models.PROTECT, related_name="+", help_text="The draw that caused the change."
    )
    pick = models.ForeignKey("draws.DrawPick", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    kind = models.CharField(max_length=10, choices=ProgressiveEntryKind.choices)
    change_cents = models.BigIntegerField()
    balance_cents = models.BigIntegerField(help_text="The progressive's value after this change.")
    words = models.CharField(max_length=300)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=150, help_text="Who or which job made the change.")

    class Meta:
        ordering = ["progressive_id", "pk"]
        verbose_name_plural = "progressive entries"
        constraints = [
            models.CheckConstraint(condition=Q(balance_cents__gte=0), name="progressive_balance_never_negative"),
            # One growth and one win per draw (TH A17: "one crack a draw"), one share-out ever.
            models.UniqueConstraint(
                fields=["progressive", "draw"], condition=Q(kind="grow"), name="progressive_grows_once_a_draw"
            ),
            models.UniqueConstraint(
                fields=["progressive", "draw"], condition=Q(kind="won"), name="progressive_won_once_a_draw"
            ),
            models.UniqueConstraint(
                fields=["progressive"], condition=Q(kind="share_out"), name="progressive_shared_out_once"
            ),
        ]

    def __str__(self) -> str:
        return self.words
