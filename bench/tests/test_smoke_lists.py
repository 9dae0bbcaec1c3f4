"""bench/lists.py at a tiny size (issue 17, item 5): the script still runs against today's code and
prints its figures; no timing is asserted. More than 10,000 events, so the audit log pages by
keyset and says "about" as it does at 2,000,000."""

import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from psycopg import sql

ROOT = Path(__file__).resolve().parents[2]
DATABASE = "promodesk_smoke_lists"

pytestmark = pytest.mark.slow


def server_url(name: str) -> str:
    db = settings.DATABASES["default"]
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"


def drop(name: str) -> None:
    with psycopg.connect(server_url("postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def test_the_lists_bench_runs_at_a_tiny_size():
    drop(DATABASE)
    try:
        command = [sys.executable, "bench/lists.py", "--members", "300", "--events", "12000", "--draws", "60"]
        command += ["--imports", "60", "--rounds", "1", "--database-url", server_url(DATABASE)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    finally:
        drop(DATABASE)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for line in ("code: keyset paging", "login page", "bare SELECT", "audit: last page", "members: middle page"):
        assert line in done.stdout, done.stdout
    assert "draws: all, last page" in done.stdout and "imports: rejected only" in done.stdout
    assert "Showing 1\N{EN DASH}50 of about 12,000 events" in done.stdout
    assert "worst list page p95:" in done.stdout
