"""Draw night (issue 13, items 8 and 9): what the stage screen shows of a draw, and the manager's
list of the evening's draws. Read-only: nothing here changes a draw.

The stage screen is on a big screen in front of the patrons: it shows a winner as first name,
last name's initial and the card's last four, and never an ID number, an exclusion or a reason.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import Count, Prefetch, Sum
from django.utils import timezone

from draws.models import WINNING_OUTCOMES, Draw, DrawPick, PickOutcome
from draws.registers import RegisterCounts
from draws.registers import counts as register_counts

# The presentation window when the series does not say (the seeds: 90 seconds).

# What the game on stage shows (issue 14, item 8): the app above (prizes) registers a function
# giving, for a draw, the lines the audience reads (the ball drawn, the slot opened, the prize
# won), in a bounded number of queries and without personal data. draws never imports prizes.
_game_words = []


def register_game_words(function) -> None:
    _game_words.append(function)


def game_words(draw: Draw) -> list[str]:
    return [words for function in _game_words for words in function(draw)]


# What the audience reads next to a confirmed winner.
STAGE_OUTCOME_WORDS = {
    PickOutcome.PRESENT: "Winner",
    PickOutcome.PROXY_PRESENT: "Winner, represented by a proxy",
    PickOutcome.DECLINED: "Winner, to be contacted",
}


def stage_name(pick: DrawPick) -> str:
    """ "Thandi M." for the big screen."""
    member = pick.member
    initial = member.last_name.strip()[:1].upper()
    return f"{member.first_name.strip()} {initial}." if initial else member.first_name.strip()


def card_last_four(card_number: str) -> str:
    return f"…{card_number[-4:]}"


@dataclass
class StagePick:
    k: int
    name: str
    card: str
    words: str = ""
    picked_at: dt.datetime | None = None
    deadline: dt.datetime | None = None

    @property
    def deadline_ms(self) -> int | None:
        """The end of the presentation window, for the browser's countdown (ms since the epoch)."""
        return int(self.deadline.timestamp() * 1000) if self.deadline else None


@dataclass
class StageState:
    draw: Draw
    phase: str  # "waiting", "drawing", "complete", "cancelled"
    prize: str
    current: StagePick | None
    winners: list[StagePick] = field(default_factory=list)
    seconds: int = 90
    due: bool = False  # the draw's time has come (it starts any moment)
    game: list[str] = field(default_factory=list)  # the game on stage, as the audience reads it

    @property
    def version(self) -> str:
        """Changes whenever what the screen shows changes (the script redraws only then)."""
        current = f"{self.current.k}" if self.current else "-"
        due = int(self.due)
        game = len("|".join(self.game)), len(self.game)  # a new event or prize lengthens it
        return f"{self.phase}:{self.draw.status}:{current}:{len(self.winners)}:{self.draw.entries_count}:{due}:{game}"


def stage_draw(draw_id: int) -> Draw:
    return Draw.objects.select_related("series", "property").get(pk=draw_id)


def stage_state(draw: Draw) -> StageState:
    """What the big screen shows now: one query for the picks (with their members)."""
    seconds = draw.presentation_seconds  # the series' window, copied at the start
    picks = list(draw.picks.select_related("member").order_by("seq"))
    winners = [
        StagePick(k=p.k, name=stage_name(p), card=card_last_four(p.card_number), words=STAGE_OUTCOME_WORDS[p.outcome])
        for p in picks
        if p.outcome in WINNING_OUTCOMES
    ]
    awaiting = next((p for p in picks if not p.outcome), None)
    state = draw.state(timezone.now())
    current = None
    if awaiting is not None and state.is_running:
        current = StagePick(
            k=awaiting.k,
            name=stage_name(awaiting),
            card=card_last_four(awaiting.card_number),
            picked_at=awaiting.picked_at,
            deadline=awaiting.window_ends_at(),
        )
    prize = str(getattr(draw.series, "prize_text", "") or "")
    due = draw.scheduled_at <= state.now
    return StageState(
        draw=draw,
        phase=state.stage_phase,
        prize=prize,
        current=current,
        winners=winners,
        seconds=seconds,
        due=due,
        game=game_words(draw) if state.has_started else [],
    )


# --- Tonight -------------------------------------------------------------------------------


def evening(now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """The evening `now` belongs to, Johannesburg time: 12:00 to 06:00 the next morning (after
    midnight, until 06:00, still the evening before)."""
    local = timezone.localtime(now)
    day = local.date() if local.hour >= 6 else local.date() - dt.timedelta(days=1)
    start = timezone.make_aware(dt.datetime.combine(day, dt.time(12, 0)))
    return start, start + dt.timedelta(hours=18)


@dataclass
class TonightRow:
    draw: Draw
    entries: int
    tickets: int
    next_action: str
    registers: RegisterCounts = field(default_factory=RegisterCounts)
    is_next: bool = False


def _entries(draw: Draw) -> tuple[int, int]:
    if draw.entries_frozen_at:
        return draw.entries_count, draw.tickets_total
    return draw.entrants or 0, draw.tickets or 0


def next_action(draw: Draw, now: dt.datetime) -> str:
    """What the manager does next for this draw, in words (the draw's state says it; the
    awaiting picks are prefetched by tonight_rows)."""
    state = draw.state(now)
    awaiting = None
    if state.is_running:
        picks = draw.awaiting_picks if hasattr(draw, "awaiting_picks") else list(draw.picks.filter(outcome=""))
        awaiting = picks[0].k if picks else None
    return state.next_action(awaiting_k=awaiting)


def tonight_rows(property_ids: list[int] | None, now: dt.datetime) -> tuple[tuple[dt.datetime, dt.datetime], list]:
    """Every draw of the evening at these properties (None: all), in time order, with the
    entries and the next action; the first one still to start is marked `is_next`."""
    start, end = evening(now)
    draws = (
        Draw.objects.filter(scheduled_at__gte=start, scheduled_at__lt=end)
        .select_related("series", "property", "raps_list")
        .annotate(entrants=Count("activations__member", distinct=True), tickets=Sum("activations__tickets"))
        .prefetch_related(Prefetch("picks", queryset=DrawPick.objects.filter(outcome=""), to_attr="awaiting_picks"))
        .order_by("scheduled_at", "property__name", "id")
    )
    if property_ids is not None:
        draws = draws.filter(property_id__in=property_ids)
    draws = list(draws)
    counts = register_counts(draw.pk for draw in draws)
    rows = []
    for draw in draws:
        entries, tickets = _entries(draw)
        row = TonightRow(draw=draw, entries=entries, tickets=tickets, next_action=next_action(draw, now))
        row.registers = counts.get(draw.pk, row.registers)
        rows.append(row)
    upcoming = [r for r in rows if r.draw.state(now).before_start]
    if upcoming:
        upcoming[0].is_next = True
    return (start, end), rows
