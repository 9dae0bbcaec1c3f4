"""bench/activation_api.py at a tiny size (issue 17, item 5): a renamed service breaks this test,
not the next measurement. No timing is asserted; the script checks its own serials."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATABASE = "promodesk_smoke_activation_api"
URL = f"postgres://postgres@127.0.0.1:5432/{DATABASE}"


def _run(*command: str, timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False)


def _drop() -> None:
    _run("dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", "--force", DATABASE, timeout=60)


@pytest.mark.slow
def test_the_activation_bench_runs_at_a_tiny_size():
    _drop()
    try:
        fill = _run(
            sys.executable, "bench/fill.py", "--members", "1000", "--points", "10000", "--database-url", URL,
            timeout=300,
        )  # fmt: skip
        assert fill.returncode == 0, fill.stdout[-2000:] + fill.stderr[-2000:]
        bench = _run(
            sys.executable, "bench/activation_api.py", "--configs", "sync1", "--clients", "4", "--seconds", "1",
            "--max-requests", "40", "--in-process", "20", "--database-url", URL,
            timeout=300,
        )  # fmt: skip
        out = bench.stdout
        assert bench.returncode == 0, out[-3000:] + bench.stderr[-3000:]
        for line in (
            "activation_create, in process, one at a time",
            "SQL statements",
            "Draw row lock held: median",
            "GET members/{card}/draws through the test client",
            "baseline GET login page",
            "write POST activations",
            "read GET members/{card}/draws",
            "Verified: one activation per 201 response",
        ):
            assert line in out, f"{line!r} not printed:\n{out[-3000:]}"
    finally:
        _drop()
