"""A month-by-month calendar of a promotion's draws, for the manager's promotion page."""

import calendar
import datetime as dt
from collections import defaultdict

from django.utils import timezone


def draw_calendar(draws) -> list[dict]:
    """[{"title": "October 2025", "weeks": [[(day, [draws]) or None, ...7], ...]}, ...]."""
    by_day = defaultdict(list)
    for draw in draws:
        by_day[timezone.localtime(draw.scheduled_at).date()].append(draw)
    if not by_day:
        return []
    first, last = min(by_day), max(by_day)
    months = []
    year, month = first.year, first.month
    while (year, month) <= (last.year, last.month):
        weeks = [
            [(day, by_day.get(day, [])) if day.month == month else None for day in week]
            for week in calendar.Calendar(firstweekday=0).monthdatescalendar(year, month)
        ]
        months.append({"title": dt.date(year, month, 1).strftime("%B %Y"), "weeks": weeks})
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return months
