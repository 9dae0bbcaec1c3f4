"""testing/schedule.py: under `--dist loadfile`, the bench smoke tests go to one process, first;
every other module stays whole in one process, handed out as loadfile does."""

from types import SimpleNamespace

from testing.schedule import pytest_xdist_make_scheduler

COLLECTION = [
    "config/tests/test_a.py::test_1",
    "config/tests/test_a.py::test_2",
    "config/tests/test_a.py::test_3",
    "draws/tests/test_b.py::test_1",
    "draws/tests/test_b.py::test_2",
    "bench/tests/test_smoke_x.py::test_1",
    "bench/tests/test_smoke_y.py::test_1",
    "bench/tests/test_smoke_y.py::test_2",
    "prizes/tests/test_c.py::test_1",
]


class Node:
    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[str] = []
        self.shutting_down = False

    def send_runtest_some(self, indices) -> None:
        self.sent += [COLLECTION[i] for i in indices]

    def shutdown(self) -> None:
        self.shutting_down = True


class Log:
    def __getattr__(self, name):
        return self

    def __call__(self, *args) -> None:
        pass


def config(dist: str):
    option = SimpleNamespace(loadscopereorder=True)
    values = {"dist": dist, "tx": ["2*popen"]}
    return SimpleNamespace(option=option, getvalue=values.__getitem__)


def run(scheduler, nodes):
    """Start the scheduler, then finish each node's tests in turn until nothing is left."""
    for node in nodes:
        scheduler.add_node(node)
    for node in nodes:
        scheduler.add_node_collection(node, COLLECTION)
    scheduler.schedule()
    done = dict.fromkeys(nodes, 0)
    while any(done[node] < len(node.sent) for node in nodes):
        for node in nodes:
            if done[node] < len(node.sent):
                scheduler.mark_test_complete(node, COLLECTION.index(node.sent[done[node]]))
                done[node] += 1


def test_the_bench_smoke_tests_go_first_to_one_process_and_every_module_stays_whole():
    first, second = Node("gw0"), Node("gw1")
    run(pytest_xdist_make_scheduler(config("loadfile"), Log()), [first, second])

    bench = [nodeid for nodeid in COLLECTION if nodeid.startswith("bench/")]
    assert first.sent[: len(bench)] == bench
    assert not any(nodeid.startswith("bench/") for nodeid in second.sent)
    assert sorted(first.sent + second.sent) == sorted(COLLECTION)  # each test once
    for module in ("config/tests/test_a.py", "draws/tests/test_b.py", "prizes/tests/test_c.py"):
        holders = [node for node in (first, second) if any(nodeid.startswith(module) for nodeid in node.sent)]
        assert len(holders) == 1, module


def test_other_distributions_are_left_to_pytest_xdist():
    assert pytest_xdist_make_scheduler(config("load"), Log()) is None
