"""bench/members_import.py runs end to end at a tiny size (issue 17, item 5): a renamed service
breaks this test, not the next measurement. No time is asserted."""

import pytest


@pytest.mark.slow
def test_the_members_import_bench_runs_at_a_tiny_size(run_bench):
    run = run_bench("members_import.py", "--rows", "300", "--rounds", "1", db_name="promodesk_smoke_members_import")
    out = run.stdout
    assert "round 1: floor" in out and "round 1: project" in out
    assert out.count("cpu: python") == 2  # the backend's too where PostgreSQL runs on this machine
    assert "members import (project):" in out and "rows/s" in out
    assert "ratio project/floor time:" in out
