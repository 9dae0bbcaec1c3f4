"""The settings refuse to start in production without their secrets."""

import os
import subprocess
import sys

from django.conf import settings


def _load_settings(**env) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("APP_ENV", "SECRET_KEY", "ALLOWED_HOSTS", "DEBUG", "PRIZE_LETTER_SECRET")
    }
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import config.settings as s; print(s.DEBUG, getattr(s, 'SESSION_COOKIE_SECURE', False))",
        ],
        env={**clean, "DATABASE_URL": "postgres://x@127.0.0.1/x", **env},
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        check=False,
    )


def test_production_refuses_to_start_without_secret_key_and_allowed_hosts():
    result = _load_settings()
    assert result.returncode != 0
    assert "Production mode needs SECRET_KEY, ALLOWED_HOSTS and PRIZE_LETTER_SECRET" in result.stderr


def test_production_refuses_to_start_without_the_prize_letter_key():
    result = _load_settings(SECRET_KEY="x" * 50, ALLOWED_HOSTS="desk.example.co.za")
    assert result.returncode != 0
    assert "Production mode needs PRIZE_LETTER_SECRET" in result.stderr


def test_production_starts_with_them_and_debug_off_and_secure_cookies():
    result = _load_settings(SECRET_KEY="x" * 50, ALLOWED_HOSTS="desk.example.co.za", PRIZE_LETTER_SECRET="y" * 50)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True"]


def test_debug_must_be_asked_for_explicitly():
    assert _load_settings(APP_ENV="development").stdout.split()[0] == "False"
    assert _load_settings(APP_ENV="development", DEBUG="1").stdout.split()[0] == "True"


def test_times_are_stored_in_utc_and_shown_in_johannesburg():
    assert settings.USE_TZ is True
    assert settings.TIME_ZONE == "Africa/Johannesburg"


def test_sessions_expire_after_inactivity():
    assert settings.SESSION_SAVE_EVERY_REQUEST is True
    assert settings.SESSION_COOKIE_AGE <= 60 * 60
