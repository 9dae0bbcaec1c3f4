"""bench/audit_seal.py: 2,000 events over 3 days (the script exits 1 unless verify_chain finds
every link intact)."""

import pytest

pytestmark = pytest.mark.slow


def test_audit_seal_bench_runs_at_a_tiny_size(run_bench):
    result = run_bench(
        "audit_seal.py", "--events", "2000", "--days", "3", "--writes", "20", db_name="promodesk_smoke_seal"
    )
    for line in (
        "filled 2,000 events over",
        "alone: 20 audit_log writes, median",
        "seal_due: ",
        "during the seal: ",
        "verify_chain: ",
        "every link intact",
    ):
        assert line in result.stdout
