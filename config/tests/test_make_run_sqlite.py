"""`make run` on its zero-setup defaults: the Makefile's own setup steps (migrate and every seed
command of its `run` target, read from the Makefile, so a step added there is tested here) run
on SQLite in processes of their own, then testing/make_run_check.py reads what every demo user's
home page leads to and has a kiosk activate a member's tickets through the device API.

The suite's database is PostgreSQL, where the activation and the kiosk read are statements
SQLite cannot run; this test is what keeps their portable twins working
(draws.services._activate_portably, draws.selectors._member_open_draws_portably)."""

import json
import re

import pytest
from django.conf import settings

from testing.development import development_env, run

pytestmark = pytest.mark.slow  # about 40 s of subprocesses; the check makes its own open window

PAGES_PER_USER = 40


def make_run_steps() -> list[list[str]]:
    """The `manage.py` commands of the Makefile's `run` target, in order."""
    makefile = (settings.BASE_DIR / "Makefile").read_text()
    recipe = re.search(r"^run: \$\(BIN\)/\.installed\n((?:\t.*\n)+)", makefile, re.MULTILINE).group(1)
    return [line.split("manage.py", 1)[1].split() for line in recipe.splitlines() if "manage.py" in line]


def test_the_makefile_names_its_setup_steps():
    steps = make_run_steps()
    assert steps[0] == ["migrate", "--noinput"]
    assert ["seed_demo_draws"] in steps and len(steps) >= 5


def test_make_run_sets_up_and_serves_the_desk_and_the_kiosks_on_sqlite(tmp_path):
    env = development_env(tmp_path / "var")
    for step in make_run_steps():
        run(["manage.py", *step], env, timeout=180)
    assert (tmp_path / "var" / "promodesk.sqlite3").exists()

    done = run(["-m", "testing.make_run_check", str(PAGES_PER_USER)], env, timeout=180)
    report = json.loads(done.stdout.strip().splitlines()[-1])

    assert report["errors"] == []
    assert set(report["pages"]) >= {"admin", "auditor", "cashier", "desk", "manager", "stage"}
    assert all(read > 5 for read in report["pages"].values()), report["pages"]
    kiosk = report["kiosk"]
    assert "error" not in kiosk, kiosk
    assert kiosk["read"] == 200
    assert kiosk["offered"] == kiosk["tickets"] > 0
    assert kiosk["activation"] == 201
    assert kiosk["activated"] == kiosk["tickets"]
    assert kiosk["again"] == "already_activated"
