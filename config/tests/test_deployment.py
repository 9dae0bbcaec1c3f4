"""Setting it up for real (issue 16, parts 5 and 6): docker-compose.yml's healthchecks and start
order, .env.example and the README's settings table naming every variable, the image's
healthcheck script, and make test's `makemigrations --check` printing no warning."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.test import LiveServerTestCase

BASE = Path(settings.BASE_DIR)
COMPOSE = yaml.safe_load((BASE / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
APP_SERVICES = ("web", "worker", "beat")  # long-running, from our image
VARIABLE = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)")  # ${NAME}, ${NAME:-default}, ${NAME:?message}

sys.path.insert(0, str(BASE / "deploy"))
import healthcheck  # noqa: E402 (deploy/ is not a package: the image runs it as a script)


def _healthcheck_command(service: str) -> str:
    test = SERVICES[service]["healthcheck"]["test"]
    assert test[0] in ("CMD", "CMD-SHELL"), service
    return " ".join(test[1:])


def test_every_long_running_service_has_a_healthcheck():
    for name, service in SERVICES.items():
        if name == "migrate":
            continue
        check = service.get("healthcheck")
        assert check and not check.get("disable"), f"{name} has no healthcheck"
        # Each probe ends well within its interval, and compose gives up on it at its timeout.
        assert _seconds(check["timeout"]) < _seconds(check["interval"]), name


def test_web_asks_healthz_worker_pings_beat_checks_the_tick():
    assert _healthcheck_command("web") == "python deploy/healthcheck.py http://127.0.0.1:8000/healthz"
    assert re.fullmatch(
        r"celery -A config inspect ping --destination celery@\$\$HOSTNAME --timeout \d+ >/dev/null",
        _healthcheck_command("worker"),
    )
    assert _healthcheck_command("beat") == "python manage.py health --only tick"
    # The one-shot migrate runs no web server: the image's HEALTHCHECK would fail there.
    assert SERVICES["migrate"]["healthcheck"] == {"disable": True}
    dockerfile = (BASE / "Dockerfile").read_text()
    assert 'CMD ["python", "deploy/healthcheck.py", "http://127.0.0.1:8000/healthz"]' in dockerfile


def test_the_app_starts_after_healthy_servers_and_a_finished_migrate():
    for name in APP_SERVICES:
        depends = SERVICES[name]["depends_on"]
        assert depends == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
            "migrate": {"condition": "service_completed_successfully"},
        }, name
    assert SERVICES["migrate"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }


def _compose_variables() -> set[str]:
    return set(VARIABLE.findall((BASE / "docker-compose.yml").read_text()))


def _env_example() -> dict[str, str]:
    """NAME -> the comment lines just above it."""
    found, comment = {}, []
    for line in (BASE / ".env.example").read_text().splitlines():
        if line.startswith("#"):
            comment.append(line)
        elif "=" in line:
            found[line.split("=", 1)[0]] = "\n".join(comment)
            comment = []
        else:
            comment = []
    return found


def _readme_settings() -> set[str]:
    readme = (BASE / "README.md").read_text()
    table = readme.split("## Settings (environment)", 1)[1].split("\n## ", 1)[0]
    first_cells = [row.split(" | ")[0] for row in table.splitlines() if row.startswith("| `")]
    return {name for cell in first_cells for name in re.findall(r"`([A-Z_0-9]+)`", cell)}


def _settings_variables() -> set[str]:
    source = (BASE / "config" / "settings.py").read_text()
    return set(re.findall(r'env_(?:str|int|bool|list)\("([A-Z_0-9]+)"', source)) | set(
        re.findall(r'os\.environ\.get\("([A-Z_0-9]+)"', source)
    )


def test_env_example_holds_every_variable_compose_reads_each_with_a_comment():
    example = _env_example()
    assert _compose_variables() == set(example), "docker-compose.yml and .env.example name different variables"
    for name, comment in example.items():
        assert comment, f"{name} in .env.example needs a comment saying what it is"


def test_env_example_has_no_secret_filled_in():
    for line in (BASE / ".env.example").read_text().splitlines():
        name, _, value = line.partition("=")
        if not line.startswith("#") and re.search(r"SECRET|PASSWORD", name):
            assert value == "", f"{name}: leave it empty, compose then refuses to start until it is set"


def test_the_readme_names_every_setting():
    named = _readme_settings()
    needed = _compose_variables() | _settings_variables() | {"TEST_REDIS_URL", "PORT"}
    assert not needed - named, f"add to the README's settings table: {sorted(needed - named)}"


def _seconds(text: str) -> float:
    units = {"s": 1, "m": 60}
    return float(text[:-1]) * units[text[-1]]


def test_the_host_header_is_one_allowed_hosts_accepts():
    assert healthcheck.host_header("promotions.example.co.za,other.example") == "promotions.example.co.za"
    assert healthcheck.host_header(" .example.co.za ") == "example.co.za"
    assert healthcheck.host_header("*") == "localhost"
    assert healthcheck.host_header("") == "localhost"


@pytest.mark.skipif("DATABASE_URL" in os.environ, reason="checks the default test database only")
def test_makemigrations_check_prints_no_warning():
    """make test's `makemigrations --check` with no DATABASE_URL: nothing a newcomer reads as an error."""
    env = {k: v for k, v in os.environ.items() if k not in ("TEST_DATABASE_NAME", "DATABASE_URL")}
    result = subprocess.run(
        [sys.executable, "manage.py", "makemigrations", "--check", "--dry-run"],
        env={**env, "APP_ENV": "test"},
        cwd=BASE,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == "", result.stderr
    assert result.stdout.strip() == "No changes detected"


class HealthcheckScriptTest(LiveServerTestCase):
    """deploy/healthcheck.py against a real server: 0 when /healthz says 200, 1 on 503."""

    def test_exit_code_follows_healthz(self):
        import datetime as dt

        from django.utils import timezone

        from core.models import WorkerHeartbeat

        url = f"{self.live_server_url}/healthz"
        beat = WorkerHeartbeat.objects.create(name="beat", last_tick_at=timezone.now())
        saved = os.environ.get("ALLOWED_HOSTS")
        os.environ["ALLOWED_HOSTS"] = "localhost"
        try:
            assert healthcheck.main(["healthcheck.py", url]) == 0
            beat.last_tick_at = timezone.now() - dt.timedelta(minutes=3)
            beat.save()
            assert healthcheck.main(["healthcheck.py", url]) == 1
            assert healthcheck.main(["healthcheck.py", "http://127.0.0.1:9/healthz"]) == 1  # nothing there
        finally:
            if saved is None:
                os.environ.pop("ALLOWED_HOSTS")
            else:
                os.environ["ALLOWED_HOSTS"] = saved
