"""The letters' reports (issue 15, items 8 and 10): letters by state per promotion and property,
the cash desk's payouts of a day, and the winners who still have to collect. Set-based: each
report is a fixed number of queries however many letters, payouts or winners there are.

Time is the authority, as in prizes.letter_states: a letter still stored as issued whose expiry
has passed counts as expired here, whatever the tick did.
"""

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum
from django.utils import timezone

from draws.models import WINNING_OUTCOMES, DrawPick, DrawStatus, PickOutcome
from prizes.letter_models import LETTER_KINDS, LetterLine, LetterStatus, Payout, PayoutPlace, PrizeLetter
from prizes.letter_states import days_left_words
from prizes.lines import LineKind, LineSource
from prizes.models import KIND_LABELS

# The cashier's start page and these reports agree: a letter "expires soon" while its last day
# is today or one of the next 3 days.
EXPIRING_DAYS = 3
SUMMARY_KINDS = (LineKind.CASH, LineKind.PLAY, LineKind.VEHICLE, LineKind.OTHER)


def start_of_day(day: dt.date) -> dt.datetime:
    """Midnight beginning `day` in Johannesburg (stored times are UTC)."""
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def expiring_by(now: dt.datetime) -> dt.datetime:
    """A live letter expiring at this instant or before has EXPIRING_DAYS days left or fewer
    (its last day ends at midnight; this is the midnight ending the day EXPIRING_DAYS ahead)."""
    return start_of_day(timezone.localtime(now).date() + dt.timedelta(days=EXPIRING_DAYS + 1))


def _in(queryset: QuerySet, field_name: str, ids: list[int] | None) -> QuerySet:
    """The rows of `ids`' properties; None: every property (a login without a staff profile)."""
    return queryset if ids is None else queryset.filter(**{f"{field_name}__in": ids})


# --- Letters by state per promotion and property ------------------------------------------------


@dataclass
class StateFigures:
    letters: int = 0
    amount_cents: int = 0


@dataclass
class LetterCountsRow:
    promotion_id: int
    promotion: str
    property_id: int
    property: str
    outstanding: StateFigures = field(default_factory=StateFigures)  # may be paid now (incl. expiring)
    expiring: StateFigures = field(default_factory=StateFigures)  # of those, EXPIRING_DAYS days left or fewer
    paid: StateFigures = field(default_factory=StateFigures)
    expired: StateFigures = field(default_factory=StateFigures)  # stored expired, or past expiry unpaid
    voided: StateFigures = field(default_factory=StateFigures)


STATE_NAMES = ("outstanding", "expiring", "paid", "expired", "voided")


def _state_filters(now: dt.datetime) -> dict[str, Q]:
    """Each state's condition on a LetterLine's letter (prefix "letter__")."""
    issued = Q(letter__status=LetterStatus.ISSUED)
    live = issued & Q(letter__expires_at__gt=now)
    return {
        "outstanding": live,
        "expiring": live & Q(letter__expires_at__lte=expiring_by(now)),
        "paid": Q(letter__status=LetterStatus.PAID),
        "expired": Q(letter__status=LetterStatus.EXPIRED) | (issued & Q(letter__expires_at__lte=now)),
        "voided": Q(letter__status=LetterStatus.VOIDED),
    }


def letter_counts(
    *, now: dt.datetime, property_ids: list[int] | None = None, promotion_id: int | None = None
) -> tuple[list[LetterCountsRow], LetterCountsRow]:
    """Letters and their amounts (the sum of their lines) by state, per promotion and property,
    and the total row: one query."""
    lines = _in(LetterLine.objects.all(), "letter__property_id", property_ids)
    if promotion_id:
        lines = lines.filter(letter__draw__series__promotion_id=promotion_id)
    aggregates = {}
    for name, condition in _state_filters(now).items():
        aggregates[f"{name}_n"] = Count("letter_id", filter=condition, distinct=True)
        aggregates[f"{name}_cents"] = Sum("prize_line__amount_cents", filter=condition, default=0)
    grouped = (
        lines.values(
            "letter__draw__series__promotion_id",
            "letter__draw__series__promotion__name",
            "letter__property_id",
            "letter__property__name",
        )
        .annotate(**aggregates)
        .order_by("letter__draw__series__promotion__name", "letter__property__name")
    )
    rows, total = [], LetterCountsRow(0, "In all", 0, "")
    for found in grouped:
        row = LetterCountsRow(
            found["letter__draw__series__promotion_id"],
            found["letter__draw__series__promotion__name"],
            found["letter__property_id"],
            found["letter__property__name"],
        )
        for name in STATE_NAMES:
            figures = StateFigures(found[f"{name}_n"], found[f"{name}_cents"])
            setattr(row, name, figures)
            kept = getattr(total, name)
            kept.letters += figures.letters
            kept.amount_cents += figures.amount_cents
        rows.append(row)
    return rows, total


# --- The cash desk's payouts of a day -----------------------------------------------------------


@dataclass
class KindFigures:
    kind: str
    label: str
    payouts: int = 0
    amount_cents: int = 0


@dataclass
class CashierFigures:
    paid_by: str
    payouts: int = 0
    cash_cents: int = 0
    play_cents: int = 0
    other_cents: int = 0  # a vehicle's stated value, other prizes

    @property
    def total_cents(self) -> int:
        return self.cash_cents + self.play_cents + self.other_cents


@dataclass
class PayoutSummary:
    day: dt.date
    property_ids: list[int] | None
    by_kind: list[KindFigures]
    by_cashier: list[CashierFigures]
    payouts: list[Payout]  # each payout of the day, in the order paid

    @property
    def count(self) -> int:
        return len(self.payouts)

    def _kind(self, kind: str) -> KindFigures:
        return next(k for k in self.by_kind if k.kind == kind)

    @property
    def cash_cents(self) -> int:
        return self._kind(LineKind.CASH).amount_cents

    @property
    def play_cents(self) -> int:
        return self._kind(LineKind.PLAY).amount_cents

    @property
    def total_cents(self) -> int:
        return sum(k.amount_cents for k in self.by_kind)


def day_payouts(*, day: dt.date, property_ids: list[int] | None) -> QuerySet:
    """The cash desk's payouts of a Johannesburg day (midnight to midnight), at the properties."""
    payouts = Payout.objects.filter(
        where=PayoutPlace.CASH_DESK,
        paid_at__gte=start_of_day(day),
        paid_at__lt=start_of_day(day + dt.timedelta(days=1)),
    )
    return _in(payouts, "property_id", property_ids)


def payout_summary(*, day: dt.date, property_ids: list[int] | None) -> PayoutSummary:
    """The day's payouts by kind and by cashier (cash and +Play apart), with each payout: one query
    (the day's payouts are a few hundred at most, so the sums are made from the rows read)."""
    payouts = list(
        day_payouts(day=day, property_ids=property_ids)
        .select_related("letter", "prize_line", "prize_line__member", "property")
        .order_by("paid_at", "id")
    )
    by_kind = {kind: KindFigures(kind, KIND_LABELS[kind]) for kind in SUMMARY_KINDS}
    by_cashier: dict[str, CashierFigures] = {}
    for payout in payouts:
        kind = by_kind.setdefault(payout.kind, KindFigures(payout.kind, KIND_LABELS.get(payout.kind, payout.kind)))
        kind.payouts += 1
        kind.amount_cents += payout.amount_cents
        cashier = by_cashier.setdefault(payout.paid_by, CashierFigures(payout.paid_by))
        cashier.payouts += 1
        if payout.kind == LineKind.CASH:
            cashier.cash_cents += payout.amount_cents
        elif payout.kind == LineKind.PLAY:
            cashier.play_cents += payout.amount_cents
        else:
            cashier.other_cents += payout.amount_cents
    return PayoutSummary(
        day=day,
        property_ids=property_ids,
        by_kind=list(by_kind.values()),
        by_cashier=sorted(by_cashier.values(), key=lambda c: c.paid_by.lower()),
        payouts=payouts,
    )


# --- Winners who have not collected -------------------------------------------------------------


def collectable_lines_q(prefix: str = "") -> Q:
    """A prize line the winner still collects by letter: money paid by letter (never a place or
    entries), not a correction nor corrected, not paid (prizes.letter_selectors.letterable_lines,
    without its "not on a live letter": an issued letter's lines are still to collect)."""
    return Q(
        **{
            f"{prefix}kind__in": LETTER_KINDS,
            f"{prefix}amount_cents__gt": 0,
            f"{prefix}reversed_by__isnull": True,
            f"{prefix}payout__isnull": True,
        }
    ) & ~Q(**{f"{prefix}source": LineSource.REVERSAL})


OUTCOME_WORDS = {
    PickOutcome.PRESENT: "Was present",
    PickOutcome.PROXY_PRESENT: "Represented by a proxy: collects in person",
    PickOutcome.DECLINED: "Declined to be present: collects in person",
}


@dataclass
class Uncollected:
    pick: DrawPick
    expires_at: dt.datetime
    days_left: int
    days_left_words: str
    cash_cents: int
    play_cents: int
    other_cents: int
    letter: PrizeLetter | None  # the issued letter, still to be paid; None: no letter yet

    @property
    def total_cents(self) -> int:
        return self.cash_cents + self.play_cents + self.other_cents

    @property
    def in_person_words(self) -> str:
        return OUTCOME_WORDS.get(self.pick.outcome, "")

    @property
    def represented_or_declined(self) -> bool:
        return self.pick.outcome in (PickOutcome.PROXY_PRESENT, PickOutcome.DECLINED)


# No seed gives more than 15 collection days; this bound only narrows the query (each row's own
# expiry, from its promotion's days, decides).
LONGEST_COLLECTION_DAYS = 366


def uncollected_winners(*, now: dt.datetime, property_ids: list[int] | None) -> list[Uncollected]:
    """Every winner of a complete draw (present, represented by a proxy or declined) with a prize
    line still to collect by letter and no paid letter, whose collection time has not run out;
    the most urgent first. Two queries: the winners with their sums, their issued letters."""
    collectable = collectable_lines_q("prize_lines__")
    paid_letter = PrizeLetter.objects.filter(pick=OuterRef("pk"), status=LetterStatus.PAID)
    picks = (
        _in(DrawPick.objects.all(), "draw__property_id", property_ids)
        .filter(
            outcome__in=WINNING_OUTCOMES,
            draw__status=DrawStatus.DRAWN,
            draw__series__paid_at_device=False,
            draw__scheduled_at__gte=now - dt.timedelta(days=LONGEST_COLLECTION_DAYS + 1),
        )
        .exclude(Exists(paid_letter))
        .annotate(
            cash_cents=Sum("prize_lines__amount_cents", filter=collectable & Q(prize_lines__kind=LineKind.CASH)),
            play_cents=Sum("prize_lines__amount_cents", filter=collectable & Q(prize_lines__kind=LineKind.PLAY)),
            other_cents=Sum(
                "prize_lines__amount_cents",
                filter=collectable & ~Q(prize_lines__kind__in=[LineKind.CASH, LineKind.PLAY]),
            ),
        )
        .filter(Q(cash_cents__gt=0) | Q(play_cents__gt=0) | Q(other_cents__gt=0))
        .select_related("member", "draw", "draw__series", "draw__series__promotion", "draw__property")
    )
    found = []
    for pick in picks:
        expires_at = pick.draw.series.promotion.collection_expires_at(pick.draw.scheduled_at)
        if now >= expires_at:
            continue
        last_day = timezone.localtime(expires_at - dt.timedelta(microseconds=1)).date()
        found.append(
            Uncollected(
                pick=pick,
                expires_at=expires_at,
                days_left=(last_day - timezone.localtime(now).date()).days,
                days_left_words=days_left_words(expires_at, now),
                cash_cents=pick.cash_cents or 0,
                play_cents=pick.play_cents or 0,
                other_cents=pick.other_cents or 0,
                letter=None,
            )
        )
    if found:
        letters = PrizeLetter.objects.filter(
            pick__in=[row.pick.pk for row in found], status=LetterStatus.ISSUED, expires_at__gt=now
        )
        by_pick = {letter.pick_id: letter for letter in letters}
        for row in found:
            row.letter = by_pick.get(row.pick.pk)
    found.sort(key=lambda row: (row.expires_at, row.pick.draw.scheduled_at, row.pick.seq))
    return found
