"""bench/fill.py, lookup.py and standing.py at a tiny size, sharing one filled database of their
own: each runs to the end and prints its figures (no timing asserted)."""

import pytest

from .smoke import database_url, drop_database, fill, run_script

pytestmark = pytest.mark.slow

URL = database_url("promodesk_smoke_fill_lookup_standing")


@pytest.fixture(scope="module")
def filled():
    output = fill(URL, members=2_000, points=20_000)
    yield URL, output
    drop_database(URL)


def test_fill_loads_and_checks_the_rows(filled):
    url, output = filled
    assert "2,000 members, 20,000 points rows" in output
    assert "verify" in output
    # A second run finds the sizes and leaves the data alone.
    assert "Already filled" in run_script("fill.py", "--members", "2000", "--points", "20000", "--database-url", url)


def test_lookup_runs_at_a_tiny_size(filled):
    url, _ = filled
    output = run_script("lookup.py", "--iterations", "10", "--baseline-iterations", "3", "--database-url", url)
    for line in ("card number", "SA ID number", "EXPLAIN (ANALYZE, BUFFERS)"):
        assert line in output, f"{line!r} missing from:\n{output[-3000:]}"


def test_standing_runs_at_a_tiny_size(filled):
    url, _ = filled
    output = run_script(
        "standing.py",
        "--old-runs",
        "1",
        "--read-runs",
        "5",
        "--page-runs",
        "2",
        "--old-page-runs",
        "1",
        "--database-url",
        url,
    )
    for line in ("(a) old page's count", "(b) draw_standing_refresh", "(c) new page's read", "Ratios of medians"):
        assert line in output, f"{line!r} missing from:\n{output[-3000:]}"
