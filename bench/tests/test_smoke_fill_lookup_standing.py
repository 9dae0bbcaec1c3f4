"""bench/fill.py, lookup.py and standing.py at a tiny size, sharing one filled database of their
own: each runs to the end and prints its figures (no timing asserted)."""

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def filled(run_bench, smoke_database):
    with smoke_database("promodesk_smoke_fill_lookup_standing") as url:
        yield url, run_bench("fill.py", "--members", "2000", "--points", "20000", url=url).stdout


def test_fill_loads_and_checks_the_rows(run_bench, filled):
    url, output = filled
    assert "2,000 members, 20,000 points rows" in output
    assert "verify" in output
    # A second run finds the sizes and leaves the data alone.
    assert "Already filled" in run_bench("fill.py", "--members", "2000", "--points", "20000", url=url).stdout


def test_lookup_runs_at_a_tiny_size(run_bench, filled):
    url, _ = filled
    output = run_bench("lookup.py", "--iterations", "10", "--baseline-iterations", "3", url=url).stdout
    for line in ("card number", "SA ID number", "EXPLAIN (ANALYZE, BUFFERS)"):
        assert line in output, f"{line!r} missing"


def test_standing_runs_at_a_tiny_size(run_bench, filled):
    url, _ = filled
    output = run_bench(
        "standing.py", "--old-runs", "1", "--read-runs", "5", "--page-runs", "2", "--old-page-runs", "1", url=url
    ).stdout
    for line in ("(a) old page's count", "(b) draw_standing_refresh", "(c) new page's read", "Ratios of medians"):
        assert line in output, f"{line!r} missing"
