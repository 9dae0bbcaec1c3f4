"""Paths that lock a promotion, its series and its draws take them in one order, the promotion
first (series_save, promotion_save, draw_schedule, draw_move): since draws 0022, saving a
promotion or a series also updates its scheduled draws' rows (their versions), so a path that
locked a draw first and then waited for the promotion would deadlock against it. Each race runs
on real PostgreSQL connections."""

import datetime as dt
import threading
import time

import pytest
from django.db import connection

from core.audit import Actor
from draws.models import Draw
from draws.services import draw_move
from draws.tests.factories import make_draw
from promotions.models import Promotion
from promotions.services import promotion_save
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db(transaction=True)

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)


def test_a_draw_moved_while_its_promotion_is_saved_deadlocks_neither(reference_data, monkeypatch):
    draw = make_draw(make_series(points_per_ticket=100), DRAW_AT)
    moving, go_on = threading.Event(), threading.Event()
    outcome = {}
    checked = Draw.move_refusal

    def paused(self):  # draw_move holds its locks here
        moving.set()
        go_on.wait(10)
        return checked(self)

    monkeypatch.setattr(Draw, "move_refusal", paused)

    def mover():
        try:
            draw_move(
                actor=Actor.system("test"), draw_id=draw.pk, scheduled_at=DRAW_AT + dt.timedelta(days=1),
                reason="the stage is booked", allow_past=True,
            )  # fmt: skip
            outcome["move"] = "moved"
        except Exception as error:
            outcome["move"] = repr(error)
        finally:
            connection.close()

    def saver():
        try:
            promotion = Promotion.objects.get(series__draws=draw)
            promotion.name = "Renamed promotion"
            promotion_save(actor=Actor.system("test"), promotion=promotion, properties=list(promotion.properties.all()))
            outcome["save"] = "saved"
        except Exception as error:
            outcome["save"] = repr(error)
        finally:
            connection.close()

    moved = threading.Thread(target=mover)
    moved.start()
    assert moving.wait(10)
    saved = threading.Thread(target=saver)
    saved.start()
    time.sleep(1.0)  # the save now waits for a lock the move holds
    go_on.set()
    moved.join(20)
    saved.join(20)
    assert outcome == {"move": "moved", "save": "saved"}
    draw.refresh_from_db()
    assert draw.scheduled_at == DRAW_AT + dt.timedelta(days=1)
    assert draw.series.promotion.name == "Renamed promotion"
