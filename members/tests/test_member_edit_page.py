"""The member's correction page: a manager's whole form, the desk's contact form, nobody
else's (issue 9, 4). The roles get the permissions from core/roles.py; here users hold them
directly."""

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse

from core.models import AuditEvent
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from members.models import Member
from members.tests.factories import MemberFactory
from members.tests.test_member_update import user_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def member(reference_data):
    return MemberFactory(first_name="Thandi", last_name="Nkosi", phone="+27821234567")


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def manager_client(user_for):
    return client_of(user_with(user_for, "change_member", role=PROMOTIONS_MANAGER))


@pytest.fixture
def desk_client(user_for):
    return client_of(user_with(user_for, "change_member_contact", role=REWARDS_DESK))


def full_form(member, **changes) -> dict:
    data = {
        "first_name": member.first_name,
        "last_name": member.last_name,
        "id_type": member.id_type,
        "id_number": member.id_number,
        "date_of_birth": "",
        "phone": member.phone,
        "email": member.email,
        "tier": member.tier_id,
        "home_property": member.home_property_id,
        "app_registered_on": "",
        "playtsogo_active_since": "",
    }
    return data | changes


def test_the_manager_sees_every_field_of_the_record(manager_client, member):
    content = manager_client.get(reverse("members:edit", args=[member.pk])).content.decode()
    for name in ("first_name", "id_number", "date_of_birth", "tier", "home_property", "app_registered_on", "phone"):
        assert f'name="{name}"' in content
    assert 'value="01 Jan 1980"' in content  # the date, as text in one field


def test_the_manager_corrects_the_record_and_the_member_page_says_what_changed(manager_client, member, reference_data):
    gh = reference_data["properties"]["GH"]
    response = manager_client.post(
        reverse("members:edit", args=[member.pk]),
        full_form(member, last_name="Nkosi-Dube", home_property=gh.pk, phone="082 999 0000"),
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("members:detail", args=[member.pk])
    content = response.content.decode()
    assert "Saved the last name, phone and home property of Thandi Nkosi-Dube." in content
    member.refresh_from_db()
    assert (member.last_name, member.home_property, member.phone) == ("Nkosi-Dube", gh, "+27829990000")
    # The member's history in words, each change before and after; no action code.
    assert "Last name: Nkosi → Nkosi-Dube" in content and "Phone: +27821234567 → +27829990000" in content
    assert "member.updated" not in content


def test_the_history_writes_corrected_dates_as_dates(manager_client, member):
    manager_client.post(
        reverse("members:edit", args=[member.pk]), full_form(member, app_registered_on="15/06/2026"), follow=True
    )
    content = manager_client.get(reverse("members:detail", args=[member.pk])).content.decode()
    assert "App registration: (empty) → 15 Jun 2026" in content


def test_the_manager_records_playtsogo_activity_and_the_record_shows_it(manager_client, member):
    """The add-ons read it at verification (TH r21: +Play R500 for playTSOGO players)."""
    manager_client.post(
        reverse("members:edit", args=[member.pk]), full_form(member, playtsogo_active_since="2 Apr 2026"), follow=True
    )
    assert Member.objects.get(pk=member.pk).playtsogo_active_since == dt.date(2026, 4, 2)
    content = manager_client.get(reverse("members:detail", args=[member.pk])).content.decode()
    assert "Active since 02 Apr 2026" in content
    assert "activity: (empty) → 02 Apr 2026" in content


def test_a_refusal_is_shown_on_the_form_with_what_was_typed(manager_client, member):
    other = MemberFactory()
    response = manager_client.post(
        reverse("members:edit", args=[member.pk]), full_form(member, id_number=other.id_number, last_name="Typed")
    )
    content = response.content.decode()
    assert response.status_code == 200
    assert f"already a member: card {other.card_number}" in content and 'value="Typed"' in content
    assert Member.objects.get(pk=member.pk).last_name == "Nkosi"


def test_saving_an_unchanged_form_changes_nothing(manager_client, member):
    response = manager_client.post(reverse("members:edit", args=[member.pk]), full_form(member), follow=True)
    assert "Nothing was changed." in response.content.decode()
    assert not AuditEvent.objects.filter(action="member.updated").exists()


def test_the_desk_sees_and_saves_the_phone_and_e_mail_only(desk_client, member):
    url = reverse("members:edit", args=[member.pk])
    content = desk_client.get(url).content.decode()
    assert 'name="phone"' in content and 'name="email"' in content
    assert 'name="last_name"' not in content and 'name="id_number"' not in content
    desk_client.post(url, {"phone": "0831234567", "email": "t@example.com", "last_name": "Sneaky"})
    member.refresh_from_db()
    assert (member.phone, member.email, member.last_name) == ("+27831234567", "t@example.com", "Nkosi")


def test_the_member_page_offers_the_edit_that_each_may_make(manager_client, desk_client, client_for, member):
    url = reverse("members:detail", args=[member.pk])
    assert "Correct the record" in manager_client.get(url).content.decode()
    assert "Correct phone or e-mail" in desk_client.get(url).content.decode()
    assert 'id="member-edit-link"' not in client_for(AUDITOR).get(url).content.decode()


@pytest.mark.parametrize("role", [AUDITOR, CASH_DESK, None])
def test_a_role_without_an_edit_permission_is_forbidden(role, client_for, member):
    client = client_for(role)
    url = reverse("members:edit", args=[member.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, {"phone": "0831234567"}).status_code == 403
    assert Member.objects.get(pk=member.pk).phone == "+27821234567"


def test_the_edit_of_a_member_that_does_not_exist_is_not_found(manager_client):
    assert manager_client.get(reverse("members:edit", args=[999999])).status_code == 404


def test_the_sign_up_takes_a_typed_birth_date_and_a_phone_in_any_form(desk, reference_data):
    response = desk.post(
        reverse("members:sign_up"),
        {
            "first_name": "John",
            "last_name": "Smith",
            "id_type": "passport",
            "id_number": "A1234567",
            "date_of_birth": "21 Mar 1979",
            "home_property": reference_data["properties"]["GRC"].pk,
            "phone": "+27 (0)82 123 4567",
        },
    )
    assert response.status_code == 302
    member = Member.objects.get()
    assert (member.date_of_birth, member.phone) == (dt.date(1979, 3, 21), "+27821234567")
