"""`make run`'s prize demo (issue 14, item 10; prizes/demo.py): a demo copy of each seed with a
draw played yesterday evening through the conductor's services, its prize lines on the prize
record page; loading again adds nothing, and the seeds' own promotions are left alone."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from core.roles import PROMOTIONS_MANAGER
from draws.commitments import draw_verify
from draws.models import Draw, DrawStatus
from members.demo import seed_members
from prizes.demo import DEMO_GAMES, DEMO_NOTE, demo_code, load_demo_prizes
from prizes.models import GamePlay, GamePlayStatus, PrizeBoard, PrizeLine, ProgressiveEntry
from promotions.models import Promotion

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2026, 12, 2, 10, 0, tzinfo=SAST)
YESTERDAY = dt.date(2026, 12, 1)


@pytest.fixture
def demo(reference_data, user_for):
    with time_machine.travel(NOW, tick=False):
        manager = user_for(PROMOTIONS_MANAGER, username="manager")
        seed_members(count=300, recorder=manager)
        added = load_demo_prizes(now=NOW)
        yield manager, added


def demo_draw(seed: str) -> Draw:
    return Draw.objects.get(series__promotion__code=demo_code(seed))


def test_each_seed_has_a_draw_played_yesterday_with_its_game_and_lines(demo):
    _, added = demo
    assert added.draws == len(DEMO_GAMES) == 3
    for game in DEMO_GAMES:
        draw = demo_draw(game.seed)
        assert draw.status == DrawStatus.DRAWN and not draw.ended_short_reason, draw.name
        assert timezone.localdate(draw.scheduled_at) == YESTERDAY
        assert draw.series.code == game.series
        play = GamePlay.objects.get(draw=draw)
        assert play.status == GamePlayStatus.FINISHED and len(play.events) == draw.winners_wanted
        assert PrizeLine.objects.filter(draw=draw).values("pick").distinct().count() == draw.winners_wanted
    assert added.lines == PrizeLine.objects.count()


def test_debug(demo):
    draw = demo_draw("grc-fast-lane-to-fortune")
    print(draw.tickets_total, draw.activations.count(), list(draw.picks.values_list("k", "serial", "outcome")))
    from core.models import AuditEvent
    print(list(AuditEvent.objects.filter(action="draw.serial_refused").values_list("data", flat=True))[:5])
