"""/healthz and `manage.py health`: the database, the broker and the tick (issue 16, part 5)."""

import datetime as dt
import json
import os
import socket
import time

import pytest
import time_machine
from django.core.management import call_command
from django.db import OperationalError
from django.db.backends.utils import CursorWrapper
from django.urls import reverse

from core import health
from core.models import WorkerHeartbeat
from core.roles import PROMOTIONS_MANAGER
from members.tests.factories import MemberFactory

NOW = dt.datetime(2026, 3, 4, 10, 0, tzinfo=dt.UTC)
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/14")


@pytest.fixture
def ticked(db):
    """The clock pinned at NOW; `ticked(seconds)` says the tick last ran that long ago."""

    def at(seconds_ago: float) -> None:
        WorkerHeartbeat.objects.update_or_create(
            name="beat", defaults={"last_tick_at": NOW - dt.timedelta(seconds=seconds_ago), "ticks": 3}
        )

    with time_machine.travel(NOW, tick=False):
        yield at


@pytest.fixture
def redis_broker(settings):
    settings.CELERY_BROKER_URL = REDIS_URL
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}


def test_healthy_answers_200_with_each_check(client, ticked, redis_broker):
    ticked(10)
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": {"ok": True},
        "broker": {"ok": True},
        "tick": {"ok": True, "last_tick_at": "2026-03-04T09:59:50+00:00", "age_seconds": 10},
    }


def test_the_development_filesystem_broker_counts_as_up(client, ticked, settings):
    assert settings.CELERY_BROKER_URL == "filesystem://"  # test mode's default, as make run's
    ticked(10)
    assert client.get("/healthz").json()["broker"] == {"ok": True}


def test_no_sign_in_no_cookie_no_cache_and_no_https_redirect(client, ticked, settings):
    settings.SECURE_SSL_REDIRECT = True  # production's: a container healthcheck asks over plain HTTP
    ticked(10)
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    assert not response.cookies  # no session saved, no CSRF cookie
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405
    # The exemption is this address only.
    assert client.get(reverse("login")).status_code == 301


def test_the_database_failing_answers_503(client, ticked, monkeypatch):
    ticked(10)
    real_execute = CursorWrapper.execute

    def execute(self, sql, params=None):
        if sql == "SELECT 1":
            raise OperationalError("canceling statement due to statement timeout")
        return real_execute(self, sql, params)

    monkeypatch.setattr(CursorWrapper, "execute", execute)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unhealthy" and body["database"] == {"ok": False}
    assert body["broker"] == {"ok": True} and body["tick"]["ok"] is True
    assert "statement timeout" not in response.content.decode()  # the reason is logged, not answered


def test_the_statement_timeout_is_short(db, monkeypatch):
    """A SELECT that outlasts DATABASE_TIMEOUT_MS is cancelled by PostgreSQL: the check fails fast."""
    monkeypatch.setattr(health, "DATABASE_TIMEOUT_MS", 100)
    real_execute = CursorWrapper.execute

    def slow(self, sql, params=None):
        return real_execute(self, "SELECT 1 FROM pg_sleep(2)" if sql == "SELECT 1" else sql, params)

    monkeypatch.setattr(CursorWrapper, "execute", slow)
    started = time.monotonic()
    assert health.database_ok() is False
    assert time.monotonic() - started < 1.5


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_broker_down_answers_503_at_once(client, ticked, settings):
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{_closed_port()}/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
    ticked(10)
    started = time.monotonic()
    response = client.get("/healthz")
    assert time.monotonic() - started < 3
    assert response.status_code == 503
    assert response.json()["broker"] == {"ok": False}
    assert response.json()["database"] == {"ok": True}


def test_a_broker_that_never_answers_is_given_up_within_the_timeout(client, ticked, settings):
    """A port that accepts and then says nothing (a hung Redis, a black-holed route): one try, no retries."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
        ticked(10)
        started = time.monotonic()
        response = client.get("/healthz")
        elapsed = time.monotonic() - started
    assert response.status_code == 503 and response.json()["broker"] == {"ok": False}
    assert elapsed < 3, elapsed


@pytest.mark.parametrize(
    ("seconds_ago", "ok", "status"),
    [(119, True, 200), (120, True, 200), (121, False, 503)],
)
def test_the_tick_is_stale_after_two_minutes(client, ticked, seconds_ago, ok, status):
    ticked(seconds_ago)
    response = client.get("/healthz")
    assert response.status_code == status
    assert response.json()["tick"]["ok"] is ok
    assert response.json()["tick"]["age_seconds"] == seconds_ago


def test_a_tick_that_never_ran_is_unhealthy(client, ticked):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["tick"] == {"ok": False, "last_tick_at": None, "age_seconds": None}


def test_no_personal_data_in_the_answer(client, ticked, reference_data, user_for):
    member = MemberFactory(card_number="6000000042", first_name="Thandiwe", last_name="Mokoena")
    staff = user_for(PROMOTIONS_MANAGER, username="mgr_sibusiso")
    client.force_login(staff)  # signed in or not, the same answer
    ticked(10)
    body = client.get("/healthz").content.decode()
    assert set(json.loads(body)) == {"status", "database", "broker", "tick"}
    for personal in (member.first_name, member.last_name, member.card_number, member.id_number, staff.username):
        assert personal not in body


def test_manage_py_health_exits_1_when_unhealthy(ticked, capsys):
    ticked(121)
    with pytest.raises(SystemExit) as exit_:
        call_command("health", only="tick")
    assert exit_.value.code == 1
    assert json.loads(capsys.readouterr().out) == {
        "status": "unhealthy",
        "tick": {"ok": False, "last_tick_at": "2026-03-04T09:57:59+00:00", "age_seconds": 121},
    }
    ticked(5)
    call_command("health", only="tick")  # healthy: returns
    assert json.loads(capsys.readouterr().out)["status"] == "ok"
