"""Draws for tests, made through the service (promotions' factories make the series: they sit
below draws and never build a draw)."""

import datetime as dt

from core.audit import Actor
from draws.services import draw_schedule
from promotions.models import DrawSeries


def make_draw(series: DrawSeries, at: dt.datetime, **kwargs):
    """A draw at `at`, past or future: tests travel in time to its windows."""
    return draw_schedule(actor=Actor.system("test"), series=series, scheduled_at=at, allow_past=True, **kwargs)
