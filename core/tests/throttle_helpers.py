"""Shared moments and passwords of the sign-in throttle's tests."""

import datetime as dt
import zoneinfo

SAST = zoneinfo.ZoneInfo("Africa/Johannesburg")
MORNING = dt.datetime(2027, 3, 3, 10, 0, tzinfo=SAST)
PASSWORD = "the-right-one-2026"
