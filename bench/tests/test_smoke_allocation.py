"""bench/allocation.py at a tiny size on its own database (filled by bench/fill.py): both rules
run to the end and print their figures (no timing asserted)."""

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def filled(run_bench, smoke_database):
    with smoke_database("promodesk_smoke_allocation") as url:
        run_bench("fill.py", "--members", "3000", "--points", "30000", url=url)
        yield url


@pytest.mark.parametrize("rule", ["bench", "visits"])
def test_allocation_runs_at_a_tiny_size(run_bench, filled, rule):
    options = ("--rule", rule, "--runs", "1", "--member-runs", "20", "--no-explain")
    output = run_bench("allocation.py", *options, url=filled)
    for line in (
        "bare GROUP BY [server]",
        "draw_allocations(draw)",
        "allocation statement [server]",
        "What-if allocations identical to draw_allocations: yes",
        "allocation_overview(draw)",
        "member_allocation(draw, member):",
        "drawn at random from the allocation",
    ):
        assert line in output.stdout, f"{line!r} missing"
    assert "x  within" in output.stdout or "x  MISSES" in output.stdout  # a ratio against the bare GROUP BY
