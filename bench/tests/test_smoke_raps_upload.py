"""bench/raps_upload.py with a 1,000-row list (at 200 rows no slot player reaches the minimum
spend), once for the earlier commit's draws/raps.py and once per guard for this checkout's."""

import re

import pytest

pytestmark = pytest.mark.slow


def test_raps_upload_bench_runs_at_a_tiny_size(run_bench):
    result = run_bench("raps_upload.py", "--rows", "1000", "--runs", "1", db_name="promodesk_smoke_raps")
    uploads = re.findall(
        r"^  (.+?) +run 1: upload +[\d.]+ s, draw lock held +[\d.]+ s \( *\d+%\), ([\d,]+) rows qualify$",
        result.stdout,
        re.MULTILINE,
    )
    assert [label for label, _ in uploads] == [
        "before (2baa8e7), row guard",
        "this checkout, row guard",
        "this checkout, statement guard",
    ]
    qualifying = {count for _, count in uploads}
    assert len(qualifying) == 1 and qualifying != {"0"}  # the same list qualifies the same rows each time
    assert re.search(r"^  statement guard +run 1: [\d,]+ rows in +[\d.]+ s$", result.stdout, re.MULTILINE)
