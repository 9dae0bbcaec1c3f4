"""The benches at a tiny size in make test (issue 17, item 5): a renamed service breaks a test
here, not the next measurement. No timing is ever asserted.

    def test_the_bench_runs(run_bench):
        result = run_bench("draw.py", "--activations", "100", db_name="promodesk_smoke_draw")
        assert "canonical_entries" in result.stdout
"""

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from psycopg import sql

from testing.db import server_url
from testing.template_db import template_database as shared_template

ROOT = Path(__file__).resolve().parents[2]


def database_url(name: str) -> str:
    """`name` on the suite's PostgreSQL server."""
    return server_url(settings.DATABASES["default"], name)


def drop_database(name: str) -> None:
    with psycopg.connect(database_url("postgres"), autocommit=True) as conn:
        # FORCE: a server the script left behind when it was killed must not keep the copy alive.
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def suffixed(name: str) -> str:
    """Two suites side by side (make test's clock runs, another checkout, xdist's processes): a database each."""
    for suffix in (os.environ.get("TEST_DATABASE_NAME"), os.environ.get("PYTEST_XDIST_WORKER")):
        name = f"{name}_{suffix}" if suffix else name
    return name


def template_database() -> str:
    """The suite's migrated template (testing/template_db.py), which each smoke database is
    copied from: migrating from nothing costs 10-15 s, the scripts' own migrate then little."""
    return shared_template(settings.DATABASES["default"])


@contextmanager
def smoke_database(db_name: str) -> Iterator[str]:
    """The URL of a copy of the migrated template, dropped afterwards: for a test that runs more
    than one script on the same data (fill.py, then the bench)."""
    db_name = suffixed(db_name)
    drop_database(db_name)
    with psycopg.connect(database_url("postgres"), autocommit=True) as conn:
        template = sql.Identifier(template_database())
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(db_name), template))
    try:
        yield database_url(db_name)
    finally:
        drop_database(db_name)


def run_bench(
    script: str, *args: str, db_name: str | None = None, url: str | None = None, timeout: float = 600
) -> subprocess.CompletedProcess:
    """`python bench/<script> <args> --database-url ...` from the repository's root; fails with
    the output unless it exits 0. The database: `url` (from smoke_database), or a copy of the
    migrated template named `db_name` dropped afterwards, or none for a script that makes its own
    server (pg_restart.py)."""
    if db_name:
        with smoke_database(db_name) as copy:
            return run_bench(script, *args, url=copy, timeout=timeout)
    command = [sys.executable, f"bench/{script}", *args] + (["--database-url", url] if url else [])
    with tempfile.TemporaryDirectory(prefix="bench-smoke-") as var:
        # VAR_DIR: the filesystem broker, cache and media of a development run stay out of var/.
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**os.environ, "VAR_DIR": var},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            # SIGINT: the scripts' finally blocks stop the gunicorn, worker or cluster they started.
            os.killpg(process.pid, signal.SIGINT)
            try:
                output, _ = process.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                output, _ = process.communicate()
            output += f"\n[killed after {timeout:.0f} s]"
    print(output)  # pytest shows it when the test fails
    assert process.returncode == 0, f"bench/{script} exited with {process.returncode}:\n{output[-4000:]}"
    return subprocess.CompletedProcess(command, process.returncode, output, "")


@pytest.fixture(name="run_bench", scope="session")
def run_bench_fixture():
    return run_bench


@pytest.fixture(name="smoke_database", scope="session")
def smoke_database_fixture():
    return smoke_database
