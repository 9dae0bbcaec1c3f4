"""The tick's steps are isolated: one failing step is logged and the others still run."""

import logging

from config import tasks
from core.models import WorkerHeartbeat


def test_a_failing_step_does_not_stop_the_others(db, monkeypatch, caplog):
    ran = []

    def broken():
        raise RuntimeError("database is locked")

    monkeypatch.setattr(
        tasks, "TICK_STEPS", [("close due draws", broken), ("fail abandoned imports", lambda: ran.append("imports"))]
    )
    with caplog.at_level(logging.ERROR, logger="config.tasks"):
        failed = tasks.tick()

    assert failed == ["close due draws"]
    assert ran == ["imports"]
    assert "Tick step 'close due draws' failed" in caplog.text
    assert WorkerHeartbeat.objects.get(name="beat").ticks == 1


def test_every_step_runs_when_none_fails(db, monkeypatch):
    ran = []
    monkeypatch.setattr(tasks, "TICK_STEPS", [("a", lambda: ran.append("a")), ("b", lambda: ran.append("b"))])

    assert tasks.tick() == []
    assert ran == ["a", "b"]
