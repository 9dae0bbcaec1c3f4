"""Which prize board applies to a draw, and what a manager must still fill in before it starts.

A series may have a board for every tier and date, one per tier (Golden Horse's TEEDS
reveals), one per date, or one per tier and date (Golden Horse's vault, PRIZES.md A3-A4): for a
winner of a given tier, the most specific board applies. A series without any board has no
prize game here and never waits for one.
"""

import datetime as dt

from django.db.models import Q
from django.utils import timezone

from draws.models import Draw
from members.models import Tier
from prizes.models import BoardSlot, PrizeBoard


def draw_local_date(draw: Draw) -> dt.date:
    return timezone.localtime(draw.scheduled_at).date()


def candidate_boards(draw: Draw) -> list[PrizeBoard]:
    return list(
        PrizeBoard.objects.filter(series_id=draw.series_id)
        .filter(Q(draw_date__isnull=True) | Q(draw_date=draw_local_date(draw)))
        .select_related("tier", "series")
        .prefetch_related("slots", "slots__target_series")
    )


def most_specific_board(boards: list[PrizeBoard], tier_id: int | None) -> PrizeBoard | None:
    fitting = [b for b in boards if b.tier_id is None or b.tier_id == tier_id]
    return max(fitting, key=PrizeBoard.specificity, default=None)


def board_for(draw: Draw, tier: Tier | None) -> PrizeBoard | None:
    """The board a winner of `tier` plays on in `draw` (None: the series has no board for them)."""
    return most_specific_board(candidate_boards(draw), tier.pk if tier else None)


def boards_for_draw(draw: Draw) -> list[PrizeBoard]:
    """Every board a winner of the draw may play on: one per eligible tier, without repeats."""
    boards = candidate_boards(draw)
    if not boards:
        return []
    tier_ids = list(draw.series.eligible_tiers.values_list("pk", flat=True)) or [None]
    chosen: dict[int, PrizeBoard] = {}
    for tier_id in tier_ids:
        board = most_specific_board(boards, tier_id)
        if board is not None:
            chosen.setdefault(board.pk, board)
    return sorted(chosen.values(), key=lambda b: (b.tier.rank if b.tier_id else -1, b.pk))


def missing_settings_of(board: PrizeBoard) -> list[str]:
    """The blank required settings of one board, in words ("the amount of Podium 1")."""
    missing = [words for slot in board.slots.all() if (words := slot.missing())]
    multipliers = []
    for spec in board.setting_specs():
        if board.setting(spec.key) is None:
            if spec.key.startswith("multiplier_"):
                multipliers.append(spec.key.removeprefix("multiplier_"))
            else:
                missing.append(spec.label[0].lower() + spec.label[1:])
    if multipliers:
        missing.append(
            f"the roulette multiplier of number{'s' if len(multipliers) > 1 else ''} {_numbers(multipliers)}"
        )
    return missing


def _numbers(numbers: list[str]) -> str:
    if len(numbers) > 6:
        return f"{numbers[0]} to {numbers[-1]} ({len(numbers)} numbers)"
    return ", ".join(numbers)


def board_missing_settings(draw: Draw) -> list[str]:
    """One sentence per board of the draw with blank required settings (PRIZES.md "cfg")."""
    lines = []
    for board in boards_for_draw(draw):
        missing = missing_settings_of(board)
        if missing:
            lines.append(f"Prize board of {board}: set {_and(missing)}.")
    return lines


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def start_refusal(draw: Draw) -> str | None:
    """The Start refusal for a draw whose prize board is not complete (draws.start_checks)."""
    missing = board_missing_settings(draw)
    if not missing:
        return None
    return (
        "The draw cannot start until its prizes are set: "
        + " ".join(missing)
        + " A promotions manager fills them in on the series' prize boards."
    )


def slot_total(slots: list[BoardSlot]) -> int:
    """The money on a board's slots (a place or entries counts nothing)."""
    return sum(s.amount_cents or 0 for s in slots if s.kind not in ("place", "entries"))
