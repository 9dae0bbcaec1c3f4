"""Managers see the sign-in pauses in words and lift them (issue 12, finding 5): an account's or
an address's, audited; nobody else may."""

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.urls import reverse

from core.models import AuditEvent, SignInFailure
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from core.tests.throttle_helpers import MORNING, PASSWORD

pytestmark = pytest.mark.usefixtures("login_limits")
GUESSER = "203.0.113.66"


@pytest.fixture
def manager(client_for):
    """A manager signed in at MORNING (a session made at today's time would have expired)."""
    with time_machine.travel(MORNING, tick=False):
        return client_for(PROMOTIONS_MANAGER)


@pytest.fixture
def nomsa(user_for):
    return user_for(REWARDS_DESK, username="nomsa", password=PASSWORD)


def sign_in(client, username, password, ip=GUESSER):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip)


def guess_five_times(client, username="nomsa", ip=GUESSER):
    for _ in range(5):
        sign_in(client, username, "guess", ip=ip)


def page_text(response) -> str:
    return " ".join(response.content.decode().split())


def test_the_manager_sees_each_pause_in_words_with_unlock_buttons(client, nomsa, manager):
    with time_machine.travel(MORNING, tick=False):
        guess_five_times(client)
        response = manager.get(reverse("sign_in_pauses"))
    assert response.status_code == 200
    page = page_text(response)
    assert f"nomsa cannot sign in from {GUESSER}" in page
    assert "nomsa cannot sign in from computers it has never signed in from" in page
    assert f"Nobody who has never signed in from {GUESSER} can sign in from there" in page
    assert "10:15" in page and "10:01" in page
    assert "Unlock the account nomsa" in page and f"Unlock the address {GUESSER}" in page
    assert 'name="csrfmiddlewaretoken"' in page


def test_the_list_is_empty_when_nobody_is_paused(client, nomsa, manager):
    with time_machine.travel(MORNING, tick=False):
        for _ in range(4):
            sign_in(client, "nomsa", "guess")
        page = page_text(manager.get(reverse("sign_in_pauses")))
    assert "Nobody is paused right now." in page
    with time_machine.travel(MORNING + dt.timedelta(minutes=1), tick=False):
        sign_in(client, "nomsa", "guess")
    with time_machine.travel(MORNING + dt.timedelta(minutes=16), tick=False):
        assert "Nobody is paused right now." in page_text(manager.get(reverse("sign_in_pauses")))


def test_a_manager_unlocks_an_account_and_it_is_audited(client, nomsa, manager):
    manager_user = get_user_model().objects.get(pk=manager.session["_auth_user_id"])
    with time_machine.travel(MORNING, tick=False):
        guess_five_times(client)
        assert sign_in(client, "nomsa", PASSWORD).status_code == 429
        response = manager.post(reverse("sign_in_unlock"), {"username": "nomsa"}, REMOTE_ADDR="192.0.2.1")
        assert response.status_code == 302 and response["Location"] == reverse("sign_in_pauses")
        assert sign_in(client, "nomsa", PASSWORD).status_code == 302
    event = AuditEvent.objects.get(action="auth.unlocked")
    assert (event.actor_label, event.ip, event.object_id) == (manager_user.username, "192.0.2.1", str(nomsa.pk))
    assert event.data == {"username": "nomsa", "failures": 5}
    page = page_text(manager.get(reverse("audit")))
    assert "lifted every sign-in pause of the account nomsa" in page


def test_a_manager_unlocks_an_address(client, nomsa, manager, user_for):
    user_for(None, username="thabo", password=PASSWORD)
    with time_machine.travel(MORNING, tick=False):
        for n in range(5):
            sign_in(client, f"someone{n}", "guess")
        assert sign_in(client, "thabo", PASSWORD).status_code == 429
        manager.post(reverse("sign_in_unlock"), {"ip": GUESSER})
        assert sign_in(client, "thabo", PASSWORD).status_code == 302
    event = AuditEvent.objects.get(action="auth.unlocked")
    assert event.data == {"ip": GUESSER, "failures": 5}
    assert not SignInFailure.objects.exists()


def test_unlocking_an_address_leaves_other_addresses_failures(client, nomsa, manager, user_for):
    user_for(None, username="thabo", password=PASSWORD)
    with time_machine.travel(MORNING, tick=False):
        for ip in ("203.0.113.1", "203.0.113.2"):
            for n in range(5):
                sign_in(client, f"someone{n}", "guess", ip=ip)
        manager.post(reverse("sign_in_unlock"), {"ip": "203.0.113.1"})
        assert sign_in(client, "thabo", PASSWORD, ip="203.0.113.2").status_code == 429
    assert set(SignInFailure.objects.values_list("ip", flat=True)) == {"203.0.113.2"}


def test_an_unlock_with_nothing_chosen_or_a_bad_address_says_why(nomsa, manager):
    response = manager.post(reverse("sign_in_unlock"), {}, follow=True)
    assert "Choose one account or one address to unlock." in page_text(response)
    response = manager.post(reverse("sign_in_unlock"), {"ip": "not-an-address"}, follow=True)
    assert "That is not a computer&#x27;s address." in page_text(response)
    assert not AuditEvent.objects.filter(action="auth.unlocked").exists()


@pytest.mark.parametrize("role", [REWARDS_DESK, CASH_DESK, AUDITOR])
def test_nobody_but_a_manager_may_see_or_unlock(role, client_for, client, nomsa):
    with time_machine.travel(MORNING, tick=False):
        guess_five_times(client)
        other = client_for(role)  # signed in at MORNING
        assert other.get(reverse("sign_in_pauses")).status_code == 403
        assert other.post(reverse("sign_in_unlock"), {"username": "nomsa"}).status_code == 403
        assert sign_in(client, "nomsa", PASSWORD).status_code == 429
    assert not AuditEvent.objects.filter(action="auth.unlocked").exists()


def test_a_superuser_may_unlock(client, client_for, nomsa):
    with time_machine.travel(MORNING, tick=False):
        guess_five_times(client)
        assert client_for("superuser").post(reverse("sign_in_unlock"), {"username": "nomsa"}).status_code == 302
        assert sign_in(client, "nomsa", PASSWORD).status_code == 302


def test_the_managers_navigation_and_start_page_lead_there(manager, desk):
    page = manager.get(reverse("home")).content.decode()
    assert f'href="{reverse("sign_in_pauses")}"' in page
    assert f'href="{reverse("sign_in_pauses")}"' not in desk.get(reverse("home")).content.decode()


def test_a_lockout_reads_as_a_sentence_in_the_audit_log(client, nomsa, manager):
    with time_machine.travel(MORNING, tick=False):
        guess_five_times(client)
    page = page_text(manager.get(reverse("audit")))
    assert f"paused signing in as nomsa from {GUESSER} for 15 minutes after too many wrong passwords" in page


def test_the_list_is_one_query_however_many_addresses_guessed(client, nomsa, manager, django_assert_max_num_queries):
    from core import throttle

    with time_machine.travel(MORNING, tick=False):
        SignInFailure.objects.bulk_create(
            SignInFailure(username=f"guess{n % 7}", ip=f"10.0.{n // 250}.{n % 250}", stranger=True, at=MORNING)
            for n in range(1500)
        )
        with django_assert_max_num_queries(1):
            pauses = throttle.current_pauses()
        assert {p.sentence for p in pauses} >= {
            f"guess{n} cannot sign in from computers it has never signed in from" for n in range(7)
        }
        page = page_text(manager.get(reverse("sign_in_pauses")))
    assert "Unlock the account guess6" in page


def test_the_application_role_may_count_and_forget_failures(nomsa):
    from core import throttle
    from core.audit import Actor
    from core.tests.test_audit_role import as_app_role

    with time_machine.travel(MORNING, tick=False), as_app_role():
        for _ in range(5):
            throttle.record_login_failure(username="nomsa", ip=GUESSER)
        assert throttle.sign_in_pause(username="nomsa", ip=GUESSER) is not None
        throttle.record_sign_in(user=nomsa, ip="192.0.2.3")
        assert throttle.unlock(actor=Actor.system("test"), username="nomsa") == 5
        assert throttle.sign_in_pause(username="nomsa", ip=GUESSER) is None
