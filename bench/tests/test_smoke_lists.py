"""bench/lists.py at a tiny size (issue 17, item 5): the script still runs against today's code and
prints its figures; no timing is asserted. More than 10,000 events, so the audit log pages by
keyset and says "about" as it does at 2,000,000."""

import pytest


@pytest.mark.slow
def test_the_lists_bench_runs_at_a_tiny_size(run_bench):
    out = run_bench(
        "lists.py", "--members", "300", "--events", "12000", "--draws", "60", "--imports", "60", "--rounds", "1",
        db_name="promodesk_smoke_lists",
    ).stdout  # fmt: skip
    for line in ("code: keyset paging", "login page", "bare SELECT", "audit: last page", "members: middle page"):
        assert line in out
    assert "draws: all, last page" in out and "imports: rejected only" in out
    assert "Showing 1\N{EN DASH}50 of about 12,000 events" in out
    assert "worst list page p95:" in out
