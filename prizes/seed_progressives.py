"""The seeds' progressive jackpots (issue 14 item 5), created after the boards by
`manage.py load_seed_boards` (`make run`). Idempotent and never overwriting: a progressive that
exists keeps its definition and its entries; only missing ones are created.

- Turn Up the Heat's digit safe: base R100,000, +R20,000 per Saturday 9pm draw not cracked
  (TH r125-126, A17), shared out at the 20 December 21h30 draw if never cracked (r135-141, A18).
- Fast Lane's R20,000 progressive reveal behind Roll into Riches' reveal 19 (FL r107): its growth
  is not given, so it grows by the board's setting, R0 by default (A11).
- Golden Horse's vault jackpots (GH r9, A4): one per tier, base R0, its amount set per draw by a
  manager (prizes.vault_jackpots), "set on that day"; no growth rule.
"""

from dataclasses import dataclass

from django.db import transaction

from core.audit import Actor, audit_log
from prizes.models import PrizeBoard, Progressive
from prizes.vault_jackpots import VAULT_SERIES, vault_code, vault_name
from promotions.models import Promotion

R = 100  # cents per rand


@dataclass(frozen=True)
class ProgressiveDef:
    series: str
    code: str
    name: str
    base_cents: int
    increment_cents: int = 0
    share_series: str | None = None
    increment_setting: str = ""  # the board setting it grows by (FL: A11), instead of increment_cents


SEED_PROGRESSIVES: dict[str, list[ProgressiveDef]] = {
    "grc-turn-up-the-heat": [
        ProgressiveDef(
            "sat-cash-2100",
            "th-safe",
            "Digit safe",
            base_cents=100_000 * R,  # r126 "a Base value of R100, 000"
            increment_cents=20_000 * R,  # r126 "increase by R20, 000 per cash draw if not won"
            share_series="sat-safe-share-2130",  # r135: 20 Dec 21h30, only if never cracked
        )
    ],
    "grc-fast-lane-to-fortune": [
        ProgressiveDef(
            "sat-cash-2100",
            "fl-progressive-reveal",
            "R20,000 progressive reveal",
            base_cents=20_000 * R,  # r107 "A R20 000 progressive Jackpot"
            increment_setting="progressive_increment_cents",  # A11: not given, R0 until set
        )
    ],
    "golden-horse-prive-powerplay": [
        ProgressiveDef(series, vault_code(tier), vault_name(tier), base_cents=0)  # r9, A4: set per draw
        for series, tiers in VAULT_SERIES.items()
        for tier in tiers
    ],
}


def load_seed_progressives(*, actor: Actor) -> dict[str, int]:
    """Create each seed promotion's missing progressives; {promotion code: progressives added}.
    A promotion not loaded yet is skipped."""
    added: dict[str, int] = {}
    for code, defs in SEED_PROGRESSIVES.items():
        promotion = Promotion.objects.filter(code=code).first()
        if promotion is None:
            continue
        series = {s.code: s for s in promotion.series.all()}
        count = 0
        with transaction.atomic():
            for pdef in defs:
                if Progressive.objects.filter(promotion=promotion, code=pdef.code).exists():
                    continue  # loaded before: its entries are its history, never redefined
                progressive = Progressive.objects.create(
                    promotion=promotion,
                    series=series[pdef.series],
                    share_series=series[pdef.share_series] if pdef.share_series else None,
                    code=pdef.code,
                    name=pdef.name,
                    base_cents=pdef.base_cents,
                    increment_cents=_increment(pdef, series[pdef.series]),
                )
                audit_log(
                    actor=actor,
                    action="progressive.created",
                    obj=progressive,
                    data={
                        "promotion": promotion.name,
                        "series": progressive.series.name,
                        "base_cents": progressive.base_cents,
                        "increment_cents": progressive.increment_cents,
                    },
                )
                count += 1
        added[code] = count
    return added


def _increment(pdef: ProgressiveDef, series) -> int:
    if not pdef.increment_setting:
        return pdef.increment_cents
    board = PrizeBoard.objects.filter(series=series, tier=None, draw_date=None).first()
    value = board.setting(pdef.increment_setting) if board else None
    return value or 0
