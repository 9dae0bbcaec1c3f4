"""The tick's steps are isolated: one failing step is logged and the others still run."""

import logging

from config import tasks
from core.models import WorkerHeartbeat


def test_a_failing_step_does_not_stop_the_others(db, monkeypatch, caplog):
    ran = []

    def broken():
        raise RuntimeError("database is locked")

    monkeypatch.setattr(
        tasks,
        "TICK_STEPS",
        [
            ("record the heartbeat", tasks.tick_run),
            ("close due draws", broken),
            ("fail abandoned imports", lambda: ran.append("imports")),
        ],
    )
    with caplog.at_level(logging.ERROR, logger="config.tasks"):
        failed = tasks.tick()

    assert failed == ["close due draws"]
    assert ran == ["imports"]
    assert "Tick step 'close due draws' failed" in caplog.text
    assert WorkerHeartbeat.objects.get(name="beat").ticks == 1


def test_a_failing_heartbeat_does_not_stop_the_work_that_is_due(db, monkeypatch):
    ran = []

    def locked():
        raise RuntimeError("database is locked")

    monkeypatch.setattr(
        tasks, "TICK_STEPS", [("record the heartbeat", locked), ("close due draws", lambda: ran.append("draws"))]
    )
    assert tasks.tick() == ["record the heartbeat"]
    assert ran == ["draws"]


def test_the_heartbeat_is_the_first_step(db):
    assert tasks.TICK_STEPS[0] == ("record the heartbeat", tasks.tick_run)
    tasks.tick()
    assert WorkerHeartbeat.objects.get(name="beat").ticks == 1
