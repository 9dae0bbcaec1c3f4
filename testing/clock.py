"""`pytest --clock=HH:MM`: run the whole session as if it were that Johannesburg wall time today.

CI runs at whatever hour work stops, so `make test` runs the tests that need no browser and no
worker again at 03:00 and 23:50 to catch a test (or a rule) that only holds in office hours.
The clock keeps ticking from the chosen time; a test that pins its own time with
`time_machine.travel(...)` still gets exactly that time (travels nest).

Only Python's clock moves: PostgreSQL's now(), a Celery worker in another process and
Chromium's clock keep the real time, so use it with `-m "not browser and not worker"`.
"""

import argparse
import datetime as dt
from zoneinfo import ZoneInfo

import pytest
import time_machine

JOHANNESBURG = ZoneInfo("Africa/Johannesburg")
_TRAVEL = pytest.StashKey[time_machine.travel]()
_MOMENT = pytest.StashKey[dt.datetime]()


def wall_time(value: str) -> dt.time:
    try:
        return dt.datetime.strptime(value, "%H:%M").time()
    except ValueError:
        raise argparse.ArgumentTypeError(f"--clock wants a wall time as HH:MM (e.g. 03:00), got {value!r}") from None


def session_moment(clock: dt.time, *, now: dt.datetime) -> dt.datetime:
    """Today's date in Johannesburg (as of `now`) at the wall time `clock`, in UTC."""
    today = now.astimezone(JOHANNESBURG).date()
    # Handed to time-machine in UTC: a ZoneInfo destination would also set the TZ environment
    # variable for the whole session, which the product never runs under.
    return dt.datetime.combine(today, clock, tzinfo=JOHANNESBURG).astimezone(dt.UTC)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("clock").addoption(
        "--clock",
        metavar="HH:MM",
        type=wall_time,
        default=None,
        help="run the session as if it were HH:MM Africa/Johannesburg today (the clock keeps ticking)",
    )


def pytest_configure(config: pytest.Config) -> None:
    clock = config.getoption("clock", default=None)
    if clock is None:
        return
    moment = session_moment(clock, now=dt.datetime.now(dt.UTC))
    travel = time_machine.travel(moment, tick=True)
    travel.start()
    config.stash[_TRAVEL] = travel
    config.stash[_MOMENT] = moment


def pytest_unconfigure(config: pytest.Config) -> None:
    travel = config.stash.get(_TRAVEL, None)
    if travel is not None:
        travel.stop()
        del config.stash[_TRAVEL]


def pytest_report_header(config: pytest.Config) -> str | None:
    moment = config.stash.get(_MOMENT, None)
    if moment is None:
        return None
    local = moment.astimezone(JOHANNESBURG)
    return f"clock: moved to {local:%Y-%m-%d %H:%M} Africa/Johannesburg (ticking)"
