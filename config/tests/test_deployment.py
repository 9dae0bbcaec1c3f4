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


# --- scaling out: `docker compose up --scale web=N --scale worker=M` (issue 17, item 6) --------

SCALED = ("web", "worker")
NGINX = (BASE / "deploy" / "nginx.conf").read_text()


def test_no_service_has_a_fixed_container_name_and_scaled_ones_no_host_port():
    """Two replicas cannot share a container name, nor one host port."""
    for name, service in SERVICES.items():
        assert "container_name" not in service, f"{name}: a container_name stops --scale"
    for name in SCALED:
        assert "ports" not in SERVICES[name], f"{name}: a host port stops --scale (the proxy reaches it)"
    assert SERVICES["web"]["expose"] == ["8000"]
    assert "--bind 0.0.0.0:8000" in " ".join(SERVICES["web"]["command"])


def test_only_the_proxy_is_published_and_on_loopback_only():
    published = {name: service["ports"] for name, service in SERVICES.items() if "ports" in service}
    assert published == {"proxy": ["127.0.0.1:${PORT:-8000}:8080"]}
    assert "listen 8080;" in NGINX
    mounts = SERVICES["proxy"]["volumes"]
    assert mounts == ["./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro"]


def test_the_proxy_finds_every_web_replica_by_dns():
    """nginx re-resolves "web" (one address per replica) through Docker's DNS; `resolve` in an
    upstream needs open-source nginx 1.27.3 or later."""
    assert re.search(r"^resolver 127\.0\.0\.11 valid=\d+s", NGINX, re.M)
    assert re.search(r"^\s*server web:8000 resolve\b", NGINX, re.M)
    assert re.search(r"^\s*zone promodesk_web ", NGINX, re.M)  # `resolve` needs a shared zone
    assert "proxy_pass http://promodesk_web;" in NGINX
    image, _, tag = SERVICES["proxy"]["image"].partition(":")
    assert image == "nginx"
    major, minor, patch = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", tag).groups()
    # A tag without a patch number ("1.28-alpine") is that line's newest release.
    assert (int(major), int(minor), int(patch or 999)) >= (1, 27, 3), f"nginx {tag}: `resolve` needs 1.27.3+"


def test_the_proxy_lets_every_import_through_and_never_retries_a_sent_post():
    size = re.search(r"client_max_body_size (\d+)m;", NGINX)
    assert size and int(size.group(1)) * 1024 * 1024 > settings.IMPORT_MAX_BYTES
    # nginx's default: another replica only when nothing was sent. `non_idempotent` would send an
    # activation or a payout twice.
    assert re.search(r"proxy_next_upstream error timeout;", NGINX)
    assert "non_idempotent" not in NGINX


def test_the_proxy_logs_no_path_and_no_query_string():
    """A card swipe or an ID number in an address must never reach a log (issue 9)."""
    log_format = re.search(r"log_format promodesk_no_path (.*?);", NGINX, re.S).group(1)
    for variable in ("$request ", '$request"', "$request_uri", "$uri", "$args", "$query_string", "$http_referer"):
        assert variable not in log_format + " ", variable
    assert re.search(r"access_log /dev/stdout promodesk_no_path;", NGINX)
    assert re.search(r"error_log /dev/stderr crit;", NGINX)  # nginx's error lines quote the request


def test_beat_runs_once_and_no_worker_embeds_a_beat():
    """One beat sends the tick: never scaled, and a worker with -B would add a beat per replica."""
    beat = SERVICES["beat"]
    assert beat.get("deploy", {}).get("replicas", 1) == 1
    assert "scale" not in beat
    for name, service in SERVICES.items():
        command = service.get("command") or []
        runs_beat = "beat" in command or any(arg in ("-B", "--beat") for arg in command)
        assert runs_beat == (name == "beat"), name


def test_scaled_workers_have_their_own_names_and_checks():
    """Each worker replica is celery@<its container's hostname>: a fixed --hostname would give two
    replicas one node name, and the ping healthcheck would answer for either."""
    command = SERVICES["worker"]["command"]
    assert not any(arg.startswith(("--hostname", "-n")) for arg in command)
    assert "celery@$$HOSTNAME" in _healthcheck_command("worker")


def test_migrate_runs_once_and_the_app_never_migrates():
    migrate = SERVICES["migrate"]
    assert migrate["restart"] == "no"
    assert migrate["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert migrate.get("deploy", {}).get("replicas", 1) == 1
    for name in APP_SERVICES:
        assert "migrate" not in " ".join(SERVICES[name]["command"]), name
        assert SERVICES[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


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


def _database_setting(key: str, **env: str) -> str:
    """DATABASES["default"][key] as settings.py makes it from this environment (a fresh process)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    result = subprocess.run(
        [sys.executable, "-c", f"from django.conf import settings; print(settings.DATABASES['default'][{key!r}])"],
        env={**base, "DJANGO_SETTINGS_MODULE": "config.settings", "APP_ENV": "test", **env},
        cwd=BASE,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def test_server_side_cursors_can_be_switched_off_for_pgbouncer():
    """PgBouncer in transaction mode needs them off (docs/scaling.md); they stay on by default, so
    a streamed export keeps bounded memory on a direct connection."""
    assert _database_setting("DISABLE_SERVER_SIDE_CURSORS") == "False"
    assert _database_setting("DISABLE_SERVER_SIDE_CURSORS", DB_DISABLE_SERVER_SIDE_CURSORS="1") == "True"
    assert _database_setting("DISABLE_SERVER_SIDE_CURSORS", DB_DISABLE_SERVER_SIDE_CURSORS="0") == "False"
