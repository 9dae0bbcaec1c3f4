"""Shared by the bench smoke tests: run a bench script at a tiny size in a subprocess, on a
database of its own that is dropped afterwards (issue 17, item 5: a renamed service breaks a
test, not the next measurement). No timing is asserted."""

import subprocess
import sys
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = "postgres://postgres@127.0.0.1:5432"  # the bench scripts' server (bench/drawbench.DEFAULT_URL)


def database_url(name: str) -> str:
    return f"{SERVER}/{name}"


def run_script(script: str, *options: str, timeout: int = 300) -> str:
    """Runs bench/<script> with `options` from the repository root; returns its output, or fails
    the test with that output when it exits with an error."""
    done = subprocess.run(
        [sys.executable, f"bench/{script}", *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"bench/{script} exited with {done.returncode}:\n{output[-4000:]}"
    return output


def drop_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    name = urllib.parse.urlparse(url).path.lstrip("/")
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def fill(url: str, *, members: int, points: int) -> str:
    """A fresh tiny bench database (dropped first if a killed run left one)."""
    drop_database(url)
    return run_script("fill.py", "--members", str(members), "--points", str(points), "--database-url", url)
