"""The numbers of an earning rule and the ticket windows of a series, checked in one place.

The manager's form, the services and every reader (the allocation statement, the rule in words,
DrawSeries.windows_for) go through these parsers. A value that could break a page is refused
when it is typed; one that reaches the database some other way (raw SQL, an old row) is named
in a clean RuleUnreadable error for that one draw instead of a 500 for the whole property.

The stored JSON shapes are unchanged: {"QUEEN": 10}; {"4": {"ACE": 50}} (0 = Monday);
[{"day": 0, "open": "08:00", "close": "12:55" | "24:00"} or {..., "close_before": 5}].
"""

import datetime as dt
import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from django.utils import timezone

from core.errors import DomainError

# Sane bounds: far above any promotion's table, far below what overflows the allocation's
# BIGINT arithmetic (a sum of earned, free and bonus tickets times a few hundred visits).
POINTS_MAX = 1_000_000
TICKETS_MAX = 1_000_000
CAP_MIN = 1
DAY_OFFSET_MIN = -7  # a window can open up to a week before the draw day
CLOSE_BEFORE_MAX = 720  # minutes: twelve hours before the draw
WINDOWS_MAX = 4

WEEKDAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays", "Sundays")
DEFAULT_WINDOWS = [{"day": 0, "open": "08:00", "close_before": 0}]

# What a manager calls each stored number, and its bounds (None: may be left empty).
TIER_FIELDS = {
    "points_per_ticket_by_tier": ("Points per ticket", 0, POINTS_MAX),
    "free_tickets_by_tier": ("Free tickets", 0, TICKETS_MAX),
    "cap_by_tier": ("Most tickets per patron", CAP_MIN, TICKETS_MAX),
}
SCALAR_FIELDS = {
    "points_per_ticket": ("Points per ticket", 1, POINTS_MAX),
    "minimum_points": ("Minimum points", 0, POINTS_MAX),
    "bonus_app_registered": ("Bonus for app members", 0, TICKETS_MAX),
    "bonus_age_50_plus": ("Bonus for members aged 50 or older", 0, TICKETS_MAX),
    "bonus_active_at_property": ("Bonus for members active at the property", 0, TICKETS_MAX),
    "bonus_per_visit": ("Bonus per visit", 0, TICKETS_MAX),
    "bonus_per_visit_app": ("Extra bonus per visit for app members", 0, TICKETS_MAX),
    "cap": ("Most tickets per patron", CAP_MIN, TICKETS_MAX),
    "equal_opportunity_tickets": ("Equal-opportunity tickets", 1, TICKETS_MAX),
    "period_days": ("Earning period days", 1, 366),
}
NULLABLE = {"points_per_ticket", "cap", "equal_opportunity_tickets"}
RULE_FIELDS = (*SCALAR_FIELDS, *TIER_FIELDS, "free_tickets_by_weekday")  # the EarningRule fields checked here


class RuleInvalid(DomainError):
    """Values refused on saving; `errors` pairs each stored field name with what is wrong."""

    def __init__(self, errors: list[tuple[str, str]], *, code: str) -> None:
        super().__init__(" ".join(message for _, message in errors), code=code)
        self.errors = errors


class RuleUnreadable(DomainError):
    """A stored rule or window list that the parsers refuse: only the draws of that series fail."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="rule_unreadable")


def _shown(value) -> str:
    """A stored value as the manager would have typed it (JSON, never a Python repr), cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= 30 else text[:29] + "…"


def _whole(value, *, what: str, low: int, high: int) -> int:
    # bool is an int in Python, and JSON's 5.0 or 1e30 is a float: neither is a count.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what}: {_shown(value)} is not a whole number.")
    if value < low:
        raise ValueError(f"{what}: {value:,} is less than {low:,}.")
    if value > high:
        raise ValueError(f"{what}: {value:,} is more than {high:,}.")
    return value


def _tier_numbers(raw, *, what: str, low: int, high: int, tier_codes: Collection[str] | None) -> dict[str, int]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{what}: give a number for each tier, not {_shown(raw)}.")
    unknown = [code for code in raw if not isinstance(code, str) or (tier_codes is not None and code not in tier_codes)]
    if unknown:
        names = ", ".join(_shown(code) for code in unknown)
        known = f" (the tiers are {', '.join(tier_codes)})" if tier_codes else ""
        verb = "is not a tier code" if len(unknown) == 1 else "are not tier codes"
        raise ValueError(f"{what}: {names} {verb}{known}.")
    return {code: _whole(value, what=f"{what}, {code}", low=low, high=high) for code, value in raw.items()}


def _weekday_numbers(raw, *, tier_codes: Collection[str] | None) -> dict[int, dict[str, int]]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"Free tickets by weekday: give free tickets per tier for each weekday, not {_shown(raw)}.")
    out = {}
    for key, values in raw.items():
        day = key if isinstance(key, int) and not isinstance(key, bool) else None
        if isinstance(key, str) and re.fullmatch(r"[0-6]", key):
            day = int(key)
        if day is None or not 0 <= day <= 6:
            raise ValueError(f"Free tickets by weekday: {_shown(key)} is not a weekday (0 is Monday, 6 is Sunday).")
        numbers = _tier_numbers(
            values, what=f"Free tickets on {WEEKDAYS[day]}", low=0, high=TICKETS_MAX, tier_codes=tier_codes
        )
        if numbers:
            out[day] = numbers
    return out


@dataclass(frozen=True)
class RuleValues:
    """The tier-keyed numbers of an earning rule, parsed: whole numbers within bounds."""

    points_per_ticket_by_tier: dict[str, int] = field(default_factory=dict)
    free_tickets_by_tier: dict[str, int] = field(default_factory=dict)
    free_tickets_by_weekday: dict[int, dict[str, int]] = field(default_factory=dict)
    cap_by_tier: dict[str, int] = field(default_factory=dict)

    @classmethod
    def parse(cls, stored: Mapping[str, object], *, tier_codes: Collection[str] | None = None) -> "RuleValues":
        """From the stored JSON fields (missing ones are empty). With `tier_codes`, a key that is
        not one of them is refused; readers leave it out, as a code no member has is harmless there."""
        errors, parsed = [], {}
        for name, (what, low, high) in TIER_FIELDS.items():
            try:
                parsed[name] = _tier_numbers(stored.get(name), what=what, low=low, high=high, tier_codes=tier_codes)
            except ValueError as error:
                errors.append((name, str(error)))
        try:
            parsed["free_tickets_by_weekday"] = _weekday_numbers(
                stored.get("free_tickets_by_weekday"), tier_codes=tier_codes
            )
        except ValueError as error:
            errors.append(("free_tickets_by_weekday", str(error)))
        if errors:
            raise RuleInvalid(errors, code="bad_rule")
        return cls(**parsed)

    def free_tickets_on(self, weekday: int) -> dict[str, int]:
        """Free tickets per tier for an activation on `weekday` (0 = Monday): that day's own
        numbers replace the every-day ones tier by tier."""
        return {**self.free_tickets_by_tier, **self.free_tickets_by_weekday.get(weekday, {})}

    def as_stored(self) -> dict[str, dict]:
        return {
            "points_per_ticket_by_tier": dict(self.points_per_ticket_by_tier),
            "free_tickets_by_tier": dict(self.free_tickets_by_tier),
            "free_tickets_by_weekday": {str(d): dict(v) for d, v in sorted(self.free_tickets_by_weekday.items())},
            "cap_by_tier": dict(self.cap_by_tier),
        }

    def gives_tickets(self) -> bool:
        return bool(self.points_per_ticket_by_tier or self.free_tickets_by_tier or self.free_tickets_by_weekday)


def rule_values_validate(values: Mapping[str, object], *, tier_codes: Collection[str]) -> RuleValues:
    """Every number of an earning rule as it is about to be saved (stored field names as keys),
    with every reason at once. Tier keys must be codes of `tier_codes`."""
    errors = []
    for name, (what, low, high) in SCALAR_FIELDS.items():
        if name not in values:
            continue
        value = values[name]
        if value is None and name in NULLABLE:
            continue
        try:
            _whole(value, what=what, low=low, high=high)
        except ValueError as error:
            errors.append((name, str(error)))
    try:
        parsed = RuleValues.parse(values, tier_codes=tier_codes)
    except RuleInvalid as error:
        errors += error.errors
    if errors:
        raise RuleInvalid(errors, code="bad_rule")
    return parsed


# --- Ticket windows --------------------------------------------------------------------------

_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d")


@dataclass(frozen=True)
class WindowSpec:
    """One ticket window relative to its draw: opens on day `day` (0 the draw day, -1 the day
    before) at `opens`; closes at `closes` that day (None with `closes_at_midnight`: 24:00), or
    `close_before` minutes before the draw."""

    day: int
    opens: dt.time
    closes: dt.time | None = None
    closes_at_midnight: bool = False
    close_before: int | None = None

    def __str__(self) -> str:
        """In words, e.g. "the day before, 21:00 until midnight" or "the draw day, 08:00 until 5
        minutes before the draw"."""
        day = {0: "the draw day", -1: "the day before"}.get(self.day, f"{-self.day} days before")
        if self.close_before is not None:
            closes = f"{self.close_before} minutes before the draw" if self.close_before else "the draw starts"
        else:
            closes = "midnight" if self.closes_at_midnight else f"{self.closes:%H:%M}"
        return f"{day}, {self.opens:%H:%M} until {closes}"

    def lay_out(self, scheduled_at: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
        base = timezone.localtime(scheduled_at).date() + dt.timedelta(days=self.day)
        opens = timezone.make_aware(dt.datetime.combine(base, self.opens))
        if self.close_before is not None:
            return opens, scheduled_at - dt.timedelta(minutes=self.close_before)
        if self.closes_at_midnight:
            return opens, timezone.make_aware(dt.datetime.combine(base + dt.timedelta(days=1), dt.time()))
        return opens, timezone.make_aware(dt.datetime.combine(base, self.closes))

    def as_stored(self) -> dict:
        spec: dict = {"day": self.day, "open": f"{self.opens:%H:%M}"}
        if self.close_before is not None:
            spec["close_before"] = self.close_before
        else:
            spec["close"] = "24:00" if self.closes_at_midnight else f"{self.closes:%H:%M}"
        return spec


def _time(value, *, what: str) -> dt.time:
    if not isinstance(value, str) or not _TIME.fullmatch(value):
        raise ValueError(f"{what} {_shown(value)} is not a time such as 08:00.")
    return dt.time.fromisoformat(value)


def _window(number: int, raw) -> WindowSpec:
    label = f"Window {number}:"
    if not isinstance(raw, Mapping):
        raise ValueError(f"{label} give its day, opening time and closing, not {_shown(raw)}.")
    unknown = sorted(set(raw) - {"day", "open", "close", "close_before"})
    if unknown:
        raise ValueError(f"{label} {', '.join(_shown(k) for k in unknown)} is not a window setting.")
    try:
        day = _whole(raw.get("day", 0), what="the day", low=DAY_OFFSET_MIN, high=0)
    except ValueError as error:
        raise ValueError(f"{label} {error} (0 is the draw day, -1 the day before).") from None
    opens = _time(raw.get("open"), what=f"{label} the opening time")
    has_close, has_before = raw.get("close") not in (None, ""), raw.get("close_before") not in (None, "")
    if has_close and has_before:
        raise ValueError(f"{label} give a closing time or the minutes before the draw it closes, not both.")
    if not has_close and not has_before:
        raise ValueError(f"{label} give a closing time or the minutes before the draw it closes.")
    if has_before:
        try:
            minutes = _whole(raw["close_before"], what="minutes before the draw", low=0, high=CLOSE_BEFORE_MAX)
        except ValueError as error:
            raise ValueError(f"{label} {error}") from None
        return WindowSpec(day=day, opens=opens, close_before=minutes)
    if raw["close"] == "24:00":
        return WindowSpec(day=day, opens=opens, closes_at_midnight=True)
    closes = _time(raw["close"], what=f"{label} the closing time")
    if closes <= opens:
        raise ValueError(f"{label} it closes at {closes:%H:%M}, not after it opens at {opens:%H:%M}.")
    return WindowSpec(day=day, opens=opens, closes=closes)


def windows_parse(raw) -> list[WindowSpec]:
    """A series' ticket windows; RuleInvalid (field "ticket_windows") with every reason at once."""
    if not isinstance(raw, list) or not raw:
        raise RuleInvalid([("ticket_windows", "Ticket windows: give at least one window.")], code="bad_window")
    if len(raw) > WINDOWS_MAX:
        raise RuleInvalid(
            [("ticket_windows", f"Ticket windows: at most {WINDOWS_MAX} windows per draw.")], code="bad_window"
        )
    errors, specs = [], []
    for number, item in enumerate(raw, start=1):
        try:
            specs.append(_window(number, item))
        except ValueError as error:
            errors.append(("ticket_windows", f"Ticket windows: {error}"))
    if errors:
        raise RuleInvalid(errors, code="bad_window")
    return specs
