"""bench/points_import.py at a tiny size (issue 17, item 5): a renamed service breaks this test,
not the next measurement. No time is asserted."""

import pytest


@pytest.mark.slow
def test_points_import_bench_runs_at_a_tiny_size(run_bench, smoke_database):
    with smoke_database("promodesk_smoke_points_import") as url:
        run_bench("fill.py", "--members", "2000", "--points", "5000", url=url)
        out = run_bench("points_import.py", "--rows", "2000", "--rounds", "1", url=url).stdout
    for figure in ("project / floor:", "project / bare:", "project rows/s:", "project peak Python memory"):
        assert figure in out
    for name in ("project", "floor", "bare"):
        assert f"round 1 {name}" in out
