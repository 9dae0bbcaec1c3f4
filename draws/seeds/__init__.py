"""The five seed promotions as ready definitions, and the loader that creates them.

Each module here defines one PromotionDef from a rules document in texts/. Where a seed's
text refers to a table that is missing ("Points earning for these draws will take place as
follows:" followed by nothing), the values are chosen and the choice is written into the
series' `assumptions`, so a manager sees on screen what was assumed.
"""

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from draws.models import Draw
from draws.services import draw_move, draw_schedule
from members.models import Property, Tier
from promotions.models import DrawSeries, EarningRule, Promotion, PromotionStatus
from promotions.services import promotion_save, series_save

TEXTS = Path(__file__).parent / "texts"
ALL_TIERS = ("TEN", "JACK", "QUEEN", "KING", "ACE")
VIP_TIERS = ("QUEEN", "KING", "ACE")


def local(text: str) -> dt.datetime:
    """'2025-10-22 13:00' in Johannesburg time."""
    return timezone.make_aware(dt.datetime.fromisoformat(text))


def weekly(weekday: int, first: str, last: str, *times: str) -> list[str]:
    """Every `weekday` (0 = Monday) from `first` to `last` (dates), at each of `times`."""
    day, end = dt.date.fromisoformat(first), dt.date.fromisoformat(last)
    day += dt.timedelta(days=(weekday - day.weekday()) % 7)
    out = []
    while day <= end:
        out.extend(f"{day.isoformat()} {time}" for time in times)
        day += dt.timedelta(days=7)
    return out


def last_weekday_of_month(weekday: int, year: int, month: int) -> dt.date:
    nxt = dt.date(year + month // 12, month % 12 + 1, 1)
    day = nxt - dt.timedelta(days=1)
    return day - dt.timedelta(days=(day.weekday() - weekday) % 7)


@dataclass
class SeriesDef:
    code: str
    name: str
    draws: list[str]  # local date-times, "YYYY-MM-DD HH:MM"
    rule: dict  # EarningRule fields
    windows: list[dict]  # see DrawSeries.windows_for
    tiers: tuple[str, ...] = ALL_TIERS
    method: str = "electronic"
    winners: int = 5
    win_once: str = "draw"
    schedule_text: str = ""
    property: str = ""  # defaults to the promotion's first property
    desk_tiers: tuple[str, ...] = VIP_TIERS
    proxies: bool = True  # False: the promotion has a decline register but no proxies
    proxies_open: str = "08:00"
    proxies_close_minutes: int = 15
    one_selection: bool = False  # a member is selected at most once per draw (Fast Lane rule 117)
    presentation_seconds: int = 90  # every seed gives a winner 90 seconds to come forward
    paid_at_device: bool = False  # prizes handed over where the winner plays, no letter (RF r14, r29)
    # {"2025-10-22 13:00": ("2025-10-21 13:00", "reason")}
    moves: dict[str, tuple[str, str]] = field(default_factory=dict)
    # A bin's own rate: {"20:00": 250, "21:00": 500} by draw time of day.
    points_per_ticket_by_time: dict[str, int] = field(default_factory=dict)
    assumptions: str = ""


@dataclass
class PromotionDef:
    code: str
    name: str
    properties: tuple[str, ...]
    starts_on: str
    ends_on: str
    text_file: str
    series: list[SeriesDef]
    # Collection (PRIZES.md §3): where at the casino the winner collects, within how many days of
    # the draw; `collection_note` says what of it is assumed and is added to every series' assumptions.
    collection_place: str = "the Cash Desk"
    collection_days: int = 15
    collection_note: str = ""


def load_promotion(defn: PromotionDef, *, actor: Actor) -> tuple[Promotion, int]:
    """Create what is missing of one promotion: its series, rules and draws; the number of
    draws added (0 when it was loaded before). What exists is left alone, so a manager's later
    edits (made through the audited screens) survive every `make run`. Everything is created
    through the same services as a manager's forms, so the same rules and audit events apply."""
    added = 0
    with transaction.atomic():
        promotion = Promotion.objects.filter(code=defn.code).first()
        if promotion is None:
            promotion = promotion_save(
                actor=actor,
                promotion=Promotion(
                    code=defn.code,
                    name=defn.name,
                    starts_on=dt.date.fromisoformat(defn.starts_on),
                    ends_on=dt.date.fromisoformat(defn.ends_on),
                    rules_text=(TEXTS / defn.text_file).read_text(encoding="utf-8"),
                    status=PromotionStatus.PUBLISHED,
                    collection_days=defn.collection_days,
                    collection_place=defn.collection_place,
                ),
                properties=list(Property.objects.filter(code__in=defn.properties)),
            )
        for sdef in defn.series:
            series = _load_series(promotion, sdef, defn.properties[0], actor, defn.collection_note)
            added += _load_draws(series, sdef, actor)
        if added:
            audit_log(
                actor=actor,
                action="promotion.seed_loaded",
                obj=promotion,
                data={"code": defn.code, "draws_added": added},
            )
    return promotion, added


def _load_series(
    promotion: Promotion, sdef: SeriesDef, default_property: str, actor: Actor, collection_note: str = ""
) -> DrawSeries:
    series = promotion.series.filter(code=sdef.code).first()
    if series is not None:
        return series
    return series_save(
        actor=actor,
        series=DrawSeries(
            promotion=promotion,
            code=sdef.code,
            name=sdef.name,
            property=Property.objects.get(code=sdef.property or default_property),
            method=sdef.method,
            winners_per_draw=sdef.winners,
            win_once_scope=sdef.win_once,
            schedule_text=sdef.schedule_text,
            ticket_windows=sdef.windows,
            proxies_allowed=sdef.proxies,
            proxies_open=dt.time.fromisoformat(sdef.proxies_open),
            proxies_close_minutes=sdef.proxies_close_minutes,
            one_selection_per_draw=sdef.one_selection,
            presentation_seconds=sdef.presentation_seconds,
            paid_at_device=sdef.paid_at_device,
        ),
        eligible_tiers=list(Tier.objects.filter(code__in=sdef.tiers)),
        desk_tiers=list(Tier.objects.filter(code__in=sdef.desk_tiers)),
        rule=EarningRule(**sdef.rule, assumptions=" ".join(filter(None, [sdef.assumptions, collection_note]))),
    )


def _load_draws(series: DrawSeries, sdef: SeriesDef, actor: Actor) -> int:
    known = set(series.draws.values_list("scheduled_at", flat=True)) | set(
        series.draws.exclude(moved_from=None).values_list("moved_from", flat=True)
    )
    added = 0
    for text in sdef.draws:
        at = local(text)
        if at in known:
            continue
        draw = draw_schedule(
            actor=actor,
            series=series,
            scheduled_at=at,
            points_per_ticket=sdef.points_per_ticket_by_time.get(text[11:16]),
            allow_past=True,
        )
        if text in sdef.moves:
            to, reason = sdef.moves[text]
            draw_move(actor=actor, draw_id=draw.pk, scheduled_at=local(to), reason=reason, allow_past=True)
        added += 1
    return added


def seed_definitions() -> list[PromotionDef]:
    from draws.seeds import (
        emnotweni_daytime_playtime,
        golden_horse_prive_powerplay,
        grc_fast_lane_to_fortune,
        grc_royal_flush,
        grc_turn_up_the_heat,
    )

    return [
        grc_turn_up_the_heat.PROMOTION,
        grc_royal_flush.PROMOTION,
        grc_fast_lane_to_fortune.PROMOTION,
        golden_horse_prive_powerplay.PROMOTION,
        emnotweni_daytime_playtime.PROMOTION,
    ]


def load_seed_promotions(*, actor: Actor) -> list[tuple[Promotion, int]]:
    return [load_promotion(defn, actor=actor) for defn in seed_definitions()]


__all__ = ["Draw", "PromotionDef", "SeriesDef", "last_weekday_of_month", "load_seed_promotions", "local", "weekly"]
