"""Which tests read the time of day (pytest plugin): `make test`'s clock runs repeat only those.

    pytest --clock-readers-out=FILE     # the main pass: write the readers' node ids to FILE
                                        # (and to FILE-where, each with the read that listed it)
    pytest --clock-readers=FILE --clock=03:00   # run only the tests (or modules) FILE names

In the main pass, Python's clock is watched: time-machine is started under the whole session
with a traveller that gives the real time and notes who asked. A test that pins its own time
(`time_machine.travel`) puts its own traveller on top, so its reads are not seen: its outcome
cannot depend on the hour the suite runs at. A read that is seen counts when the code that asked
is the project's (an app, a test, a fixture, `testing/`), directly or through
`django.utils.timezone` (`now()`, `localdate()`, `localtime()`), or one of Django's helpers that
turn the clock into words (humanize, timesince, the `{% now %}` tag). Reads made inside Django
and the libraries for their own sake (auto_now timestamps, sessions, logging, pytest's timing)
do not count: they stamp a row, they decide nothing; nor do the project functions the ini's
`clock_stamps` names, whose read is such a stamp too (a sign-in's time). A read by a fixture of module scope or wider
marks the whole module; a read by project code while no test runs (an import) marks the file
that read, which must be a test module (any other file reading the clock at import time makes
the main pass fail: that value would be the main pass's hour in every clock run).

Only Python's clock is watched (PostgreSQL's now(), a Celery worker, Chromium keep the real
time), as only Python's clock is moved by `--clock`.
"""

import re
import sys
from pathlib import Path

import _time_machine
import pytest
import time_machine

_WATCH = pytest.StashKey["_Watch"]()
# Modules that only pass a read on: the project code that called them asked.
_PASS_ON = (f"{Path(time_machine.__file__).parent}/", "/django/utils/timezone.py")
# Django code that turns the clock into what a page says ("yesterday", "3 hours ago", the year).
_SAYS_THE_TIME = ("/django/contrib/humanize/", "/django/utils/timesince.py", "/django/template/defaulttags.py")


class _Watch:
    def __init__(self, root: Path, stamps: list[str] = ()) -> None:
        self.root = f"{root}/"
        self.stamps = {f"{self.root}{stamp}" for stamp in stamps}  # "file:function", as in the ini
        # What a read marks now: a node id, a module's path, "" (nothing) or None (no test runs).
        self.key: str | None = None
        self.sites: dict[str, str] = {}  # the keys marked, each with its first read: "path:line function"
        self.outside: dict[str, str] = {}  # reads while no test ran: file -> first site
        self._kinds: dict[str, str] = {}

    def _kind(self, filename: str) -> str:
        kind = self._kinds.get(filename)
        if kind is None:
            if any(part in filename for part in _PASS_ON):
                kind = "pass"
            elif self._ours(filename) or any(part in filename for part in _SAYS_THE_TIME):
                kind = "project"
            else:
                kind = "library"
            self._kinds[filename] = kind
        return kind

    def _ours(self, filename: str) -> bool:
        return filename.startswith(self.root) and "/site-packages/" not in filename and "/.venv/" not in filename

    def read(self, frame) -> None:
        while frame is not None and self._kind(frame.f_code.co_filename) == "pass":
            frame = frame.f_back
        if frame is None or self._kind(frame.f_code.co_filename) != "project":
            return
        if self.stamps and f"{frame.f_code.co_filename}:{frame.f_code.co_name}" in self.stamps:
            return
        if self.key:
            if self.key not in self.sites:
                self.sites[self.key] = self._site(frame)
        elif self.key is None:
            filename = frame.f_code.co_filename
            self.outside.setdefault(filename, f"{filename}:{frame.f_lineno}")

    def _site(self, frame) -> str:
        filename = frame.f_code.co_filename
        shown = filename.removeprefix(self.root) if self._ours(filename) else filename
        return f"{shown}:{frame.f_lineno} {frame.f_code.co_name}"


class _Watcher(time_machine.Traveller):
    """The session's traveller: the real time, and a note of who asked for it."""

    def __init__(self, watch: _Watch) -> None:
        super().__init__(0, None, tick=True)
        self.watch = watch

    def time_ns(self) -> int:
        self.watch.read(sys._getframe(1))
        return _time_machine.original_time_ns()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        "clock_stamps",
        type="linelist",
        default=[],
        help="project functions (path:function) whose clock read only stamps an instant, as auto_now does",
    )
    group = parser.getgroup("clock")
    group.addoption(
        "--clock-readers-out",
        metavar="FILE",
        default=None,
        help="write the node ids of the tests that read the time of day unpinned to FILE",
    )
    group.addoption(
        "--clock-readers",
        metavar="FILE",
        default=None,
        help="run only the tests FILE names (written by --clock-readers-out)",
    )


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("clock_readers_out", default=None):
        return
    if config.getoption("clock", default=None) is not None:
        raise pytest.UsageError("--clock-readers-out watches the real clock: it cannot go with --clock")
    if getattr(config.option, "numprocesses", None) and not _is_worker(config):
        config.stash[_WATCH] = _Watch(config.rootpath)  # the controller only gathers what workers saw
        return
    stamps = config.getini("clock_stamps")
    _check_stamps(config.rootpath, stamps)
    watch = _Watch(config.rootpath, stamps)
    travel = time_machine.travel(0)
    travel.start()
    # time-machine's patched functions ask the top traveller for the time: ours, unless a test
    # pins its own on top of it.
    time_machine.traveller_stack[-1] = _Watcher(watch)
    watch.travel = travel
    config.stash[_WATCH] = watch


def _check_stamps(root: Path, stamps: list[str]) -> None:
    """Each clock_stamps entry names a function that is there: a misspelt or renamed one would
    silently stop counting as a stamp (and its tests would run in every clock run again)."""
    for stamp in stamps:
        filename, _, function = stamp.rpartition(":")
        path = root / filename
        if not path.is_file() or not re.search(rf"^\s*def {re.escape(function)}\(", path.read_text(), re.MULTILINE):
            raise pytest.UsageError(f"clock_stamps names {stamp!r}, but {filename} defines no {function}()")


def pytest_unconfigure(config: pytest.Config) -> None:
    watch = config.stash.get(_WATCH, None)
    if watch is not None and hasattr(watch, "travel"):
        watch.travel.stop()
        del watch.travel


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    watch = item.config.stash.get(_WATCH, None)
    if watch is not None:
        watch.key = item.nodeid
    try:
        return (yield)
    finally:
        if watch is not None:
            watch.key = None


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest):
    watch = request.config.stash.get(_WATCH, None)
    if watch is None or fixturedef.scope == "function" or not watch.key:
        return (yield)
    # A wider fixture's value serves every test of the module (at least): they all depend on it.
    # Not the test database's migrations, which run on empty tables: no test's data.
    key = "" if fixturedef.argname == "django_db_setup" else watch.key.split("::", 1)[0]
    saved, watch.key = watch.key, key
    try:
        return (yield)
    finally:
        watch.key = saved


def where_path(readers: Path) -> Path:
    """Beside FILE, each listed key with the read that listed it (clock-readers-where.txt)."""
    return readers.with_name(f"{readers.stem}-where{readers.suffix}")


def _write(config: pytest.Config, watch: _Watch) -> list[str]:
    """Write the marked tests and modules, and beside them the read that marked each (so that
    a test listed for a stamp can be pinned, or the stamp named in clock_stamps); return the
    reads at import time outside test modules."""
    sites = dict(watch.sites)
    not_tests = []
    for filename, site in watch.outside.items():
        if Path(filename).name.startswith("test_"):
            sites[str(Path(filename).relative_to(config.rootpath))] = f"{site} (when imported)"
        else:
            not_tests.append(site)
    readers = Path(config.getoption("clock_readers_out"))
    readers.write_text("".join(f"{key}\n" for key in sorted(sites)))
    where_path(readers).write_text("".join(f"{key}\t{sites[key]}\n" for key in sorted(sites)))
    return sorted(not_tests)


def pytest_sessionfinish(session: pytest.Session) -> None:
    watch = session.config.stash.get(_WATCH, None)
    if watch is None:
        return
    if _is_worker(session.config):
        session.config.workeroutput["clock_readers"] = watch.sites
        session.config.workeroutput["clock_outside"] = watch.outside
        return
    not_tests = _write(session.config, watch)
    if not_tests:
        # A value taken from the clock at import would be the main pass's hour in every clock run.
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line("clock read while no test ran, so no clock run can move it: " + ", ".join(not_tests))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    watch = node.config.stash.get(_WATCH, None)
    output = getattr(node, "workeroutput", {})
    if watch is not None:
        watch.sites.update(output.get("clock_readers", {}))
        watch.outside.update(output.get("clock_outside", {}))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = config.getoption("clock_readers", default=None)
    if not path:
        return
    wanted = set(Path(path).read_text().split("\n")) - {""}
    keep, drop = [], []
    for item in items:
        (keep if item.nodeid in wanted or item.nodeid.split("::", 1)[0] in wanted else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
