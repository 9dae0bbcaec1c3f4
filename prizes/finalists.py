"""The last finalist draw fills the car draw to its six distinct finalists (Turn Up the Heat r69,
r70, A20).

A board with the setting "fill_places_to" (TH's Saturday finalist draws: 6) makes the last draw
of its series before the car draw its places name want as many winners as the car draw still
lacks distinct finalists: at the Start 6 - the members holding a place in it (from earlier
Saturdays' cash draws and the day's 3pm and 7pm); none left: its Start is refused. A winner who
already holds a place is paid the R5,000 conversion instead (prizes.carry) and the draw picks
one more, "until 6 distinct finalists". draws asks through draws.winner_counts (Start and each
winner recorded, under the draw's lock) and draws.start_checks.
"""

from draws.models import WINNING_OUTCOMES, Draw, DrawPick, DrawStatus
from prizes.boards import boards_for_draw
from prizes.carry import target_draw
from prizes.lines import LineKind, LineSource
from prizes.models import PrizeLine

FILL = "fill_places_to"


def _filled_draw(draw: Draw) -> tuple[int, Draw] | None:
    """(finalists to fill to, the car draw) when `draw` is the last of its series before the car
    draw its board's places name; else None (the 3pm and 7pm draws, any other board)."""
    for board in boards_for_draw(draw):
        fill = board.settings.get(FILL)
        targets = {s.target_series_id for s in board.slots.all() if s.kind == LineKind.PLACE}
        targets.discard(None)
        if fill is None or len(targets) != 1:
            continue
        car = target_draw(draw, targets.pop())
        if car is None:
            return None
        later = Draw.objects.filter(
            series_id=draw.series_id, scheduled_at__gt=draw.scheduled_at, scheduled_at__lt=car.scheduled_at
        ).exclude(status=DrawStatus.CANCELLED)
        return None if later.exists() else (int(fill), car)
    return None


def place_holders(car: Draw) -> set[int]:
    """The members holding a place in `car` (lines not reversed)."""
    lines = PrizeLine.objects.filter(kind=LineKind.PLACE, data__carried_into=car.pk, reversed_by__isnull=True)
    return set(lines.exclude(source=LineSource.REVERSAL).values_list("member_id", flat=True))


def finalists_wanted(draw: Draw) -> int | None:
    """The winners the last finalist draw wants now: its winners so far plus the distinct
    finalists the car draw still lacks, counting them with this draw's winners (a winner's own
    place may not be stored yet); None for any other draw (draws.winner_counts)."""
    filled = _filled_draw(draw)
    return None if filled is None else _wanted(draw, *filled)


def _wanted(draw: Draw, fill: int, car: Draw) -> int:
    winners = list(DrawPick.objects.filter(draw=draw, outcome__in=WINNING_OUTCOMES).values_list("member_id", flat=True))
    return len(winners) + max(0, fill - len(place_holders(car) | set(winners)))


def fill_start_refusal(draw: Draw) -> str | None:
    """The Start refusal when the car draw already has all its finalists (draws.start_checks)."""
    filled = _filled_draw(draw)
    if filled is None or _wanted(draw, *filled) > 0:
        return None
    fill, car = filled
    return (
        f"{car.name} already has its {fill} finalists: this draw has no finalist left to pick. "
        "Cancel it, with that reason."
    )
