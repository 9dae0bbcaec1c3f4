"""Staff belong to a property (issue 9, item 2): the profile, its helpers, the admin (audited)
and the demo logins."""

import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.audit import Actor
from core.models import AuditEvent
from core.roles import PROMOTIONS_MANAGER, REWARDS_DESK
from members.models import StaffProfile
from members.staff import staff_profile_set, staff_properties, staff_property, staff_property_ids

pytestmark = pytest.mark.django_db

SYSTEM = Actor.system("test")


def test_a_user_without_a_profile_reads_every_property(user_for, reference_data):
    user = user_for(REWARDS_DESK, properties=())
    assert (staff_property(user), staff_properties(user), staff_property_ids(user)) == (None, None, None)


def test_an_anonymous_visitor_has_no_property(reference_data):
    from django.contrib.auth.models import AnonymousUser

    assert staff_property(AnonymousUser()) is None and staff_property(None) is None


def test_the_home_property_comes_first_then_the_others_by_name(user_for, reference_data):
    p = reference_data["properties"]
    manager = user_for(PROMOTIONS_MANAGER, properties=())
    staff_profile_set(actor=SYSTEM, user=manager, home_property=p["MC"], other_properties=[p["GRC"], p["EMN"], p["MC"]])
    assert staff_property(manager) == p["MC"]
    assert staff_properties(manager) == [p["MC"], p["EMN"], p["GRC"]]
    assert staff_property_ids(manager) == [p["MC"].pk, p["EMN"].pk, p["GRC"].pk]


def test_the_profile_is_read_once_per_user_object(user_for, reference_data):
    desk = user_for(REWARDS_DESK, properties=())
    staff_profile_set(actor=SYSTEM, user=desk, home_property=reference_data["properties"]["GRC"])
    with CaptureQueriesContext(connection) as queries:
        staff_property(desk)
        staff_properties(desk)
        staff_property_ids(desk)
    assert len(queries) == 2  # the profile with its home property, then the others


def test_setting_a_profile_is_audited_and_a_repeat_writes_nothing(user_for, reference_data):
    p = reference_data["properties"]
    desk = user_for(REWARDS_DESK, username="dineo", properties=())
    staff_profile_set(actor=SYSTEM, user=desk, home_property=p["GRC"])
    staff_profile_set(actor=SYSTEM, user=desk, home_property=p["GRC"])
    staff_profile_set(actor=SYSTEM, user=desk, home_property=p["GH"], other_properties=[p["GRC"]])
    events = list(AuditEvent.objects.filter(action__startswith="staff_profile.").order_by("id"))
    assert [e.action for e in events] == ["staff_profile.created", "staff_profile.changed"]
    assert events[1].data == {
        "username": "dineo",
        "before": {"home_property": "GRC", "other_properties": []},
        "after": {"home_property": "GH", "other_properties": ["GRC"]},
    }
    assert staff_properties(desk) == [p["GH"], p["GRC"]]


def test_the_admin_records_who_moved_a_clerk_and_to_which_properties(client, user_for, reference_data):
    p = reference_data["properties"]
    client.force_login(user_for("superuser", username="boss"))
    desk = user_for(REWARDS_DESK, username="dineo", properties=())
    response = client.post(
        reverse("admin:members_staffprofile_add"),
        {"user": desk.pk, "home_property": p["GRC"].pk, "other_properties": [p["GH"].pk]},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    profile = StaffProfile.objects.get(user=desk)
    response = client.post(
        reverse("admin:members_staffprofile_change", args=[profile.pk]),
        {"user": desk.pk, "home_property": p["EMN"].pk, "other_properties": []},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    events = [
        (e.actor_label, e.action, e.data) for e in AuditEvent.objects.filter(action__startswith="staff_").order_by("id")
    ]
    assert events == [
        ("boss", "staff_profile.created", {"user": "dineo", "home_property": "Gold Reef City"}),
        ("boss", "staff_profile.changed", {"other_properties": {"before": [], "after": ["GH"]}}),
        ("boss", "staff_profile.changed", {"home_property": {"before": "Gold Reef City", "after": "Emnotweni"}}),
        ("boss", "staff_profile.changed", {"other_properties": {"before": ["GH"], "after": []}}),
    ]


def test_the_demo_logins_get_their_property(reference_data, settings, tmp_path):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    settings.VAR_DIR = tmp_path
    out = io.StringIO()
    call_command("seed_demo", members=0, stdout=out)
    call_command("seed_demo", members=0, stdout=out)  # a re-run changes nothing
    assert "desk     Rewards desk at GRC" in out.getvalue() and "Promotions manager at GRC, GH" in out.getvalue()
    users = {u.username: u for u in get_user_model().objects.all()}
    p = reference_data["properties"]
    assert staff_property(users["desk"]) == p["GRC"]
    assert staff_properties(users["manager"]) == [p["GRC"], p["GH"]]
    assert staff_property(users["auditor"]) is None
    assert AuditEvent.objects.filter(action="staff_profile.created").count() == 3
    assert AuditEvent.objects.filter(action="staff_profile.changed").count() == 0
