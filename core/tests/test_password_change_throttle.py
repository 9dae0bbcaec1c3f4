"""The password-change page is no way to guess a password (issue 12, finding 5): wrong current
passwords are audited, and 5 of them pause the page for that account for 15 minutes."""

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.urls import reverse

from core.models import AuditEvent
from core.tests.throttle_helpers import MORNING, PASSWORD

pytestmark = pytest.mark.usefixtures("login_limits")
NEW = "Brand-New-Pass-77"


@pytest.fixture
def clerk(user_for):
    return user_for(None, username="nomsa", password=PASSWORD)


@pytest.fixture
def session(client, clerk):
    with time_machine.travel(MORNING, tick=False):
        client.force_login(clerk)
    return client


def change(client, old, new=NEW):
    return client.post(
        reverse("password_change"),
        {"old_password": old, "new_password1": new, "new_password2": new},
        REMOTE_ADDR="192.0.2.13",
    )


def password_is(user, password) -> bool:
    return get_user_model().objects.get(pk=user.pk).check_password(password)


def test_a_wrong_current_password_is_audited_without_it(session, clerk):
    with time_machine.travel(MORNING, tick=False):
        assert change(session, "Secret-Guess-123").status_code == 200
    event = AuditEvent.objects.get(action="auth.password_change_failed")
    assert (event.actor_id, event.object_id, event.ip) == (clerk.pk, str(clerk.pk), "192.0.2.13")
    assert "Secret-Guess" not in str(list(AuditEvent.objects.values()))


def test_four_wrong_current_passwords_then_the_right_one_changes_it(session, clerk):
    with time_machine.travel(MORNING, tick=False):
        for n in range(4):
            assert change(session, f"guess {n}").status_code == 200
        assert change(session, PASSWORD).status_code == 302
    assert password_is(clerk, NEW)
    assert AuditEvent.objects.filter(action="auth.password_change_failed").count() == 4
    assert AuditEvent.objects.filter(action="auth.password_changed").count() == 1


def test_five_wrong_current_passwords_pause_the_page_for_fifteen_minutes(session, clerk):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(4):
            change(session, "guess")
        response = change(session, "guess")
        assert response.status_code == 429
        page = " ".join(response.content.decode().split())
        assert "Changing your password is paused for 15 minutes" in page
        assert "Try again after <strong>10:15</strong>" in page
    with time_machine.travel(MORNING + dt.timedelta(minutes=14, seconds=59), tick=False):
        # Not even the right password is checked during the pause.
        assert change(session, PASSWORD).status_code == 429
        assert session.get(reverse("password_change")).status_code == 429
    assert password_is(clerk, PASSWORD)
    paused = AuditEvent.objects.get(action="auth.password_change_paused")
    assert (paused.actor_id, paused.data["paused_for"]) == (clerk.pk, "15 minutes")
    assert AuditEvent.objects.filter(action="auth.password_change_failed").count() == 5
    with time_machine.travel(MORNING + dt.timedelta(minutes=15), tick=False):
        assert session.get(reverse("password_change")).status_code == 200
        assert change(session, PASSWORD).status_code == 302
    assert password_is(clerk, NEW)


def test_new_passwords_that_do_not_match_are_not_a_guess(session, clerk):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(6):
            response = session.post(
                reverse("password_change"),
                {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW + "x"},
            )
            assert response.status_code == 200
    assert not AuditEvent.objects.filter(action="auth.password_change_failed").exists()


def test_the_password_change_pause_does_not_stop_signing_in(session, clerk, client):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(5):
            change(session, "guess")
        session.logout()
        response = client.post(reverse("login"), {"username": "nomsa", "password": PASSWORD})
    assert response.status_code == 302
