"""Fixtures shared by the core tests."""

import datetime as dt

import pytest


@pytest.fixture
def login_limits(settings):
    """The sign-in throttle's default limits, which the throttle tests' numbers speak of (the
    environment may set others: LOGIN_FAILURE_LIMIT, LOGIN_COOLOFF_MINUTES, LOGIN_SHORT_PAUSE_SECONDS)."""
    settings.LOGIN_FAILURE_LIMIT = 5
    settings.LOGIN_COOLOFF = dt.timedelta(minutes=15)
    settings.LOGIN_SHORT_PAUSE = dt.timedelta(minutes=1)
