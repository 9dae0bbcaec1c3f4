"""`pytest --clock-readers-out` / `--clock-readers` (testing/clock_readers.py), run in a pytest of
its own so that this session's watch on the clock stays out of it."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

INNER_CONFTEST = """
import django
from django.conf import settings

settings.configure(USE_TZ=True, TIME_ZONE="Africa/Johannesburg")
django.setup()
"""

INNER_TESTS = """
import datetime as dt
import logging
import time

import pytest
import time_machine
from django.utils import timezone
from django.utils.timesince import timesince

from helper import today_here


def test_reads_the_clock():
    assert dt.datetime.now().year > 2000


def test_reads_it_through_django():
    assert timezone.localdate().year > 2000


def test_reads_it_through_the_projects_code():
    assert today_here().year > 2000


def test_says_how_long_ago():
    assert timesince(dt.datetime(2020, 1, 1, tzinfo=dt.UTC))


def test_pins_its_own_time():
    with time_machine.travel(dt.datetime(2020, 1, 1, tzinfo=dt.UTC), tick=False):
        assert dt.datetime.now(dt.UTC).year == 2020
        assert timezone.localdate().year == 2020


def test_only_a_library_reads_it():
    logging.getLogger("inner").warning("a log record is stamped with time.time()")
    time.monotonic()


def test_reads_it_only_to_stamp_a_row():
    from helper import stamp

    assert stamp().year > 2000


def test_never_reads_it():
    "Reads no clock: the recorder must not list it."


@pytest.fixture(scope="module")
def this_morning():
    return dt.datetime.now().replace(hour=9)


def test_uses_a_module_fixture_that_read_it(this_morning):
    assert this_morning.hour == 9
"""

INNER_OTHER_MODULE = """
import datetime as dt

STARTED = dt.datetime.now()


def test_a_module_that_read_the_clock_when_imported():
    assert STARTED.year > 2000


def test_its_other_test():
    "Reads no clock itself: listed only through its module's import."
"""

READERS = {
    "test_inner.py::test_reads_the_clock",
    "test_inner.py::test_reads_it_through_django",
    "test_inner.py::test_reads_it_through_the_projects_code",
    "test_inner.py::test_says_how_long_ago",
    "test_inner.py",  # the module fixture's read: every test of the module
    "test_other.py",  # read when imported: every test of the module
}


def run_pytest(
    tmp_path: Path, *args: str, helper: str = "", stamp: str = "helper.py:stamp"
) -> subprocess.CompletedProcess:
    (tmp_path / "conftest.py").write_text(textwrap.dedent(INNER_CONFTEST))
    (tmp_path / "helper.py").write_text(
        "from django.utils import timezone\n\n\ndef today_here():\n    return timezone.localdate()\n"
        "\n\ndef stamp():\n    return timezone.now()\n" + helper
    )
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(INNER_TESTS))
    (tmp_path / "test_other.py").write_text(textwrap.dedent(INNER_OTHER_MODULE))
    # Not this project's settings: its own stamp only.
    (tmp_path / "pytest.ini").write_text(f"[pytest]\nclock_stamps =\n    {stamp}\n")
    plugins = ["-p", "no:django", "-p", "no:cacheprovider", "-p", "testing.clock", "-p", "testing.clock_readers"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *plugins, *args],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{REPO}:{tmp_path}"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("processes", [[], ["-n", "2"]], ids=["one process", "xdist"])
def test_the_main_pass_lists_the_tests_that_read_the_time_of_day_unpinned(tmp_path, processes):
    result = run_pytest(tmp_path, "--clock-readers-out=readers.txt", *processes)

    assert result.returncode == 0, result.stdout + result.stderr
    assert set((tmp_path / "readers.txt").read_text().splitlines()) == READERS
    # Beside it, the read that listed each: where to pin the test, or the stamp to name.
    where = dict(line.split("\t") for line in (tmp_path / "readers-where.txt").read_text().splitlines())
    assert where.keys() == READERS
    assert where["test_inner.py::test_reads_it_through_the_projects_code"] == "helper.py:5 today_here"
    assert where["test_inner.py::test_reads_it_through_django"].endswith(" test_reads_it_through_django")
    assert "/django/utils/timesince.py:" in where["test_inner.py::test_says_how_long_ago"]
    assert where["test_inner.py"].endswith(" this_morning")
    assert where["test_other.py"].endswith("test_other.py:4 (when imported)")


def test_a_clock_run_runs_only_the_listed_tests_and_modules(tmp_path):
    (tmp_path / "readers.txt").write_text("test_inner.py::test_reads_the_clock\ntest_other.py\n")
    result = run_pytest(tmp_path, "--clock=03:00", "--clock-readers=readers.txt", "-v")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed, 8 deselected" in result.stdout
    assert "test_inner.py::test_reads_the_clock PASSED" in result.stdout
    assert "test_other.py::test_its_other_test PASSED" in result.stdout


def test_a_read_at_import_outside_a_test_module_fails_the_main_pass(tmp_path):
    result = run_pytest(
        tmp_path, "--clock-readers-out=readers.txt", helper="\nimport time\n\nLOADED_AT = time.time()\n"
    )

    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout + result.stderr
    assert "clock read while no test ran" in result.stdout and "helper.py:13" in result.stdout


def test_watching_and_moving_the_clock_do_not_go_together(tmp_path):
    result = run_pytest(tmp_path, "--clock-readers-out=readers.txt", "--clock=03:00")

    assert result.returncode == pytest.ExitCode.USAGE_ERROR
    assert "cannot go with --clock" in result.stderr


def test_a_stamp_that_names_no_function_stops_the_main_pass(tmp_path):
    result = run_pytest(tmp_path, "--clock-readers-out=readers.txt", stamp="helper.py:stamped")

    assert result.returncode != 0
    assert "clock_stamps names 'helper.py:stamped', but helper.py defines no stamped()" in result.stderr
