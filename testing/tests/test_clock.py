"""`pytest --clock=HH:MM` (testing/clock.py), run in a pytest of its own so that this session's
clock, moved or not, stays out of it."""

import datetime as dt
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from testing.clock import session_moment, wall_time

REPO = Path(__file__).resolve().parents[2]

INNER_TESTS = """
import datetime as dt
from zoneinfo import ZoneInfo

import time_machine

JOHANNESBURG = ZoneInfo("Africa/Johannesburg")


def test_the_session_starts_at_the_wall_time_asked_for():
    now = dt.datetime.now(JOHANNESBURG)
    assert (now.hour, now.minute) == (3, 0)


def test_a_test_that_pins_its_own_time_still_gets_it():
    pinned = dt.datetime(2025, 10, 15, 13, 0, tzinfo=dt.UTC)
    with time_machine.travel(pinned, tick=False):
        assert dt.datetime.now(dt.UTC) == pinned
    assert dt.datetime.now(JOHANNESBURG).hour == 3


def test_the_clock_is_the_real_one(tmp_path):
    # A file's modification time comes from the kernel's clock, which time-machine leaves alone.
    marker = tmp_path / "now"
    marker.touch()
    real = dt.datetime.fromtimestamp(marker.stat().st_mtime, dt.UTC)
    assert abs(dt.datetime.now(dt.UTC) - real) < dt.timedelta(seconds=5)
"""


def run_pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(INNER_TESTS))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not this project's settings
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:django", "-p", "no:cacheprovider", "-p", "testing.clock", *args],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_whole_session_runs_at_the_johannesburg_time_asked_for(tmp_path):
    result = run_pytest(
        tmp_path,
        "--clock=03:00",
        "test_inner.py::test_the_session_starts_at_the_wall_time_asked_for",
        "test_inner.py::test_a_test_that_pins_its_own_time_still_gets_it",
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
    assert "03:00 Africa/Johannesburg" in result.stdout


def test_without_the_option_the_clock_is_not_moved(tmp_path):
    result = run_pytest(tmp_path, "test_inner.py::test_the_clock_is_the_real_one")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "clock: moved" not in result.stdout


@pytest.mark.parametrize("value", ["25:00", "3am", "03:00:00", ""])
def test_it_refuses_a_clock_that_is_not_a_wall_time(tmp_path, value):
    result = run_pytest(tmp_path, f"--clock={value}", "test_inner.py")

    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "--clock wants a wall time as HH:MM" in result.stderr


def test_a_wall_time_is_hours_and_minutes():
    assert wall_time("03:00") == dt.time(3, 0)
    assert wall_time("23:50") == dt.time(23, 50)


def test_today_is_the_day_in_johannesburg_not_in_utc():
    # 22h30 UTC on 30 November is already 00h30 on 1 December in Johannesburg.
    now = dt.datetime(2026, 11, 30, 22, 30, tzinfo=dt.UTC)

    assert session_moment(dt.time(3, 0), now=now) == dt.datetime(2026, 12, 1, 1, 0, tzinfo=dt.UTC)
    assert session_moment(dt.time(23, 50), now=now) == dt.datetime(2026, 12, 1, 21, 50, tzinfo=dt.UTC)
