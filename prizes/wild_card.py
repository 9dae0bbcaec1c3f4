"""Royal Flush wild cards (r66-r68, PRIZES.md A14): after 24 November's month-end bins, 2 more
Gold Reef City finalists. On stage a manual draw of the numbers 1 to 5 picks a bin, then an
electronic pick from that bin's entries.

The seed makes them two one-winner draws (18h30, 18h35), so that each draw's entry list is one
bin's and an auditor re-implements it like any other (DRAWS.md: one entry list per draw):
- the conductor records the number drawn by hand before the draw starts (wild_card_bin_record,
  audited): 1 to 5, not the other wild card draw's number, never once the entries are frozen;
- the Start is refused in words until it is recorded (wild_card_start_refusal, registered with
  draws.start_checks);
- the draw's entries (wild_card_entries, registered with draws.entry_sources) are that bin's
  members with their tickets from the bin's frozen activations, less the bin's winners (r50)
  and anyone already holding a Grand Finale place (the first wild card's winner included);
  each entry's `why` names the bin draw and its number.
"""

import datetime as dt

from django.db import transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import local_datetime
from draws.entry_sources import Carried, CarriedEntry
from draws.models import WINNING_OUTCOMES, Draw, DrawStatus
from members.staff import check_staff_property
from prizes.carry import target_draw
from prizes.lines import LineKind, LineSource
from prizes.models import BoardSlot, PrizeLine, WildCardBin

# Promotion code: (the wild card series, the bins series it draws from).
WILD_CARDS = {"grc-royal-flush": ("wild-card", "month-end-bins")}
BIN_NUMBERS = range(1, 6)  # r68: "a manual draw of the numbers 1 to 5"
RUN_PERMISSION = "draws.add_drawpick"  # the conductor (prizes.conduct)


def bins_series_code(draw: Draw) -> str | None:
    """The code of the bins series a wild card draw draws from; None for any other draw (no query
    unless the series is called like a wild card series)."""
    series = draw.series
    for promotion_code, (wild_card, bins) in WILD_CARDS.items():
        if series.code == wild_card and series.promotion.code == promotion_code:
            return bins
    return None


def day_bins(draw: Draw, bins_code: str) -> list[Draw]:
    """The bins of the wild card draw's day before it, in their order: bin 1 is the first (14h00)."""
    day = timezone.localdate(draw.scheduled_at)
    start = timezone.make_aware(dt.datetime.combine(day, dt.time.min))
    return list(
        Draw.objects.filter(
            series__promotion_id=draw.series.promotion_id,
            series__code=bins_code,
            scheduled_at__gte=start,
            scheduled_at__lt=draw.scheduled_at,
        ).order_by("scheduled_at", "pk")
    )


def _other_numbers(draw: Draw) -> dict[int, Draw]:
    """The numbers already recorded for the other wild card draws of the series that day."""
    day = timezone.localdate(draw.scheduled_at)
    start = timezone.make_aware(dt.datetime.combine(day, dt.time.min))
    others = WildCardBin.objects.filter(
        draw__series_id=draw.series_id,
        draw__scheduled_at__gte=start,
        draw__scheduled_at__lt=start + dt.timedelta(days=1),
    ).exclude(draw=draw)
    return {row.number: row.draw for row in others.select_related("draw")}


def wild_card_bin_record(*, actor: Actor, draw_id: int, number: int | None) -> WildCardBin:
    """Record (or correct, before the freeze) the bin number drawn by hand for a wild card draw."""
    if actor.user is not None and not actor.user.has_perm(RUN_PERMISSION):
        raise DomainError("Only whoever runs the draw on stage records the bin drawn.", code="not_allowed")
    with transaction.atomic():
        try:
            draw = (
                Draw.objects.select_for_update(of=("self",))
                .select_related("series", "series__promotion", "property")
                .get(pk=draw_id)
            )
        except Draw.DoesNotExist:
            raise DomainError("No such draw.", code="no_draw") from None
        check_staff_property(actor, draw.property, what="wild card bins", done="recorded")
        bins_code = bins_series_code(draw)
        if bins_code is None:
            raise DomainError(f"{draw.name} is not a wild card draw: it has no bin to record.", code="not_wild_card")
        if draw.entries_frozen_at is not None or draw.status != DrawStatus.SCHEDULED:
            raise DomainError(
                f"The entries of {draw.name} were frozen at "
                f"{local_datetime(draw.entries_frozen_at or draw.started_at)}: its bin can no longer change.",
                code="wild_card_frozen",
            )
        if number not in BIN_NUMBERS:
            raise DomainError(
                f"The bins are numbered 1 to 5 (rule 68): {number if number is not None else 'a blank'} is not one.",
                code="wild_card_bin_number",
            )
        if (other := _other_numbers(draw).get(number)) is not None:
            raise DomainError(
                f"Bin {number} was drawn for {other.name}: the two wild cards come from two different bins. "
                "Draw again.",
                code="wild_card_bin_taken",
            )
        bins = day_bins(draw, bins_code)
        if number > len(bins):
            raise DomainError(f"There is no bin {number} on the day of {draw.name}.", code="wild_card_no_bin")
        bin_draw = bins[number - 1]
        if bin_draw.status != DrawStatus.DRAWN:
            raise DomainError(
                f"Bin {number} ({timezone.localtime(bin_draw.scheduled_at):%H:%M}) has not been drawn: "
                "its entrants are known once it is.",
                code="wild_card_bin_not_drawn",
            )
        before = WildCardBin.objects.filter(draw=draw).first()
        if before is not None and before.number == number:
            return before
        row, _ = WildCardBin.objects.update_or_create(
            draw=draw,
            defaults={
                "number": number,
                "bin_draw": bin_draw,
                "recorded_at": timezone.now(),
                "recorded_by": actor.label,
            },
        )
        audit_log(
            actor=actor,
            action="prize.wild_card_bin",
            obj=draw,
            data={
                "bin": number,
                "bin_draw": bin_draw.pk,
                "bin_draw_name": bin_draw.name,
                "before": before.number if before else None,
            },
        )
    return row


def wild_card_start_refusal(draw: Draw) -> str | None:
    """A wild card draw does not start before its bin number is recorded (draws.start_checks)."""
    if bins_series_code(draw) is None or WildCardBin.objects.filter(draw_id=draw.pk).exists():
        return None
    return (
        "The wild card draw cannot start until the bin number drawn by hand on stage (1 to 5, rule 68) "
        "is recorded: record it under Prizes on this draw's page."
    )


def wild_card_panel(draw: Draw) -> dict | None:
    """What the draw page shows of a wild card draw: the bin recorded, and whether it may change."""
    if bins_series_code(draw) is None:
        return None
    return {
        "bin": WildCardBin.objects.select_related("bin_draw").filter(draw_id=draw.pk).first(),
        "open": draw.entries_frozen_at is None and draw.status == DrawStatus.SCHEDULED,
    }


def _place_holders(draw: Draw) -> set[int]:
    """Members already holding a place in the draw(s) the wild card's places are carried into."""
    series_ids = BoardSlot.objects.filter(
        board__series_id=draw.series_id, kind=LineKind.PLACE, target_series__isnull=False
    ).values_list("target_series_id", flat=True)
    targets = [t.pk for s in set(series_ids) if (t := target_draw(draw, s)) is not None]
    lines = PrizeLine.objects.filter(
        kind=LineKind.PLACE, data__carried_into__in=targets, reversed_by__isnull=True
    ).exclude(source=LineSource.REVERSAL)
    return set(lines.values_list("member_id", flat=True))


def wild_card_entries(draw: Draw) -> Carried | None:
    """The wild card draw's entrants (draws.entry_sources): its bin's frozen activations, less
    the bin's winners and the finalists; None for any other draw. Before the bin is recorded it
    carries nobody, but still takes no tickets of its own (it freezes at its Start)."""
    if bins_series_code(draw) is None:
        return None
    row = WildCardBin.objects.select_related("bin_draw").filter(draw_id=draw.pk).first()
    if row is None:
        return Carried(only=True)
    bin_draw = row.bin_draw
    winners = set(bin_draw.picks.filter(outcome__in=WINNING_OUTCOMES).values_list("member_id", flat=True))
    excluded = winners | _place_holders(draw)
    tickets: dict[int, int] = {}
    why: dict[int, list[dict]] = {}
    for activation in bin_draw.activations.order_by("first_serial"):
        if activation.member_id in excluded:
            continue
        tickets[activation.member_id] = tickets.get(activation.member_id, 0) + activation.tickets
        why.setdefault(activation.member_id, []).append(
            {
                "kind": "wild_card_bin",
                "bin": row.number,
                "draw": bin_draw.pk,
                "draw_name": bin_draw.name,
                "receipt": activation.receipt_number,
            }
        )
    return Carried(only=True, entries=tuple(CarriedEntry(m, tickets[m], why[m]) for m in tickets))
