"""Changes made in the Django admin to staff accounts, roles, tiers and properties are in the
audit log: who, what, before and after."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from core.models import AuditEvent
from core.roles import PROMOTIONS_MANAGER, REWARDS_DESK


@pytest.fixture
def admin_client(client, user_for):
    boss = user_for("superuser", username="boss")
    client.force_login(boss)
    client.boss = boss
    return client


def user_form(user, **changes) -> dict:
    # The admin's form shows whole seconds: a stored fraction would read as a change.
    get_user_model().objects.filter(pk=user.pk).update(date_joined=user.date_joined.replace(microsecond=0))
    user.refresh_from_db()
    data = {
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "is_active": "on" if user.is_active else "",
        "is_staff": "on" if user.is_staff else "",
        "is_superuser": "on" if user.is_superuser else "",
        "groups": [g.pk for g in user.groups.all()],
        "user_permissions": [],
        "last_login_0": "",
        "last_login_1": "",
        "date_joined_0": timezone.localtime(user.date_joined).strftime("%Y-%m-%d"),
        "date_joined_1": timezone.localtime(user.date_joined).strftime("%H:%M:%S"),
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v != ""}


def test_adding_the_desk_user_to_the_managers_group_is_recorded(admin_client, user_for):
    desk = user_for(REWARDS_DESK, username="desk")
    managers = Group.objects.get(name=PROMOTIONS_MANAGER)
    response = admin_client.post(
        reverse("admin:auth_user_change", args=[desk.pk]),
        user_form(desk, groups=[g.pk for g in desk.groups.all()] + [managers.pk]),
        REMOTE_ADDR="192.0.2.20",
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    event = AuditEvent.objects.get(action="user.groups_changed")
    assert (event.actor_label, event.ip, event.object_id) == ("boss", "192.0.2.20", str(desk.pk))
    assert event.data == {"username": "desk", "added": [PROMOTIONS_MANAGER], "removed": []}


def test_removing_a_user_from_a_group_is_recorded(admin_client, user_for):
    desk = user_for(REWARDS_DESK, username="desk")
    admin_client.post(reverse("admin:auth_user_change", args=[desk.pk]), user_form(desk, groups=[]))
    event = AuditEvent.objects.get(action="user.groups_changed")
    assert event.data == {"username": "desk", "added": [], "removed": [REWARDS_DESK]}


def test_making_a_user_staff_and_superuser_or_inactive_is_recorded(admin_client, user_for):
    desk = user_for(REWARDS_DESK, username="desk")
    admin_client.post(
        reverse("admin:auth_user_change", args=[desk.pk]),
        user_form(desk, is_staff="on", is_superuser="on", is_active=""),
    )
    event = AuditEvent.objects.get(action="user.changed")
    assert event.data == {
        "is_active": {"before": True, "after": False},
        "is_staff": {"before": False, "after": True},
        "is_superuser": {"before": False, "after": True},
    }
    assert event.actor_label == "boss"
    assert not AuditEvent.objects.filter(action="user.groups_changed").exists()


def test_creating_a_user_is_recorded_without_the_password(admin_client):
    response = admin_client.post(
        reverse("admin:auth_user_add"),
        {"username": "newbie", "usable_password": "true", "password1": "Long-Enough-9x", "password2": "Long-Enough-9x"},
    )
    assert response.status_code == 302
    user = get_user_model().objects.get(username="newbie")
    event = AuditEvent.objects.get(action="user.created")
    assert (event.object_id, event.actor_label, event.data) == (str(user.pk), "boss", {"username": "newbie"})


def test_setting_someone_elses_password_in_the_admin_is_recorded(admin_client, user_for):
    desk = user_for(None, username="desk")
    response = admin_client.post(
        reverse("admin:auth_user_password_change", args=[desk.pk]),
        {"usable_password": "true", "password1": "Other-Long-9x!", "password2": "Other-Long-9x!"},
    )
    assert response.status_code == 302
    event = AuditEvent.objects.get(action="user.password_set")
    assert (event.object_id, event.actor_label, event.data) == (str(desk.pk), "boss", {"username": "desk"})


def test_renaming_a_tier_is_recorded_with_before_and_after(admin_client, reference_data):
    tier = reference_data["tiers"]["ACE"]
    admin_client.post(
        reverse("admin:members_tier_change", args=[tier.pk]),
        {"rank": tier.rank, "code": tier.code, "name": "Ace of Spades"},
    )
    event = AuditEvent.objects.get(action="tier.changed")
    assert event.data == {"name": {"before": tier.name, "after": "Ace of Spades"}}
    assert (event.object_type, event.object_id, event.actor_label) == ("members.tier", str(tier.pk), "boss")


def test_a_tiers_code_cannot_be_changed_because_rules_name_tiers_by_code(admin_client, reference_data):
    tier = reference_data["tiers"]["ACE"]
    admin_client.post(
        reverse("admin:members_tier_change", args=[tier.pk]), {"rank": 99, "code": "SPADES", "name": "Ace"}
    )
    tier.refresh_from_db()
    assert (tier.code, tier.rank) == ("ACE", 5)


def test_renaming_a_property_is_recorded_with_before_and_after(admin_client, reference_data):
    grc = reference_data["properties"]["GRC"]
    admin_client.post(reverse("admin:members_property_change", args=[grc.pk]), {"code": "GRC2", "name": grc.name})
    event = AuditEvent.objects.get(action="property.changed")
    assert event.data == {"code": {"before": "GRC", "after": "GRC2"}}


def test_adding_and_deleting_a_property_is_recorded(admin_client, db):
    admin_client.post(reverse("admin:members_property_add"), {"code": "NEW", "name": "New Casino"})
    created = AuditEvent.objects.get(action="property.created")
    assert created.data == {"code": "NEW", "name": "New Casino"}
    admin_client.post(reverse("admin:members_property_delete", args=[created.object_id]), {"post": "yes"})
    assert AuditEvent.objects.get(action="property.deleted").object_id == created.object_id


def test_a_roles_permissions_cannot_be_changed_in_the_admin(admin_client, db):
    from django.contrib.auth.models import Group, Permission

    managers = Group.objects.get(name="promotions_manager")
    before = set(managers.permissions.values_list("pk", flat=True))
    response = admin_client.post(
        reverse("admin:auth_group_change", args=[managers.pk]),
        {"name": managers.name, "permissions": list(Permission.objects.values_list("pk", flat=True))},
    )
    assert response.status_code == 403
    assert set(managers.permissions.values_list("pk", flat=True)) == before
    assert admin_client.get(reverse("admin:auth_group_change", args=[managers.pk])).status_code == 200
