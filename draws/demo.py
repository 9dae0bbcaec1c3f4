"""A demo promotion whose draws sit around now, so that a newcomer running `make run` can try
every journey at once: a ticket window open now, a draw three hours ahead (later today unless
it is late evening) and one a day after it. draws/demo_runs.py adds, at each property, a draw
run yesterday evening and a closed one waiting for Start this evening."""

import datetime as dt

from django.utils import timezone

from core.audit import Actor
from draws.seeds import ALL_TIERS, PromotionDef, SeriesDef, load_promotion
from members.models import Property
from promotions.models import Promotion
from promotions.services import promotion_save

DEMO_PROMOTION_CODE = "demo-desk-cash-draws"


def demo_definition(now: dt.datetime) -> PromotionDef:
    local = timezone.localtime(now)
    # Two to three hours ahead, on the hour: the window is open now and closes 5 minutes before.
    today_draw = (local + dt.timedelta(hours=3)).replace(minute=0, second=0, microsecond=0)
    moments = [today_draw, today_draw + dt.timedelta(days=1)]
    draws = [m.strftime("%Y-%m-%d %H:%M") for m in moments]
    series = [
        SeriesDef(
            code=f"demo-cash-{prop.code.lower()}",
            name=f"Demo cash draw ({prop.code})",
            property=prop.code,
            schedule_text="Today and tomorrow, three hours from when the demo was loaded",
            draws=draws,
            # Open from midnight before the draw day, so the window is open now whatever the hour.
            windows=[{"day": -1, "open": "00:00", "close_before": 5}],
            # Proxy forms from midnight of the draw day (the seeds say 08h00), so the demo can
            # register tonight's proxy at any hour of the draw day (proxies/demo.py).
            proxies_open="00:00",
            tiers=ALL_TIERS,
            winners=5,
            win_once="day",
            rule={
                "period_kind": "days_before",
                "period_days": 30,
                "points_per_ticket": 100,
                "free_tickets_by_tier": {"TEN": 1, "JACK": 2, "QUEEN": 3, "KING": 4, "ACE": 5},
                "bonus_app_registered": 2,
            },
        )
        for prop in Property.objects.order_by("code")
    ]
    return PromotionDef(
        code=DEMO_PROMOTION_CODE,
        name="Demo: desk cash draws",
        properties=tuple(p.code for p in Property.objects.order_by("code")),
        starts_on=str(local.date() - dt.timedelta(days=30)),
        ends_on=str(local.date() + dt.timedelta(days=30)),
        text_file="demo.txt",
        series=series,
    )


def load_demo_promotion(*, now: dt.datetime | None = None) -> int:
    definition = demo_definition(now or timezone.now())
    actor = Actor.system("seed_demo")
    _extend_demo_promotion(definition, actor)
    _, added = load_promotion(definition, actor=actor)
    return added


def _extend_demo_promotion(definition: PromotionDef, actor: Actor) -> None:
    """A demo loaded weeks ago would refuse today's draws (outside its dates): move its end on,
    through the audited service, so `make run` works any day."""
    promotion = Promotion.objects.filter(code=definition.code).first()
    ends_on = dt.date.fromisoformat(definition.ends_on)
    if promotion is not None and promotion.ends_on < ends_on:
        promotion.ends_on = ends_on
        promotion_save(actor=actor, promotion=promotion, properties=list(promotion.properties.all()))
