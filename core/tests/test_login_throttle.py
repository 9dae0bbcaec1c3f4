"""Guessing passwords is stopped without letting a guesser lock staff out (issue 12, finding 5):
5 wrong passwords for an account from one address pause that account at that address for 15
minutes; from addresses an account has never signed in from, failures pause it (or the address)
for a minute only; a sign-in clears only its own account's failures (core.throttle)."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.models import AuditEvent
from core.tests.throttle_helpers import MORNING, PASSWORD

pytestmark = pytest.mark.usefixtures("login_limits")
HOME = "198.51.100.7"  # where the manager works (and has signed in from before, where a test says so)
NAT = "192.0.2.80"  # a casino's one public address: every clerk there comes from it


@pytest.fixture
def manager_account(user_for):
    return user_for(None, username="manager", password=PASSWORD)


def sign_in(client, username, password, ip=HOME):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip)


def has_signed_in_before(client, username, ip, at=MORNING - dt.timedelta(days=3)):
    with time_machine.travel(at, tick=False):
        assert sign_in(client, username, PASSWORD, ip=ip).status_code == 302
    client.logout()


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def page_text(response) -> str:
    return " ".join(response.content.decode().split())


# --- The account at one address: 5 wrong passwords, 15 minutes ------------------------------


def test_five_wrong_passwords_then_the_right_one_is_refused(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(4):
            assert sign_in(client, "manager", "guess").status_code == 200  # the form's own error
        assert sign_in(client, "manager", "guess").status_code == 429  # the fifth pauses
        response = sign_in(client, "manager", PASSWORD)
    assert response.status_code == 429
    assert not signed_in(client)
    page = page_text(response)
    assert "There were 5 wrong passwords in a row for this username from this computer" in page
    assert "Try again after <strong>10:15</strong>" in page


def test_four_wrong_passwords_do_not_lock_the_account(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(4):
            sign_in(client, "manager", "guess")
        assert sign_in(client, "manager", PASSWORD).status_code == 302
    assert signed_in(client)


def test_the_lockout_is_in_the_audit_log_with_the_username_and_address(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(5):
            sign_in(client, "manager", "guess")
    locked = AuditEvent.objects.get(action="auth.locked_out")
    assert (locked.data["username"], locked.ip, locked.data["paused_for"]) == ("manager", HOME, "15 minutes")
    assert AuditEvent.objects.filter(action="auth.login_failed").count() == 5


def test_the_pause_ends_at_its_second_and_attempts_during_it_do_not_lengthen_it(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(5):
            sign_in(client, "manager", "guess")
    with time_machine.travel(MORNING + dt.timedelta(minutes=14, seconds=59), tick=False):
        assert sign_in(client, "manager", "another guess").status_code == 429
        assert sign_in(client, "manager", PASSWORD).status_code == 429
    with time_machine.travel(MORNING + dt.timedelta(minutes=15), tick=False):
        assert sign_in(client, "manager", PASSWORD).status_code == 302
    assert signed_in(client)
    # Refused attempts are recorded, but as refused: the password was never checked.
    refused = AuditEvent.objects.filter(action="auth.login_failed", data__locked_out=True)
    assert refused.count() == 2


def test_failures_spread_wider_than_the_cool_off_never_add_up(client, manager_account):
    for n in range(6):
        with time_machine.travel(MORNING + dt.timedelta(minutes=16 * n), tick=False):
            sign_in(client, "manager", "guess")
    with time_machine.travel(MORNING + dt.timedelta(minutes=16 * 6), tick=False):
        assert sign_in(client, "manager", PASSWORD).status_code == 302


def test_the_pause_is_only_for_that_account_at_that_address(client, manager_account, user_for):
    user_for(None, username="nomsa", password=PASSWORD)
    has_signed_in_before(client, "nomsa", HOME)
    has_signed_in_before(client, "manager", "192.0.2.50")
    with time_machine.travel(MORNING, tick=False):
        for _ in range(5):
            sign_in(client, "manager", "guess")
        assert sign_in(client, "nomsa", PASSWORD).status_code == 302  # someone else at the same computer
        client.logout()
        assert sign_in(client, "manager", PASSWORD, ip="192.0.2.50").status_code == 302  # the manager elsewhere


# --- A sign-in clears only its own account's count ------------------------------------------


def test_the_guessers_own_sign_ins_do_not_reset_the_victims_count(client, manager_account, user_for):
    """The finding: 40 guesses at `manager`, the guesser signing in as themselves from the same
    address between every 4, never locked it."""
    user_for(None, username="mallory", password="mallorys-own-2026")
    with time_machine.travel(MORNING, tick=False):
        answers = []
        for n in range(40):
            answers.append(sign_in(client, "manager", f"guess {n}").status_code)
            if n % 4 == 3:
                assert sign_in(client, "mallory", "mallorys-own-2026").status_code == 302
                client.logout()
        assert answers[:5] == [200, 200, 200, 200, 429]
        assert set(answers[5:]) == {429}  # every later guess refused without checking it
        assert sign_in(client, "manager", PASSWORD).status_code == 429
    assert AuditEvent.objects.filter(action="auth.login_failed", data__locked_out__isnull=True).count() == 5


def test_a_sign_in_clears_its_own_accounts_failures_at_its_address(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(4):
            sign_in(client, "manager", "guess")
        assert sign_in(client, "manager", PASSWORD).status_code == 302
        client.logout()
        for _ in range(4):
            assert sign_in(client, "manager", "guess").status_code == 200
        assert sign_in(client, "manager", PASSWORD).status_code == 302


# --- Strangers' addresses: a minute at most --------------------------------------------------


def test_five_addresses_one_wrong_password_each_do_not_lock_the_account(client, manager_account):
    has_signed_in_before(client, "manager", HOME)
    with time_machine.travel(MORNING, tick=False):
        for n in range(5):
            sign_in(client, "manager", "guess", ip=f"203.0.113.{n + 1}")
        # Where the manager works: not paused at all.
        assert sign_in(client, "manager", PASSWORD, ip=HOME).status_code == 302
    assert signed_in(client)


def test_guesses_from_many_addresses_pause_the_account_from_new_addresses_for_a_minute(client, manager_account):
    has_signed_in_before(client, "manager", HOME)
    with time_machine.travel(MORNING, tick=False):
        for n in range(4):
            assert sign_in(client, "manager", "guess", ip=f"203.0.113.{n + 1}").status_code == 200
        assert sign_in(client, "manager", "guess", ip="203.0.113.5").status_code == 429
        response = sign_in(client, "manager", PASSWORD, ip="203.0.113.99")  # a sixth address
    assert response.status_code == 429
    page = page_text(response)
    assert "Signing in is paused for a minute" in page
    assert "Try again after <strong>10:01</strong>" in page
    with time_machine.travel(MORNING + dt.timedelta(seconds=59), tick=False):
        assert sign_in(client, "manager", PASSWORD, ip="203.0.113.99").status_code == 429
    with time_machine.travel(MORNING + dt.timedelta(minutes=1), tick=False):
        assert sign_in(client, "manager", PASSWORD, ip="203.0.113.99").status_code == 302


def test_five_wrong_passwords_every_fifteen_minutes_do_not_keep_the_account_locked(client, manager_account):
    has_signed_in_before(client, "manager", HOME)
    for round_ in range(4):
        start = MORNING + dt.timedelta(minutes=15 * round_)
        with time_machine.travel(start, tick=False):
            for n in range(5):
                sign_in(client, "manager", "guess", ip=f"203.0.113.{10 * round_ + n + 1}")
        with time_machine.travel(start + dt.timedelta(seconds=5), tick=False):
            assert sign_in(client, "manager", PASSWORD, ip=HOME).status_code == 302
            client.logout()
        with time_machine.travel(start + dt.timedelta(minutes=1), tick=False):
            new_computer = f"192.0.2.{70 + round_}"
            assert sign_in(client, "manager", PASSWORD, ip=new_computer).status_code == 302
            client.logout()


# --- One address, many accounts (a casino's shared address) ----------------------------------


def test_a_clerk_behind_an_address_with_other_peoples_failures_signs_in(client, user_for):
    user_for(None, username="nomsa", password=PASSWORD)
    has_signed_in_before(client, "nomsa", NAT)
    with time_machine.travel(MORNING, tick=False):
        for n in range(5):
            sign_in(client, f"someone{n}", "guess", ip=NAT)
        assert sign_in(client, "nomsa", PASSWORD, ip=NAT).status_code == 302
    assert signed_in(client)


def test_a_new_clerk_behind_that_address_waits_a_minute_at_most(client, user_for):
    user_for(None, username="thabo", password=PASSWORD)  # has never signed in anywhere
    with time_machine.travel(MORNING, tick=False):
        for n in range(5):
            sign_in(client, f"someone{n}", "guess", ip=NAT)
        assert sign_in(client, "thabo", PASSWORD, ip=NAT).status_code == 429
        # Another computer is not affected.
        assert sign_in(client, "thabo", PASSWORD, ip="192.0.2.50").status_code == 302
        client.logout()
    with time_machine.travel(MORNING + dt.timedelta(minutes=1), tick=False):
        assert sign_in(client, "thabo", PASSWORD, ip=NAT).status_code == 302


def test_guessing_across_usernames_from_one_address_is_slowed_to_one_a_minute(client, user_for):
    for name in ("ann", "ben", "cat", "dan", "eve", "fay", "gus"):
        user_for(None, username=name, password=PASSWORD)
    with time_machine.travel(MORNING, tick=False):
        answers = [sign_in(client, name, "guess", ip=NAT).status_code for name in ("ann", "ben", "cat", "dan")]
        assert answers == [200] * 4
        assert sign_in(client, "eve", "guess", ip=NAT).status_code == 429
        # The right password of an account new to this address is not even checked now.
        assert sign_in(client, "fay", PASSWORD, ip=NAT).status_code == 429
    with time_machine.travel(MORNING + dt.timedelta(minutes=1), tick=False):
        assert sign_in(client, "fay", "guess", ip=NAT).status_code == 429  # one more, another minute
    with time_machine.travel(MORNING + dt.timedelta(minutes=1, seconds=59), tick=False):
        assert sign_in(client, "gus", PASSWORD, ip=NAT).status_code == 429
    with time_machine.travel(MORNING + dt.timedelta(minutes=2), tick=False):
        assert sign_in(client, "gus", PASSWORD, ip=NAT).status_code == 302


# --- Everywhere a password is typed ----------------------------------------------------------


def test_the_admin_login_is_throttled_too(client, manager_account):
    with time_machine.travel(MORNING, tick=False):
        for n in range(5):
            response = client.post(
                reverse("admin:login"), {"username": "manager", "password": "guess"}, REMOTE_ADDR="192.0.2.9"
            )
            assert response.status_code == (429 if n == 4 else 200)
        response = sign_in(client, "manager", PASSWORD, ip="192.0.2.9")
    assert response.status_code == 429


def test_the_test_clients_login_and_force_login_still_work(client, manager_account):
    assert client.login(username="manager", password=PASSWORD)
    client.logout()
    client.force_login(manager_account)
    assert signed_in(client)
