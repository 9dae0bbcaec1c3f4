"""bench/members_import.py runs end to end at a tiny size (issue 17, item 5): a renamed service
breaks this test, not the next measurement. No time is asserted."""

import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent.parent
DATABASE = "promodesk_smoke_members_import"


def _server_url(name: str) -> str:
    db = settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{name}"


def _drop() -> None:
    with psycopg.connect(_server_url("postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(DATABASE)))


@pytest.mark.slow
def test_the_members_import_bench_runs_at_a_tiny_size():
    _drop()  # a fresh machine's state: the script creates and migrates its database
    command = [sys.executable, "bench/members_import.py", "--rows", "300", "--rounds", "1"]
    try:
        done = subprocess.run(
            [*command, "--database-url", _server_url(DATABASE)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        _drop()
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "round 1: floor" in out and "round 1: project" in out
    assert "members import (project):" in out and "rows/s" in out
    assert "ratio project/floor time:" in out
