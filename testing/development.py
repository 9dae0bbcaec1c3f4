"""`make run`'s zero-setup environment for tests that run the project in processes of their own
(SQLite under a VAR_DIR of the test's, no DATABASE_URL, no broker), while the suite's own
database is PostgreSQL."""

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

KEPT_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")


def development_env(var_dir: Path) -> dict[str, str]:
    """`make run`'s environment with nothing configured: no DATABASE_URL, no broker, no Redis."""
    kept = {name: os.environ[name] for name in KEPT_ENVIRONMENT if name in os.environ}
    return {
        **kept,
        "APP_ENV": "development",
        "VAR_DIR": str(var_dir),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONUNBUFFERED": "1",
    }


def run(command: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """`python COMMAND...` in the project's folder; fails the test with its output unless it exits 0."""
    done = subprocess.run(  # noqa: S603 (the test's own command line)
        [sys.executable, *command], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done
