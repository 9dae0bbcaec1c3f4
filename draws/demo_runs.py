"""Draws already run and a draw ready to run, for `make run` (issue 8): at each property of the
demo promotion, an electronic draw completed yesterday evening (a no-show and its redraw among
the picks, the seed revealed) and a closed one waiting for Start this evening (its entries
frozen; proxies/demo.py then registers a proxy and a decline among its entrants, issue 13).

Everything goes through the services the eHost, the tick and a manager use, each given the
moment it happens, so the records read as if the evening took place. Idempotent: a draw that
is already there is left alone, so every `make run` can load it again.
"""

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.audit import Actor
from core.errors import DomainError
from draws.allocation import draw_allocations
from draws.demo import DEMO_PROMOTION_CODE
from draws.engine import draw_end_short, draw_start, pick_outcome_record
from draws.models import Channel, Draw, DrawStatus, PickOutcome
from draws.services import activation_create, draw_close_window, draw_schedule
from members.identity import IdType
from members.models import Member
from members.staff import staff_may_act_at
from promotions.models import DrawMethod, DrawSeries

ENTRANTS = 12  # per draw: enough for five winners, a no-show and the odd automatic redraw
# Off the hour: the demo promotion's own draws sit on the hour (one-draw-per-moment constraint).
# Yesterday's draws follow one another, the first at 19h10: each is run to its end before the next
# starts, so their clocks must not overlap either. A draw run over a span another had already
# used could redraw a winner of it (win once a day) on a win stamped later than its own pick,
# which its record cannot name as the redraw's "ref" (issue 15). A draw lasts at most 9 minutes:
# a no-show and five winners, an outcome every 90 seconds.
COMPLETED_FROM = dt.time(19, 10)  # yesterday evening
COMPLETED_EVERY = dt.timedelta(minutes=10)
TONIGHT = dt.time(20, 30)  # draw night: the waiting draw's time this evening
WAITING_AFTER = dt.timedelta(hours=3)  # the tick starts a due draw by itself: keep it this far ahead
ACTIVATION_EVERY = dt.timedelta(minutes=20)
OUTCOME_EVERY = dt.timedelta(seconds=90)  # the stage's 90 seconds to present
WITNESS = "Thandi Nkosi (Gambling Board inspector)"
DEMO_MANAGER = "manager"  # the login seed_demo makes for the promotions manager


@dataclass
class DemoRuns:
    completed: int = 0
    waiting: int = 0


def load_demo_runs(*, now: dt.datetime | None = None) -> DemoRuns:
    """Add what is missing at each property: yesterday's completed draw and a draw waiting for Start."""
    now = now or timezone.now()
    manager = get_user_model().objects.filter(username=DEMO_MANAGER).first()
    added = DemoRuns()
    series_list = DrawSeries.objects.filter(promotion__code=DEMO_PROMOTION_CODE, method=DrawMethod.ELECTRONIC).order_by(
        "property__code"
    )
    day = timezone.localdate(now) - dt.timedelta(days=1)
    first = timezone.make_aware(dt.datetime.combine(day, COMPLETED_FROM))
    for number, series in enumerate(series_list):
        # The demo manager runs the draws at their casinos; the others' teams are not logins of the demo.
        here = manager is not None and staff_may_act_at(manager, series.property)
        actor = Actor.for_user(manager) if here else Actor.system("seed_demo")
        added.completed += _completed_yesterday(series, at=first + number * COMPLETED_EVERY, actor=actor)
        added.waiting += _waiting_for_start(series, now=now, actor=actor)
    return added


@transaction.atomic
def _completed_yesterday(series: DrawSeries, *, at: dt.datetime, actor: Actor) -> bool:
    if series.draws.filter(scheduled_at=at).exists():
        return False
    draw = draw_schedule(actor=actor, series=series, scheduled_at=at, allow_past=True)
    demo_activate(draw, first_at=at - dt.timedelta(hours=6), skip=0)
    draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    draw_start(actor=actor, draw_id=draw.pk, witness_name=WITNESS, now=at)
    moment, outcome = at, PickOutcome.NO_SHOW  # the first winner is not there: a redraw follows
    while (pick := draw.picks.filter(outcome="").first()) is not None:
        moment += OUTCOME_EVERY
        seen = IdType.SA_ID if outcome == PickOutcome.PRESENT else ""  # the conductor saw the winner's ID
        pick_outcome_record(
            actor=actor, draw_id=draw.pk, pick_id=pick.pk, outcome=outcome, id_type_seen=seen, now=moment
        )
        outcome = PickOutcome.PRESENT
    draw.refresh_from_db()
    if draw.status == DrawStatus.RUNNING:  # every entrant won or was ruled out before five winners
        draw_end_short(actor=actor, draw_id=draw.pk, reason="No entrant left who can win.", now=moment)
    return True


@transaction.atomic
def _waiting_for_start(series: DrawSeries, *, now: dt.datetime, actor: Actor) -> bool:
    if series.draws.filter(status=DrawStatus.CLOSED, scheduled_at__gt=now).exists():
        return False
    at = waiting_draw_time(now)
    while series.draws.filter(scheduled_at=at).exists():  # a demo draw run earlier at that moment
        at += dt.timedelta(hours=1)
    # Entries already frozen: one window that closed a minute ago.
    closes = timezone.localtime(now).replace(second=0, microsecond=0) - dt.timedelta(minutes=1)
    opens = closes - dt.timedelta(hours=6)
    draw = draw_schedule(actor=actor, series=series, scheduled_at=at, windows=[(opens, closes)], allow_past=True)
    demo_activate(draw, first_at=opens + dt.timedelta(minutes=10), skip=ENTRANTS)
    draw_close_window(draw_id=draw.pk, now=closes)
    return True


def waiting_draw_time(now: dt.datetime) -> dt.datetime:
    """This evening at 20h30; later in the evening (or after midnight), three hours ahead at half
    past the hour, so the tick does not start it before a newcomer gets to it."""
    local = timezone.localtime(now)
    tonight = timezone.make_aware(dt.datetime.combine(local.date(), TONIGHT))
    ahead = (local + WAITING_AFTER).replace(minute=30, second=0, microsecond=0)
    return max(tonight, ahead)


def demo_activate(draw: Draw, *, first_at: dt.datetime, skip: int = 0) -> None:
    """Demo members activate at an eHost one after another: members with points at the draw's
    casino first, then those holding only their tier's free tickets (by id, so every load
    picks the same people); `skip` gives the two draws different entrants."""
    allocations = sorted(
        (a for a in draw_allocations(draw, at=first_at) if a.tickets > 0),
        key=lambda a: (a.points == 0, a.member_id),
    )
    chosen = [a.member_id for a in allocations[skip : skip + ENTRANTS]]
    cards = dict(Member.objects.filter(pk__in=chosen).values_list("pk", "card_number"))
    ehost = Actor.system("ehost")
    for index, member_id in enumerate(chosen):
        try:
            activation_create(
                actor=ehost,
                draw_id=draw.pk,
                card_number=cards[member_id],
                channel=Channel.EHOST,
                now=first_at + index * ACTIVATION_EVERY,
            )
        except DomainError:  # excluded since the count, say: the demo goes on without them
            continue
