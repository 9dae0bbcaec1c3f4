"""What a draw is now and what may happen to it next: the one home of the draw's rules
(issue 13, Part 0). Services ask it before they change a draw (under its lock), pages ask it
before they offer a button, templates read its words, so a page never offers what a service
refuses and no caller compares status strings.

    scheduled ─(a ticket window open)→ OPEN ─(between windows)→ BEFORE_WINDOW ─→ …
        ─(the last window closed; the tick freezes the entries)→ AWAITING_START (status closed)
        ─(Start, or the tick at the draw time)→ RUNNING ─(its winners, or ended short)→ DRAWN
    scheduled or closed ─(Cancel)→ CANCELLED
"""

import datetime as dt
import enum
from dataclasses import dataclass
from functools import cached_property

from django.utils import timezone

from core.formats import local_datetime
from draws.models import Draw, DrawStatus
from draws.start_checks import start_check_refusal
from promotions.models import DrawMethod


class DrawPhase(enum.StrEnum):
    OPEN = "open"  # scheduled, a ticket window is open now
    BEFORE_WINDOW = "before_window"  # scheduled, a ticket window opens later (the first, or the next)
    AWAITING_START = "awaiting_start"  # every ticket window has closed: entries frozen (or about to be)
    RUNNING = "running"
    DRAWN = "drawn"
    CANCELLED = "cancelled"


BADGE_STYLES = {
    DrawStatus.CANCELLED: "text-bg-danger",
    DrawStatus.DRAWN: "text-bg-success",
    DrawStatus.RUNNING: "text-bg-warning",
    DrawStatus.CLOSED: "text-bg-secondary",
    DrawStatus.SCHEDULED: "text-bg-primary",
}


@dataclass(frozen=True)
class DrawState:
    """The draw at `at`, or at the moment a question first needs the time (`now`). Cheap to make:
    each answer is worked out when first read (the ticket windows, the activations) and kept.
    Every `*_refusal` is the reason in words, or None when the move is allowed."""

    draw: Draw
    at: dt.datetime | None  # None: the moment the first question that needs a time is asked
    status: str  # the status this state was read from (Draw.state() keeps one per status)

    @cached_property
    def now(self) -> dt.datetime:
        """`at`, or the clock read when first needed: a question of status alone (complete? the
        seed published?) reads no clock, so its answer cannot depend on the hour."""
        return self.at if self.at is not None else timezone.now()

    # --- What the draw is --------------------------------------------------------------

    @cached_property
    def _windows(self) -> list:
        return list(self.draw.windows.all())  # uses prefetched windows when there are some

    @cached_property
    def phase(self) -> DrawPhase:
        if self.status == DrawStatus.SCHEDULED:
            if any(w.contains(self.now) for w in self._windows):
                return DrawPhase.OPEN
            if any(w.opens_at > self.now for w in self._windows):
                return DrawPhase.BEFORE_WINDOW
            return DrawPhase.AWAITING_START
        return {
            DrawStatus.CLOSED: DrawPhase.AWAITING_START,
            DrawStatus.RUNNING: DrawPhase.RUNNING,
            DrawStatus.DRAWN: DrawPhase.DRAWN,
            DrawStatus.CANCELLED: DrawPhase.CANCELLED,
        }[self.status]

    @property
    def is_cancelled(self) -> bool:
        return self.status == DrawStatus.CANCELLED

    @property
    def is_complete(self) -> bool:
        return self.status == DrawStatus.DRAWN

    @property
    def is_running(self) -> bool:
        return self.status == DrawStatus.RUNNING

    @property
    def has_started(self) -> bool:
        """Running or drawn: the picks are on record and the proxy and decline registers stay
        as they were (the draw itself waits for them to close)."""
        return self.status in (DrawStatus.RUNNING, DrawStatus.DRAWN) or self.draw.started_at is not None

    @property
    def before_start(self) -> bool:
        """Scheduled or closed: not started and not cancelled."""
        return self.status in (DrawStatus.SCHEDULED, DrawStatus.CLOSED)

    @property
    def entries_frozen(self) -> bool:
        """The entry list is hashed and the seed committed (the tick, Start, or a RAPS upload)."""
        return self.status != DrawStatus.SCHEDULED and self.status != DrawStatus.CANCELLED

    @property
    def seed_revealed(self) -> bool:
        """DRAWS.md §1: the seed is published once the draw is complete."""
        return self.is_complete

    # --- Words for pages ---------------------------------------------------------------

    @property
    def badge(self) -> str:
        return DrawStatus(self.status).label

    @property
    def badge_style(self) -> str:
        return BADGE_STYLES[self.status]

    @property
    def stage_phase(self) -> str:
        """The stage screen's phase: "waiting", "drawing", "complete" or "cancelled"."""
        words = {DrawStatus.RUNNING: "drawing", DrawStatus.DRAWN: "complete", DrawStatus.CANCELLED: "cancelled"}
        return words.get(self.status, "waiting")

    # --- What may happen next ----------------------------------------------------------

    @cached_property
    def tickets_refusal(self) -> str | None:
        """Why tickets cannot be activated now (the window or the status), or None while a
        window is open. The promotion and the method are the services' (draw_tickets_refusal)."""
        name = self.draw.name
        if self.is_cancelled:
            return f"{name} is cancelled."
        if self.phase == DrawPhase.OPEN:
            return None
        if self.phase == DrawPhase.BEFORE_WINDOW:
            upcoming = min(w.opens_at for w in self._windows if w.opens_at > self.now)
            return f"Tickets for {name} can be activated from {local_datetime(upcoming)}."
        closed = max(w.closes_at for w in self._windows)
        return f"Ticket activation for {name} closed at {local_datetime(closed)}."

    @property
    def move_refusal(self) -> str | None:
        """Once tickets are out, their receipts name the draw's time: only a scheduled draw with
        no activation yet moves."""
        if self.status != DrawStatus.SCHEDULED or self.draw.activations.exists():
            return "Only a scheduled draw with no activated tickets yet can be moved."
        return None

    @property
    def cancel_refusal(self) -> str | None:
        if self.status in (DrawStatus.DRAWN, DrawStatus.CANCELLED):
            return f"This draw is already {self.badge.lower()}."
        if self.is_running:
            return "This draw has started: its picks are on record. End it with the reason instead."
        return None

    @property
    def start_refusal(self) -> str | None:
        """Why the draw cannot be started now, or None (the Start button and draws.engine)."""
        draw = self.draw
        if self.is_cancelled:
            return "This draw is cancelled."
        if self.has_started:
            return f"This draw was started by {draw.started_by_display()} at {local_datetime(draw.started_at)}."
        if draw.tickets_close_at > self.now:
            return (
                f"Entries are still open until {local_datetime(draw.tickets_close_at)}: "
                "the draw can start once they are frozen."
            )
        if draw.method == DrawMethod.RAPS and not hasattr(draw, "raps_list"):
            return "Upload the active-player list first: the session draws from it."
        if draw.series.winners_per_draw < 1:
            return "The series wants no winners: set its number of winners first."
        return start_check_refusal(draw)  # the apps above draws: e.g. a prize board's blank setting

    @property
    def starts_early(self) -> bool:
        """Starting now would start before the draw time: Start then needs a reason."""
        return self.before_start and self.now < self.draw.scheduled_at

    @property
    def may_pick(self) -> bool:
        """The system makes the next pick itself (electronic and RAPS draws, while running)."""
        return self.is_running and self.draw.method != DrawMethod.MANUAL

    @property
    def key_serial_refusal(self) -> str | None:
        if self.draw.method != DrawMethod.MANUAL:
            return "Serials are keyed only for manual draws."
        if not self.is_running:
            return "Start the draw before keying serials."
        return None

    @property
    def may_record_outcome(self) -> bool:
        return self.is_running

    @property
    def witness_refusal(self) -> str | None:
        if not self.is_running:
            return "The witness is named while the draw runs."
        if self.draw.witness_name:
            return f"The witness is already recorded: {self.draw.witness_name}."
        return None

    @property
    def end_short_refusal(self) -> str | None:
        return None if self.is_running else "Only a running draw can be ended."

    @property
    def may_verify(self) -> bool:
        """A complete draw's record can be verified (its seed is revealed)."""
        return self.is_complete

    @property
    def has_record(self) -> bool:
        """The draw record (and its export) exists from the start of the draw."""
        return self.draw.started_at is not None

    def next_action(self, *, awaiting_k: int | None = None) -> str:
        """What the manager does next, in words (`awaiting_k`: the pick awaiting its outcome)."""
        draw = self.draw
        if self.is_cancelled:
            return "Nothing: the draw is cancelled."
        if self.is_complete:
            return f"Nothing: complete at {local_datetime(draw.completed_at)}."
        if self.is_running:
            if awaiting_k is not None:
                return f"Record the outcome of pick {awaiting_k} on the draw page."
            if draw.method == DrawMethod.MANUAL:
                return "Key the serial of the next ticket drawn from the bin."
            return "The next pick is being made: open the draw page."
        if self.start_refusal:
            return self.start_refusal
        if draw.method == DrawMethod.ELECTRONIC and draw.scheduled_at > self.now:
            return f"Ready: the scheduler starts it at {local_datetime(draw.scheduled_at)}, or press Start."
        return "Ready: press Start on the draw page."
