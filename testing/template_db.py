"""One migrated database that the suite's databases are copied from (`CREATE DATABASE … TEMPLATE`).

Migrating from nothing costs 10-15 s of CPU on the shared 2-CPU machine, and make test did it
five times a run: once in each pytest-xdist process, once in each clock run, once for the bench
smoke tests. Now it is done once, into `promodesk_template_<fingerprint>`, and every test
database is a copy (about half a second). Django still runs `migrate` on the copy, which finds
nothing to apply but sends post_migrate: the application role's grants on the database itself
(`REVOKE TEMPORARY ON DATABASE`) are not copied with it and are made again there.

The fingerprint is a hash of every file that can change what migrate leaves: the apps' code
outside their tests (migrations, models, the post_migrate handlers), Django's version and the
application role's name (`DB_APP_ROLE`). A changed file gives a new name; older templates are
dropped when a new one is made. Two processes asking at once (xdist's, the clock runs) take turns
on an advisory lock, and a template is built under another name and renamed when complete, so a
half-built one is never copied.
"""

import contextlib
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import django
import psycopg
from django.conf import settings
from psycopg import sql

from testing.db import server_url

ROOT = Path(__file__).resolve().parents[1]
APPS = ("config", "core", "members", "promotions", "draws", "proxies", "prizes", "records")
PREFIX = "promodesk_template_"
_LOCK = 7_130_917  # pg_advisory_lock key: "the template is being checked or built"


def fingerprint() -> str:
    # The application role's name too: the template holds its grants.
    digest = hashlib.sha256(f"{django.__version__}\0{settings.DB_APP_ROLE}".encode())
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*")):
            relative = path.relative_to(ROOT)
            if path.suffix in (".py", ".sql") and "tests" not in relative.parts and "__pycache__" not in relative.parts:
                digest.update(str(relative).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def template_database(db: dict) -> str:
    """The name of a complete template on the server of `db`, migrated by this checkout's code."""
    name = PREFIX + fingerprint()
    with psycopg.connect(server_url(db, "postgres"), autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", [_LOCK])
        try:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
                _build(conn, db, name)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [_LOCK])
    return name


def _build(conn: psycopg.Connection, db: dict, name: str) -> None:
    building = f"{name}_building"
    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(building)))
    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(building)))
    # A process of its own: the suite's settings, none of the session's state (its clock, say).
    env = {**os.environ, "APP_ENV": "test", "DATABASE_URL": server_url(db, building)}
    env.pop("MIGRATION_DATABASE_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    conn.execute(sql.SQL("ALTER DATABASE {} RENAME TO {}").format(sql.Identifier(building), sql.Identifier(name)))
    stale = conn.execute(
        "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s", [PREFIX + "%", name]
    ).fetchall()
    for (old,) in stale:
        # Not FORCE: one a session is still connected to is left for a later build to drop.
        with contextlib.suppress(psycopg.errors.ObjectInUse):
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(old)))
