"""bench/allocation.py at a tiny size on its own database (filled by bench/fill.py): both rules
run to the end and print their figures (no timing asserted)."""

import pytest

from .smoke import database_url, drop_database, fill, run_script

pytestmark = pytest.mark.slow

URL = database_url("promodesk_smoke_allocation")


@pytest.fixture(scope="module")
def filled():
    fill(URL, members=3_000, points=30_000)
    yield URL
    drop_database(URL)


@pytest.mark.parametrize("rule", ["bench", "visits"])
def test_allocation_runs_at_a_tiny_size(filled, rule):
    output = run_script(
        "allocation.py", "--rule", rule, "--runs", "1", "--member-runs", "20", "--no-explain", "--database-url", filled
    )
    for line in (
        "bare GROUP BY [server]",
        "draw_allocations(draw)",
        "allocation statement [server]",
        "What-if allocations identical to draw_allocations: yes",
        "allocation_overview(draw)",
        "member_allocation(draw, member):",
        "drawn at random from the allocation",
    ):
        assert line in output, f"{line!r} missing from:\n{output[-3000:]}"
    assert "x  within" in output or "x  MISSES" in output  # a ratio against the bare GROUP BY
