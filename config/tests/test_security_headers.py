"""Headers every response carries, and HSTS in production."""

import os
import subprocess
import sys

from django.conf import settings
from django.urls import reverse

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


def test_every_page_carries_the_content_security_policy(client, desk, db):
    for response in (
        client.get(reverse("login")),
        desk.get(reverse("home")),
        desk.get(reverse("members:lookup")),
        desk.get("/no-such-page/"),
    ):
        assert response["Content-Security-Policy"] == POLICY


def test_the_api_carries_it_too(client, db):
    assert client.get("/api/v1/openapi.json")["Content-Security-Policy"] == POLICY


def _production_setting(expression: str, **env) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SECURE_", "APP_ENV"))}
    result = subprocess.run(
        [sys.executable, "-c", f"import config.settings as s; print({expression})"],
        env={
            **clean,
            "SECRET_KEY": "x" * 50,
            "PRIZE_LETTER_SECRET": "y" * 50,
            "ALLOWED_HOSTS": "desk.example.co.za",
            "DATABASE_URL": "postgres://x@127.0.0.1/x",  # production refuses to start without one
            **env,
        },
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_production_asks_browsers_for_https_for_a_year_including_subdomains():
    assert _production_setting("(s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS)") == "(31536000, True)"


def test_hsts_is_configurable():
    assert (
        _production_setting(
            "(s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS)",
            SECURE_HSTS_SECONDS="600",
            SECURE_HSTS_INCLUDE_SUBDOMAINS="0",
        )
        == "(600, False)"
    )


def test_the_hsts_header_is_sent_over_https(client, db, settings):
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    response = client.get(reverse("login"), secure=True)
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
