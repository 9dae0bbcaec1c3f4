"""bench/payout_race.py: 3 cashiers on one gunicorn worker, one round (the script exits 1 unless
exactly one payout is written and every other cashier is told "already paid")."""

import pytest

pytestmark = pytest.mark.slow


def test_payout_race_bench_runs_at_a_tiny_size(run_bench):
    result = run_bench(
        "payout_race.py",
        *("--cashiers", "3", "--workers", "1", "--threads", "3", "--rounds", "1"),
        db_name="promodesk_smoke_payout",
    )
    assert "3 POSTs at once -> payouts written 1 (expected 1)" in result.stdout
    assert "1 paid, 2 told 'already paid', 0 other" in result.stdout
    assert "burst " in result.stdout
