"""Signing in, failing to, signing out and changing one's password are in the audit log:
who, from where, when; never a password."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from core.models import AuditEvent

PASSWORD = "the-right-one-2026"


@pytest.fixture
def clerk(user_for):
    return user_for(None, username="nomsa", password=PASSWORD)


def test_a_login_is_recorded_with_the_user_and_address(client, clerk):
    client.post(reverse("login"), {"username": "nomsa", "password": PASSWORD}, REMOTE_ADDR="192.0.2.10")
    event = AuditEvent.objects.get(action="auth.logged_in")
    assert (event.actor_id, event.actor_label, event.ip) == (clerk.pk, "nomsa", "192.0.2.10")
    assert (event.object_type, event.object_id) == ("auth.user", str(clerk.pk))


def test_a_failed_login_records_the_username_tried_and_address_but_never_the_password(client, clerk):
    client.post(reverse("login"), {"username": "nomsa", "password": "Secret-Guess-123"}, REMOTE_ADDR="192.0.2.11")
    client.post(reverse("login"), {"username": "nobody", "password": "Other-Guess-456"}, REMOTE_ADDR="192.0.2.11")
    known, unknown = AuditEvent.objects.filter(action="auth.login_failed").order_by("id")
    assert (known.actor_label, known.ip, known.data, known.object_id) == (
        "anonymous",
        "192.0.2.11",
        {"username": "nomsa"},
        str(clerk.pk),
    )
    assert (unknown.data, unknown.object_id) == ({"username": "nobody"}, "")
    everything = str(list(AuditEvent.objects.values()))
    assert "Secret-Guess" not in everything and "Other-Guess" not in everything


def test_a_username_with_nul_bytes_or_lone_surrogates_is_recorded_cleaned(client, db):
    response = client.post(reverse("login"), {"username": "ad\x00min" + "x" * 500, "password": "p"})
    assert response.status_code in (200, 400)
    for event in AuditEvent.objects.filter(action="auth.login_failed"):
        assert "\x00" not in event.data["username"] and len(event.data["username"]) <= 150


def test_a_logout_is_recorded(client, clerk):
    client.force_login(clerk)
    client.post(reverse("logout"), REMOTE_ADDR="192.0.2.12")
    event = AuditEvent.objects.get(action="auth.logged_out")
    assert (event.actor_id, event.ip) == (clerk.pk, "192.0.2.12")


def test_a_password_change_is_recorded_without_the_password(client, clerk):
    client.force_login(clerk)
    response = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": "Brand-New-Pass-77", "new_password2": "Brand-New-Pass-77"},
        REMOTE_ADDR="192.0.2.13",
    )
    assert response.status_code == 302
    event = AuditEvent.objects.get(action="auth.password_changed")
    assert (event.actor_id, event.object_id, event.ip) == (clerk.pk, str(clerk.pk), "192.0.2.13")
    assert "Brand-New" not in str(event.data)
    assert get_user_model().objects.get(pk=clerk.pk).check_password("Brand-New-Pass-77")


def test_a_refused_password_change_records_nothing(client, clerk):
    client.force_login(clerk)
    client.post(reverse("password_change"), {"old_password": "wrong", "new_password1": "x", "new_password2": "y"})
    assert not AuditEvent.objects.filter(action="auth.password_changed").exists()


def test_clean_text_drops_what_postgresql_json_cannot_hold():
    from core.auth import clean_text

    assert clean_text("ad\x00min\ud800") == "admin?"
    assert len(clean_text("x" * 1000)) == 150
