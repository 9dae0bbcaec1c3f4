"""bench/letters.py: 3 letters, one timed render of each kind, a worker of one process on the
suite's Redis database (its own queue)."""

import os

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.worker]


def test_letters_bench_runs_at_a_tiny_size(run_bench):
    redis_url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/14")  # as testing/worker.py
    result = run_bench(
        "letters.py",
        *("--letters", "3", "--runs", "1", "--concurrency", "1", "--redis-url", redis_url),
        db_name="promodesk_smoke_letters",
    )
    for line in (
        "(a) service (letter_render: claim, context, QR, render, store, audit): median",
        "(b) raw WeasyPrint, same HTML, fonts and sheets parsed once:",
        "(a) / (b), medians:",
        "(2) 3 letters through 1 worker(s) of 1 processes each",
        "letters/second (0 failed)",
    ):
        assert line in result.stdout
