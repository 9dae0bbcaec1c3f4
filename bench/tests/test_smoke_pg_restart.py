"""bench/pg_restart.py on its own private cluster (never the suite's server), 2 clients for 4 s;
the script exits 1 if a request after the restart failed or a failure was not a clean 500/503."""

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.worker]


def test_pg_restart_bench_runs_at_a_tiny_size(run_bench):
    result = run_bench(
        "pg_restart.py",
        *("--seconds", "4", "--idle-seconds", "1", "--clients", "2", "--workers", "1", "--threads", "2"),
        *("--timeout", "30"),  # the machine may be loaded: a slow answer is not a hung one
        db_name=None,
    )
    for line in (
        "private cluster on 127.0.0.1:",
        "pg_ctl restart -m fast at +",
        "before the restart",
        "restart while idle",
        "gunicorn: same master, 1 workers booted in all (1 at start): yes",
        "tick after the restart: beat advanced in",
        "RESULT: ok",
    ):
        assert line in result.stdout
