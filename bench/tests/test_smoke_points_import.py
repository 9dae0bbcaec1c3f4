"""bench/points_import.py at a tiny size (issue 17, item 5): a renamed service breaks this test,
not the next measurement. No time is asserted."""

import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
NAME = "promodesk_smoke_points_import"
SERVER = "postgres://postgres@127.0.0.1:5432"


def _drop() -> None:
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {NAME} WITH (FORCE)")


@pytest.mark.slow
def test_points_import_bench_runs_at_a_tiny_size():
    url = f"{SERVER}/{NAME}"
    _drop()
    try:
        fill = [sys.executable, "bench/fill.py", "--members", "2000", "--points", "5000", "--database-url", url]
        subprocess.run(fill, cwd=ROOT, check=True, capture_output=True, timeout=300)
        bench = [sys.executable, "bench/points_import.py", "--rows", "2000", "--rounds", "1", "--database-url", url]
        done = subprocess.run(bench, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        for figure in ("project / floor:", "project / bare:", "project rows/s:", "project peak Python memory"):
            assert figure in done.stdout, done.stdout
        for name in ("project", "floor", "bare"):
            assert f"round 1 {name}" in done.stdout
    finally:
        _drop()
