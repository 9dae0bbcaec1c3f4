"""A month-by-month calendar of a promotion's draws, for the manager's promotion page: each
draw once, on its Johannesburg day, as "20:00 Queen Tier Cash draw" (the weekday and time the
series name repeats are left out: the column and the time say them), today marked."""

import calendar
import datetime as dt
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from django.utils import timezone

WEEKDAY_WORDS = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?"
TIME_WORDS = r"(?:\d{1,2}(?:h\d{2}|:\d{2}|am|pm)|midday|noon)"
LEADING_WHEN = re.compile(rf"^(?:{WEEKDAY_WORDS}\s+)?(?:{TIME_WORDS}\s+)?", re.IGNORECASE)


@dataclass(frozen=True)
class CalendarEntry:
    draw: object  # draws.models.Draw
    time: str  # "20:00", Johannesburg
    label: str  # the series name without its leading weekday and time

    @property
    def pk(self) -> int:
        return self.draw.pk


class CalendarDay(NamedTuple):
    day: dt.date
    draws: list[CalendarEntry]
    is_today: bool


def calendar_label(series_name: str) -> str:
    """ "Wednesday 13h00 Cash draw" -> "Cash draw"; a name that is only a day and time stays whole."""
    short = LEADING_WHEN.sub("", series_name, count=1).strip()
    if not short or re.fullmatch(TIME_WORDS, short, re.IGNORECASE):
        return series_name
    return short[:1].upper() + short[1:]


def draw_calendar(draws, today: dt.date | None = None) -> list[dict]:
    """[{"title": "October 2025", "weeks": [[CalendarDay or None, ...7], ...]}, ...] from the
    month of the first draw to the month of the last; days of other months are None, so a draw
    shows once however the weeks straddle two months."""
    today = today or timezone.localdate()
    by_day = defaultdict(list)
    for draw in draws:
        local = timezone.localtime(draw.scheduled_at)
        by_day[local.date()].append(CalendarEntry(draw, f"{local:%H:%M}", calendar_label(draw.series.name)))
    if not by_day:
        return []
    for entries in by_day.values():
        entries.sort(key=lambda entry: (entry.time, entry.label))
    first, last = min(by_day), max(by_day)
    months = []
    year, month = first.year, first.month
    while (year, month) <= (last.year, last.month):
        weeks = [
            [CalendarDay(day, by_day.get(day, []), day == today) if day.month == month else None for day in week]
            for week in calendar.Calendar(firstweekday=0).monthdatescalendar(year, month)
        ]
        months.append({"title": dt.date(year, month, 1).strftime("%B %Y"), "weeks": weeks})
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return months
