"""member_update: a manager corrects a member's record, the desk the phone and e-mail only;
a new ID document is checked as at sign-up; every change audited before and after (issue 9, 4)."""

import datetime as dt

import pytest
import time_machine
from django.contrib.auth.models import Permission

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import AUDITOR, CASH_DESK
from members import services
from members.models import Member
from members.services import member_update
from members.tests.factories import ExclusionFactory, MemberFactory, sa_id_for

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))


@pytest.fixture(autouse=True)
def _pinned_clock():
    with time_machine.travel(dt.datetime(2026, 11, 30, 10, 0, tzinfo=SAST), tick=False):
        yield


def user_with(user_for, *codenames: str, role=None):
    """A user holding these members permissions directly (the roles get them from the lead)."""
    user = user_for(role)
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="members", codename__in=codenames))
    return type(user).objects.get(pk=user.pk)  # a fresh object: permissions are cached per object


@pytest.fixture
def manager_actor(user_for):
    return Actor.for_user(user_with(user_for, "change_member", "view_member"))


@pytest.fixture
def desk_actor(user_for):
    return Actor.for_user(user_with(user_for, "change_member_contact", "view_member"))


@pytest.fixture
def member(reference_data):
    return MemberFactory(
        first_name="Thandi",
        last_name="Nkosi",
        phone="+27821234567",
        tier=reference_data["tiers"]["TEN"],
        home_property=reference_data["properties"]["GRC"],
    )


def last_update(member) -> AuditEvent:
    return AuditEvent.objects.filter(action="member.updated", object_id=str(member.pk)).latest("id")


def test_a_manager_corrects_names_tier_and_property_and_each_change_is_audited(manager_actor, member, reference_data):
    updated = member_update(
        actor=manager_actor,
        member_id=member.pk,
        first_name=" Thandiwe ",
        tier=reference_data["tiers"]["QUEEN"],
        home_property=reference_data["properties"]["GH"],
    )
    updated.refresh_from_db()
    assert (updated.first_name, updated.tier.code, updated.home_property.code) == ("Thandiwe", "QUEEN", "GH")
    assert updated.search_name == "thandiwe nkosi"  # the lookup finds the corrected name
    event = last_update(member)
    assert event.actor == manager_actor.user
    assert event.data["changes"] == {
        "first_name": {"before": "Thandi", "after": "Thandiwe"},
        "tier": {"before": "TEN", "after": "QUEEN"},
        "home_property": {"before": "GRC", "after": "GH"},
    }


def test_a_phone_typed_the_desks_way_is_stored_as_plus_27(desk_actor, member):
    member_update(actor=desk_actor, member_id=member.pk, phone="083 765 4321", email="thandi@example.com")
    member.refresh_from_db()
    assert (member.phone, member.email) == ("+27837654321", "thandi@example.com")
    assert last_update(member).data["changes"]["phone"] == {"before": "+27821234567", "after": "+27837654321"}


def test_the_desk_may_not_correct_anything_but_contact_details(desk_actor, member):
    with pytest.raises(DomainError, match="phone number and e-mail only") as refused:
        member_update(actor=desk_actor, member_id=member.pk, phone="0831112222", last_name="Other")
    assert refused.value.code == "not_allowed"
    member.refresh_from_db()
    assert (member.phone, member.last_name) == ("+27821234567", "Nkosi")  # nothing half-saved
    assert not AuditEvent.objects.filter(action="member.updated").exists()


@pytest.mark.parametrize("role", [AUDITOR, CASH_DESK])
def test_a_role_without_either_permission_may_correct_nothing(role, user_for, member):
    actor = Actor.for_user(user_for(role))
    with pytest.raises(DomainError, match="Only a promotions manager or the Rewards desk"):
        member_update(actor=actor, member_id=member.pk, phone="0831112222")


def test_nothing_changed_writes_nothing(manager_actor, member):
    member_update(actor=manager_actor, member_id=member.pk, phone="082 123 4567", first_name="Thandi")
    assert not AuditEvent.objects.filter(action="member.updated").exists()


def test_a_new_sa_id_number_brings_its_birth_date(manager_actor, member):
    number = sa_id_for(dt.date(1979, 3, 21), 4321)
    member_update(actor=manager_actor, member_id=member.pk, id_number=number)
    member.refresh_from_db()
    assert (member.id_number, member.date_of_birth) == (number, dt.date(1979, 3, 21))
    changes = last_update(member).data["changes"]
    # ID numbers are kept masked but for the last four digits, as the pages show them.
    assert changes["id_number"]["after"] == "*********" + number[-4:]
    assert changes["date_of_birth"] == {"before": "1980-01-01", "after": "1979-03-21"}


def test_a_passport_number_keeps_the_birth_date_on_record(manager_actor, member):
    member_update(actor=manager_actor, member_id=member.pk, id_type="passport", id_number="a 1234567")
    member.refresh_from_db()
    assert (member.id_type, member.id_number, member.date_of_birth) == ("passport", "A1234567", dt.date(1980, 1, 1))


def test_a_birth_date_that_contradicts_the_sa_id_is_refused(manager_actor, member):
    with pytest.raises(DomainError, match="does not match the ID number"):
        member_update(actor=manager_actor, member_id=member.pk, date_of_birth=dt.date(1981, 1, 1))


def test_an_invalid_sa_id_is_refused_in_words(manager_actor, member):
    with pytest.raises(DomainError, match="not a valid South African ID number"):
        member_update(actor=manager_actor, member_id=member.pk, id_number="8001015009088")


def test_another_members_number_is_refused_with_their_card(manager_actor, member, reference_data):
    other = MemberFactory()
    with pytest.raises(DomainError, match=f"already a member: card {other.card_number}"):
        member_update(actor=manager_actor, member_id=member.pk, id_number=other.id_number)


def test_an_excluded_number_is_refused_as_at_sign_up(manager_actor, member):
    number = sa_id_for(dt.date(1975, 5, 5), 1234)
    ExclusionFactory(id_number=number, reason="Order 17/2026.")
    with pytest.raises(DomainError, match=r"Correction refused\. Self-excluded .*Order 17/2026") as refused:
        member_update(actor=manager_actor, member_id=member.pk, id_number=number)
    assert refused.value.code == "person_refused"
    assert Member.objects.get(pk=member.pk).id_number == member.id_number


def test_a_birth_date_under_18_is_refused(manager_actor, member):
    with pytest.raises(DomainError, match="Under 18"):
        member_update(
            actor=manager_actor,
            member_id=member.pk,
            id_type="passport",
            id_number="B7654321",
            date_of_birth=dt.date(2010, 1, 1),
        )


def test_an_exclusion_of_the_member_does_not_block_correcting_their_phone(manager_actor, member):
    ExclusionFactory(id_number=member.id_number)
    member_update(actor=manager_actor, member_id=member.pk, phone="0831112222")
    assert Member.objects.get(pk=member.pk).phone == "+27831112222"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("first_name", "  ", "first name cannot be empty"),
        ("phone", "not a phone", "is not a phone number"),
        ("email", "not-an-email", "valid email"),
        ("tier", None, "tier cannot be empty"),
    ],
)
def test_bad_values_are_refused_in_words(manager_actor, member, field, value, message):
    with pytest.raises(DomainError, match=message):
        member_update(actor=manager_actor, member_id=member.pk, **{field: value})


def test_the_app_registration_and_playtsogo_flags_are_corrected(manager_actor, member):
    member_update(
        actor=manager_actor,
        member_id=member.pk,
        app_registered_on=dt.date(2026, 3, 1),
        playtsogo_active_since=dt.date(2026, 4, 2),
    )
    member.refresh_from_db()
    assert (member.app_registered_on, member.playtsogo_active_since) == (dt.date(2026, 3, 1), dt.date(2026, 4, 2))
    changes = last_update(member).data["changes"]
    assert changes["app_registered_on"] == {"before": None, "after": "2026-03-01"}
    assert changes["playtsogo_active_since"] == {"before": None, "after": "2026-04-02"}


def test_the_desk_cannot_set_the_playtsogo_flag(desk_actor, member):
    with pytest.raises(DomainError, match="ask a promotions manager"):
        member_update(actor=desk_actor, member_id=member.pk, playtsogo_active_since=dt.date(2026, 4, 2))
    member.refresh_from_db()
    assert member.playtsogo_active_since is None


def test_a_job_without_a_user_may_correct_anything(member):
    member_update(actor=Actor.system("test"), member_id=member.pk, last_name="Dlamini")
    assert Member.objects.get(pk=member.pk).last_name == "Dlamini"


def test_a_number_taken_by_a_sign_up_during_the_correction_gets_the_same_refusal(manager_actor, member, monkeypatch):
    """The check for another member's number runs before the write; a desk that signs the person
    up in between loses nothing to a server error: the unique index answers, in the same words."""
    number = sa_id_for(dt.date(1979, 3, 21), 4321)
    real = services.person_refusals

    def signed_up_meanwhile(**kwargs):
        MemberFactory(id_number=number, card_number="1000000017")
        return real(**kwargs)

    monkeypatch.setattr(services, "person_refusals", signed_up_meanwhile)
    with pytest.raises(DomainError, match="already a member: card 1000000017") as refused:
        member_update(actor=manager_actor, member_id=member.pk, id_number=number)
    assert refused.value.code == "already_member"
