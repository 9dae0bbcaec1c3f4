"""Guessing passwords is stopped: 5 wrong ones for an account, or from an address, pause
signing in for 15 minutes, with an audit entry and a page that says when to try again."""

import datetime as dt
import zoneinfo

import pytest
import time_machine
from django.urls import reverse

from core.models import AuditEvent

SAST = zoneinfo.ZoneInfo("Africa/Johannesburg")
MORNING = dt.datetime(2027, 3, 3, 10, 0, tzinfo=SAST)
PASSWORD = "the-right-one-2026"


@pytest.fixture(autouse=True)
def the_default_limits(settings):
    # The limits come from the environment (LOGIN_FAILURE_LIMIT, LOGIN_COOLOFF_MINUTES): pin the
    # defaults this file's numbers speak of, whatever the machine sets.
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_COOLOFF_TIME = dt.timedelta(minutes=15)


@pytest.fixture
def manager_account(user_for):
    return user_for(None, username="manager", password=PASSWORD)


def sign_in(client, username, password, ip="198.51.100.7"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_five_wrong_passwords_then_the_right_one_is_refused(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(4):
            assert sign_in(client, "manager", "guess").status_code == 200  # the form's own error
        assert sign_in(client, "manager", "guess").status_code == 429  # the fifth locks
        response = sign_in(client, "manager", PASSWORD)
    assert response.status_code == 429
    assert not signed_in(client)
    page = " ".join(response.content.decode().split())
    assert "There were 5 wrong passwords in a row for this username or from this computer" in page
    assert "Try again after <strong>10:15</strong>" in page


def test_the_lockout_is_in_the_audit_log_with_the_username_and_address(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(5):
            sign_in(client, "manager", "guess")
    locked = AuditEvent.objects.get(action="auth.locked_out")
    assert (locked.data["username"], locked.ip) == ("manager", "198.51.100.7")
    assert AuditEvent.objects.filter(action="auth.login_failed").count() == 5


def test_four_wrong_passwords_do_not_lock_the_account(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(4):
            sign_in(client, "manager", "guess")
        assert sign_in(client, "manager", PASSWORD).status_code == 302
    assert signed_in(client)


def test_the_account_is_locked_whatever_address_the_guesses_come_from(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for n in range(5):
            sign_in(client, "manager", "guess", ip=f"203.0.113.{n + 1}")
        assert sign_in(client, "manager", PASSWORD, ip="192.0.2.50").status_code == 429


def test_an_address_that_guessed_is_locked_for_every_account(client, manager_account, user_for):
    user_for(None, username="nomsa", password=PASSWORD)
    with time_machine.travel(MORNING, tick=False):
        for n in range(5):
            sign_in(client, f"someone{n}", "guess")
        assert sign_in(client, "nomsa", PASSWORD).status_code == 429
        # Another computer is not affected.
        assert sign_in(client, "nomsa", PASSWORD, ip="192.0.2.50").status_code == 302


def test_signing_in_works_again_after_the_cool_off(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(5):
            sign_in(client, "manager", "guess")
    with time_machine.travel(MORNING + dt.timedelta(minutes=14, seconds=59), tick=False):
        assert sign_in(client, "manager", PASSWORD).status_code == 429
    # That attempt started the 15 minutes again.
    with time_machine.travel(MORNING + dt.timedelta(minutes=29, seconds=58), tick=False):
        assert sign_in(client, "manager", PASSWORD).status_code == 429
    with time_machine.travel(MORNING + dt.timedelta(minutes=45), tick=False):
        assert sign_in(client, "manager", PASSWORD).status_code == 302
    assert signed_in(client)


def test_failures_spread_wider_than_the_cool_off_never_add_up(client, manager_account):
    for n in range(6):
        with time_machine.travel(MORNING + dt.timedelta(minutes=16 * n), tick=False):
            sign_in(client, "manager", "guess")
    with time_machine.travel(MORNING + dt.timedelta(minutes=16 * 6), tick=False):
        assert sign_in(client, "manager", PASSWORD).status_code == 302


def test_the_admin_login_is_throttled_too(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(5):
            client.post(reverse("admin:login"), {"username": "manager", "password": "guess"}, REMOTE_ADDR="192.0.2.9")
        response = sign_in(client, "manager", PASSWORD, ip="192.0.2.9")
    assert response.status_code == 429


def test_the_test_clients_login_and_force_login_still_work(client, manager_account):
    assert client.login(username="manager", password=PASSWORD)
    client.logout()
    client.force_login(manager_account)
    assert signed_in(client)
