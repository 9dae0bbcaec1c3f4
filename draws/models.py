"""Draws (one date-time of a series), their ticket windows, activations and device tokens.

Time is the authority: every window is stored on its row and checked on every request; the
beat tick only performs the state change (closing and freezing) once a window has passed.
"""

import datetime as dt
import hashlib
import math
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from members.identity import IdType
from members.models import Member, Property
from promotions.models import DrawMethod, DrawSeries, Promotion, PromotionStatus

if TYPE_CHECKING:
    from draws.states import DrawState


def actor_words(label: str) -> str:
    """Who did it, for people: a user's name, or "the system" for the beat tick."""
    return "the system (automatic, at the draw time)" if label.startswith("system:") else label


class DrawStatus(models.TextChoices):
    SCHEDULED = "scheduled", "Scheduled"
    CLOSED = "closed", "Entries frozen"
    RUNNING = "running", "Drawing"
    DRAWN = "drawn", "Drawn"
    CANCELLED = "cancelled", "Cancelled"


class DrawQuerySet(models.QuerySet):
    def with_related(self) -> "DrawQuerySet":
        return self.select_related("series", "series__promotion", "series__rule", "property")

    def accepting_tickets_at(self, moment) -> "DrawQuerySet":
        """Draw.state(moment).phase == OPEN, in SQL, of a published promotion (the device API's
        open draws; draws/tests/test_states.py holds the two equal at the windows' edges)."""
        return self.filter(
            status=DrawStatus.SCHEDULED,
            series__promotion__status=PromotionStatus.PUBLISHED,
            windows__opens_at__lte=moment,
            windows__closes_at__gt=moment,
        ).distinct()

    def bump_activation_epoch(self) -> int:
        """Mark these draws (rows the caller has locked) as changed for every activation in
        flight: see Draw.activation_epoch. Only scheduled draws take tickets, so only theirs move."""
        return self.filter(status=DrawStatus.SCHEDULED).update(activation_epoch=F("activation_epoch") + 1)


def accepting_tickets_sql(draw: str, moment: str) -> str:
    """DrawQuerySet.accepting_tickets_at as a SQL condition on the draws_draw row aliased `draw`
    at `moment` (a placeholder, e.g. "%(now)s"), for the devices' hot statements: building the
    queryset's SQL costs about a millisecond of the ORM a request. The two are held equal in
    draws/tests/test_states.py."""
    window, series, promotion = TicketWindow._meta.db_table, DrawSeries._meta.db_table, Promotion._meta.db_table
    return f"""({draw}.status = '{DrawStatus.SCHEDULED}'
        AND EXISTS (SELECT 1 FROM {window} w_open
                    WHERE w_open.draw_id = {draw}.id AND w_open.opens_at <= {moment} AND w_open.closes_at > {moment})
        AND EXISTS (SELECT 1 FROM {series} s_open JOIN {promotion} p_open ON p_open.id = s_open.promotion_id
                    WHERE s_open.id = {draw}.series_id AND p_open.status = '{PromotionStatus.PUBLISHED}'))"""  # noqa: S608


class Draw(models.Model):
    series = models.ForeignKey(DrawSeries, on_delete=models.PROTECT, related_name="draws")
    property = models.ForeignKey(Property, on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=160)
    scheduled_at = models.DateTimeField()
    method = models.CharField(max_length=12, choices=DrawMethod.choices)
    points_per_ticket = models.PositiveIntegerField(
        null=True, blank=True, help_text="This draw's own rate, when it differs by bin (e.g. 8pm: 250, 9pm: 500)."
    )
    # The first opening and the last closing of the ticket windows, kept by the services so the
    # beat tick can find due draws with one indexed query.
    tickets_open_at = models.DateTimeField()
    tickets_close_at = models.DateTimeField()
    proxies_open_at = models.DateTimeField()
    proxies_close_at = models.DateTimeField()
    declines_open_at = models.DateTimeField()
    declines_close_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=DrawStatus.choices, default=DrawStatus.SCHEDULED)
    moved_from = models.DateTimeField(null=True, blank=True)
    change_reason = models.TextField(blank=True, help_text="Why the draw was moved or cancelled.")
    # The per-draw serial counter: the next activation starts here (row-locked).
    next_serial = models.PositiveBigIntegerField(default=1)
    # Moved by every change an activation must see under this row's lock other than the window,
    # time and status the lock's UPDATE re-checks itself: a proxy registered, the series' rule
    # saved (bump_activation_epoch, in the same transaction). An activation takes its serials
    # and writes in one statement whose snapshot predates its wait for the lock; PostgreSQL
    # re-checks the waited-for row, so a changed epoch sends it down the re-checking path
    # (draws.services.activation_create).
    activation_epoch = models.PositiveIntegerField(default=0)
    # Frozen when the last ticket window closes (see draws.services.draw_close_window).
    entries_frozen_at = models.DateTimeField(null=True, blank=True)
    entries_count = models.PositiveIntegerField(default=0)
    tickets_total = models.PositiveBigIntegerField(default=0)
    entries_sha256 = models.CharField(max_length=64, blank=True)
    seed_sha256 = models.CharField(max_length=64, blank=True)
    seed_hex = models.CharField(max_length=64, blank=True, help_text="Secret until the draw has run.")
    # The run (draws.engine): set when it starts, copied from the series so the record keeps
    # what applied on the night whatever the series says later.
    started_at = models.DateTimeField(null=True, blank=True)
    started_by = models.CharField(max_length=150, blank=True, help_text="Who pressed Start, or system:tick.")
    witness_name = models.CharField(max_length=120, blank=True)
    winners_wanted = models.PositiveSmallIntegerField(null=True, blank=True)
    win_once = models.CharField(max_length=10, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    ended_short_reason = models.TextField(blank=True, help_text="Why the draw ended with fewer winners than wanted.")
    # Copied from the series at the start (issue 13): the stage's presentation window and Fast
    # Lane rule 117's one selection per draw; and why a draw started before its time.
    presentation_seconds = models.PositiveSmallIntegerField(default=90)
    one_selection_per_draw = models.BooleanField(default=False)
    early_start_reason = models.TextField(blank=True, help_text="Why the draw started before its time.")
    software_version = models.CharField(
        max_length=80, blank=True, help_text="The commit (or release) of promodesk that started the draw (DRAWS.md §6)."
    )

    objects = DrawQuerySet.as_manager()

    # The status in which a draw still takes tickets, for apps below this one.
    OPEN_STATUS = DrawStatus.SCHEDULED
    # A cancelled draw no longer ties its promotion to its date (promotion_save may shrink past it).
    CANCELLED_STATUS = DrawStatus.CANCELLED

    class Meta:
        ordering = ["scheduled_at", "id"]
        permissions = [("view_stage", "Can open the stage screen and tonight's draws")]
        indexes = [
            # The beat tick: scheduled draws whose ticket window has closed.
            models.Index(fields=["status", "tickets_close_at"], name="draw_due_close_idx"),
            models.Index(fields=["property", "scheduled_at"], name="draw_property_time_idx"),
            # The draws list pages by keyset on (scheduled_at, id) either way (core.paging).
            models.Index(fields=["scheduled_at", "id"], name="draw_time_key_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(tickets_close_at__gt=models.F("tickets_open_at")), name="draw_ticket_window_order"
            ),
            models.UniqueConstraint(fields=["series", "scheduled_at"], name="one_draw_per_series_per_moment"),
        ]

    def __str__(self) -> str:
        return self.name

    def state(self, now: dt.datetime | None = None) -> "DrawState":
        """What the draw is at `now` and what may happen to it next (draws.states: the one home
        of the draw's rules). Without `now` (templates), the state of this moment, kept while the
        status stays the same, so a page reads one state however often it asks; it reads the clock
        only for a question that needs the time."""
        from draws.states import DrawState  # draws.states reads this module

        if now is not None:
            return DrawState(self, now, self.status)
        kept = self.__dict__.get("_current_state")
        if kept is None or kept.status != self.status:
            kept = self.__dict__["_current_state"] = DrawState(self, None, self.status)  # its clock read when needed
        return kept

    # Thin readers of the state, for templates and callers that ask one question. Methods, not
    # properties: `property` is a field of this model. Templates call them alike.
    def is_cancelled(self) -> bool:
        return self.state().is_cancelled

    def is_complete(self) -> bool:
        return self.state().is_complete

    def started_by_display(self) -> str:
        return actor_words(self.started_by)

    def revealed_seed(self) -> str:
        """The seed, once the draw is complete (DRAWS.md §1); empty before."""
        return self.seed_hex if self.state().seed_revealed else ""

    def status_style(self) -> str:
        """The badge colour of the status, for pages."""
        return self.state().badge_style

    def ticket_window_refusal(self, now) -> str | None:
        """Why tickets for this draw cannot be activated at `now` (the window or the status), or
        None while a window is open. Uses prefetched windows when there are some."""
        return self.state(now).tickets_refusal

    def move_refusal(self) -> str | None:
        """Why this draw cannot be moved, or None: once tickets are out, their receipts name its time."""
        return self.state().move_refusal

    def cancel_refusal(self) -> str | None:
        """Why this draw cannot be cancelled, or None."""
        return self.state().cancel_refusal

    def open_window(self, now) -> "TicketWindow | None":
        """The ticket window open at `now`, if any (for "closes Mon 30 Nov 06:55, in 1 h 05 min")."""
        return next((w for w in self.windows.all() if w.contains(now)), None)


class TicketWindow(models.Model):
    """One interval in which tickets may be activated, e.g. Friday 21h00-00h00."""

    draw = models.ForeignKey(Draw, on_delete=models.CASCADE, related_name="windows")
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField(help_text="Exclusive: at this instant the window is closed.")

    class Meta:
        ordering = ["opens_at"]
        constraints = [
            models.CheckConstraint(condition=Q(closes_at__gt=models.F("opens_at")), name="window_order"),
        ]

    def contains(self, moment) -> bool:
        return self.opens_at <= moment < self.closes_at

    def time_left(self, now) -> str:
        """ "2 h 05 min" until this window closes, for a clerk reading the screen."""
        minutes = max(0, int((self.closes_at - now).total_seconds() // 60))
        hours, minutes = divmod(minutes, 60)
        days, hours = divmod(hours, 24)
        if days:
            return f"{days} d {hours} h"
        return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


class Channel(models.TextChoices):
    EHOST = "ehost", "eHost kiosk"
    APP = "app", "Mobile app"
    DESK = "desk", "VIP / Rewards desk"
    # Not an activation by the member: a finalist place or entries won in an earlier draw,
    # written when the entries freeze (draws.entry_sources).
    CARRIED = "carried", "Carried from an earlier draw"


class DeviceKind(models.TextChoices):
    EHOST = "ehost", "eHost kiosk"
    APP = "app", "Mobile app gateway"
    FEED = "feed", "Gaming-system feed"


class DeviceToken(models.Model):
    """An eHost kiosk, the app gateway or the gaming-system feed of one property. The kind
    decides what the token may do (the app's "actively playing" rule must not be sidestepped
    by calling itself an eHost). Only the SHA-256 of the token is kept."""

    property = models.ForeignKey(Property, on_delete=models.PROTECT, related_name="devices")
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=8, choices=DeviceKind.choices, default=DeviceKind.EHOST)
    key_prefix = models.CharField(max_length=8, help_text="The first characters, to tell tokens apart.")
    key_sha256 = models.CharField(max_length=64, unique=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["property", "name"]
        constraints = [models.UniqueConstraint(fields=["property", "name"], name="device_name_per_property")]

    def __str__(self) -> str:
        return f"{self.name} ({self.property.code})"

    @staticmethod
    def hash(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()


class Activation(models.Model):
    """A member's tickets in one draw: a contiguous range of serials, activated once."""

    # No index of its own: activation_first_serial's (draw_id, first_serial) leads with it, and
    # each activation writes its index entries under the draw's row lock (issue 17).
    draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="activations", db_index=False)
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="activations")
    channel = models.CharField(max_length=8, choices=Channel.choices)
    first_serial = models.PositiveBigIntegerField()
    last_serial = models.PositiveBigIntegerField()
    tickets = models.PositiveIntegerField()
    breakdown = models.JSONField(default=dict)
    receipt_number = models.CharField(max_length=32, unique=True)
    activated_at = models.DateTimeField()
    device = models.ForeignKey(DeviceToken, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["draw", "first_serial"]
        constraints = [
            # One activation per member, and besides it at most one range of carried entries.
            models.UniqueConstraint(
                fields=["draw", "member"],
                condition=~Q(channel="carried"),
                name="one_activation_per_member_per_draw",
            ),
            models.UniqueConstraint(
                fields=["draw", "member"], condition=Q(channel="carried"), name="one_carried_range_per_member_per_draw"
            ),
            # The owner of a drawn serial is found with an index range lookup on this.
            models.UniqueConstraint(fields=["draw", "first_serial"], name="activation_first_serial"),
            models.CheckConstraint(
                condition=Q(last_serial=models.F("first_serial") + models.F("tickets") - 1) & Q(tickets__gt=0),
                name="activation_serial_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.receipt_number}: {self.first_serial}-{self.last_serial}"

    def serials(self) -> str:
        """ "36-40" (with an en dash), or "36" for a single ticket, for people."""
        if self.first_serial == self.last_serial:
            return str(self.first_serial)
        return f"{self.first_serial}\N{EN DASH}{self.last_serial}"


class DrawStanding(models.Model):
    """The draw page's allocation overview (members, tickets available, the largest
    allocations), computed in the background: the statement takes seconds for a property of a
    million members, so the page reads this row instead. Derived data, recomputed by the tick
    after each points import and every few minutes while the draw takes tickets (see
    draws.services.draw_standings_refresh_due); it changes no business state, so it is not audited."""

    draw = models.OneToOneField(Draw, primary_key=True, on_delete=models.CASCADE, related_name="standing")
    computed_at = models.DateTimeField(null=True, blank=True)
    requested_at = models.DateTimeField(null=True, blank=True, help_text="Queued for recounting since.")
    members = models.PositiveIntegerField(default=0)
    members_with_tickets = models.PositiveIntegerField(default=0)
    tickets = models.PositiveBigIntegerField(default=0)
    # The largest allocations: [{"member_id", "points", "earned", "free", "bonus", "capped", "tickets"}].
    top = models.JSONField(default=list)
    error = models.TextField(blank=True, help_text="Why the last count failed (e.g. an unreadable rule).")

    def __str__(self) -> str:
        return f"Standing of {self.draw_id} at {self.computed_at}"


class PickOutcome(models.TextChoices):
    """DRAWS.md §3."""

    REDRAW_ALREADY_WINNER = "redraw_already_winner", "Redraw: already a winner of this draw"
    REDRAW_ALREADY_DRAWN = "redraw_already_drawn", "Redraw: already picked in this draw (one selection per draw)"
    REDRAW_WON_IN_SCOPE = "redraw_won_in_scope", "Redraw: already won within the promotion's win-once rule"
    REDRAW_INELIGIBLE = "redraw_ineligible", "Redraw: not eligible any more"
    REDRAW_IS_PROXY = "redraw_is_proxy", "Redraw: the proxy of another participant in this draw"
    PRESENT = "present", "Present: a winner"
    PROXY_PRESENT = "proxy_present", "Proxy present: a winner"
    DECLINED = "declined", "Declined to be present: a winner, to be contacted"
    NO_SHOW = "no_show", "No-show: redraw"
    DISQUALIFIED = "disqualified", "Disqualified: redraw"


WINNING_OUTCOMES = frozenset({PickOutcome.PRESENT, PickOutcome.PROXY_PRESENT, PickOutcome.DECLINED})
AUTOMATIC_OUTCOMES = frozenset(
    {
        PickOutcome.REDRAW_ALREADY_WINNER,
        PickOutcome.REDRAW_ALREADY_DRAWN,
        PickOutcome.REDRAW_WON_IN_SCOPE,
        PickOutcome.REDRAW_INELIGIBLE,
        PickOutcome.REDRAW_IS_PROXY,
    }
)


class RapsPool(models.TextChoices):
    SLOT = "slot", "Slots"
    TABLE = "table", "Tables"


class DrawPick(models.Model):
    """One selection of a draw, in order, with its outcome. Append-only: the database refuses to
    delete a pick or change one, except to record the outcome of a pick that has none yet
    (migration 0008). An automatic redraw gets its outcome in the same insert."""

    draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="picks")
    seq = models.PositiveIntegerField(help_text="Order of the pick among all of the draw's picks (1, 2, ...).")
    pool = models.CharField(max_length=5, choices=RapsPool.choices, blank=True, help_text="RAPS only.")
    k = models.PositiveIntegerField(help_text="DRAWS.md's k: per draw, or per pool in a RAPS session.")
    serial = models.PositiveBigIntegerField(help_text="The ticket serial, or the row of the RAPS pool.")
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    card_number = models.CharField(max_length=20, help_text="As it was when picked, for the record.")
    picked_at = models.DateTimeField()
    picked_by = models.CharField(max_length=150, help_text="Who conducted the pick, or system:tick.")
    outcome = models.CharField(max_length=24, choices=PickOutcome.choices, blank=True)
    reason = models.TextField(blank=True)
    outcome_at = models.DateTimeField(null=True, blank=True)
    outcome_by = models.CharField(max_length=150, blank=True)
    # Recorded with the outcome (issue 13): what the conductor saw of a present winner, the
    # nominee of a proxy present, a declined finalist's audience stand-in (DayTime PlayTime).
    id_type_seen = models.CharField(max_length=20, choices=IdType.choices, blank=True)
    receipt_seen = models.BooleanField(default=False)
    nominee_name = models.CharField(max_length=121, blank=True)
    nomination_id = models.PositiveBigIntegerField(null=True, blank=True, help_text="The proxy nomination used.")
    stand_in_name = models.CharField(
        max_length=121, blank=True, help_text="A declined finalist's audience stand-in, who wins nothing."
    )

    class Meta:
        ordering = ["draw", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["draw", "seq"], name="pick_seq_per_draw"),
            models.UniqueConstraint(fields=["draw", "pool", "k"], name="pick_k_per_draw_pool"),
            # At most one pick waits for its outcome: the next is made only once it is decided.
            models.UniqueConstraint(fields=["draw"], condition=Q(outcome=""), name="one_pick_awaiting_outcome"),
        ]

    def __str__(self) -> str:
        return f"Pick {self.k} of {self.draw_id}: {self.serial}"

    def is_winner(self) -> bool:
        return self.outcome in WINNING_OUTCOMES

    def picked_by_display(self) -> str:
        return actor_words(self.picked_by)

    def awaits_outcome(self) -> bool:
        return self.outcome == ""

    def window_ends_at(self):
        """When the winner's presentation window closes: the stored time of the pick is the
        authority (the draw's presentation_seconds, copied from the series at the start)."""
        return self.picked_at + dt.timedelta(seconds=self.draw.presentation_seconds)

    def seconds_left(self, now) -> int:
        """Whole seconds of the presentation window left at `now` (0 once it has passed)."""
        return max(0, math.ceil((self.window_ends_at() - now).total_seconds()))


class RapsList(models.Model):
    """The active-player list of a RAPS session, as uploaded, with the canonical list of the rows
    that qualify (DRAWS.md §5). Replaced whole by a new upload until the first pick."""

    draw = models.OneToOneField(Draw, on_delete=models.PROTECT, related_name="raps_list")
    file_name = models.CharField(max_length=200)
    uploaded_at = models.DateTimeField()
    uploaded_by = models.CharField(max_length=150)
    rows_read = models.PositiveIntegerField()
    min_spend_cents = models.PositiveBigIntegerField()
    excluded_devices = models.JSONField(default=list, help_text='["slot:A17", "table:BJ3"]')
    slot_quota = models.PositiveSmallIntegerField()
    table_quota = models.PositiveSmallIntegerField()
    left_out = models.JSONField(default=dict, help_text="Rows that do not qualify, counted by reason.")
    canonical = models.TextField(help_text="The canonical list: exactly the bytes hashed (UTF-8).")
    list_sha256 = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"Active players of {self.draw}"

    def quota(self, pool: str) -> int:
        return self.slot_quota if pool == RapsPool.SLOT else self.table_quota


class RapsEntry(models.Model):
    """One qualifying row of a RAPS list, numbered within its pool in canonical order."""

    raps_list = models.ForeignKey(RapsList, on_delete=models.CASCADE, related_name="entries")
    pool = models.CharField(max_length=5, choices=RapsPool.choices)
    row = models.PositiveIntegerField()
    card_number = models.CharField(max_length=20)
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    device_id = models.CharField(max_length=40)
    spend_cents = models.PositiveBigIntegerField()

    class Meta:
        ordering = ["raps_list", "pool", "row"]
        constraints = [models.UniqueConstraint(fields=["raps_list", "pool", "row"], name="raps_row_per_pool")]


class CommitmentStep(models.TextChoices):
    ENTRIES_FROZEN = "entries_frozen", "Entries frozen"
    RAPS_LIST = "raps_list", "Active-player list uploaded"


class DrawCommitment(models.Model):
    """What a draw committed to, as the database saw it: one row each time a draw's entry-list
    hash or seed hash is set or replaced (the freeze; each RAPS upload). Append-only and written
    only by a trigger on draws_draw (migration 0010): the application's database role may only
    read it, so Verify can hold the record against it (draws.commitments). Nothing writes it on
    SQLite (`make run` without PostgreSQL)."""

    draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="commitments")
    step = models.CharField(max_length=16, choices=CommitmentStep.choices)
    entries_sha256 = models.CharField(max_length=64)
    seed_sha256 = models.CharField(max_length=64)
    recorded_at = models.DateTimeField(help_text="The database's clock when the row was written.")
    db_user = models.CharField(max_length=150, help_text="The database login that wrote the draw.")

    # core.dbroles: the application's database role may only read this table.
    app_role_privileges = ("SELECT",)

    class Meta:
        ordering = ["draw", "id"]

    def __str__(self) -> str:
        return f"Commitment of draw {self.draw_id} at {self.recorded_at}"
