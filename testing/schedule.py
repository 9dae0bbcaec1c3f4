"""How `pytest -n N --dist loadfile` shares the modules out (pytest plugin).

As loadfile does, a module stays in one process, so its Celery worker and Chromium start once;
but the bench smoke tests (bench/tests/) go together to one process, and first: loadfile hands
out the modules with the most tests first, so these one-test modules of subprocesses came last,
side by side, and made the run's tail.
"""

import pytest

BENCH = "bench/tests/"


def _scheduling(base):
    class Scheduling(base):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return BENCH if scope.startswith(BENCH) else scope

        def _assign_work_unit(self, node) -> None:
            if BENCH in self.workqueue:
                self.workqueue.move_to_end(BENCH, last=False)
            super()._assign_work_unit(node)

    return Scheduling


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    return _scheduling(LoadFileScheduling)(config, log)
