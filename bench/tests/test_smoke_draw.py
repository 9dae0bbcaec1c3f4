"""bench/draw.py at 100 activations / 1,000 tickets (its default, 100,000,000 tickets, never runs here)."""

import pytest

pytestmark = pytest.mark.slow


def test_draw_bench_runs_at_a_tiny_size(run_bench):
    result = run_bench(
        "draw.py",
        *("--activations", "100", "--tickets", "1000", "--freeze-runs", "1", "--pick-runs", "3"),
        *("--baseline-runs", "1", "--jobs", "1"),
        db_name="promodesk_smoke_draw",
    )
    for line in (
        "canonical_entries(draw) + SHA-256:",
        "draw_close_window(draw_id=...), once:",
        "entries 100, tickets 1,000: as expected",
        "draws.engine.serial_owner, k = 1..5:",
        "bare SQL lookup, k = 1..5:",
        "ORDER BY random() LIMIT 5: median",
        "export_draw_record:",
        "python -m draws.verification (its own process):",
        "draw_verify (streamed from the database):",
        ">= 100x faster than the baseline:",
    ):
        assert line in result.stdout
