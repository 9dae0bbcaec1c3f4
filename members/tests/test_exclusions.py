import datetime as dt

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from members.eligibility import member_eligibility
from members.models import Exclusion
from members.services import exclusion_end, exclusion_record
from members.tests.factories import ExclusionFactory, MemberFactory

pytestmark = pytest.mark.django_db


def test_a_manager_records_an_exclusion_and_the_member_becomes_ineligible(manager, reference_data):
    member = MemberFactory()
    response = manager.post(
        reverse("members:exclusion_new"),
        {
            "id_type": member.id_type,
            "id_number": member.id_number,
            "full_name": member.full_name,
            "kind": "connected_person",
            "reason": "Brother of a cage cashier.",
            "starts_on": timezone.localdate().isoformat(),
        },
    )
    assert response.status_code == 302
    eligibility = member_eligibility(member)
    assert not eligibility.eligible and "Brother of a cage cashier." in eligibility.reasons[0]
    assert AuditEvent.objects.filter(action="exclusion.recorded").count() == 1


def test_the_form_is_prefilled_from_the_member_page(manager, reference_data):
    member = MemberFactory()
    form = manager.get(reverse("members:exclusion_new"), {"member": member.pk}).context["form"]
    assert form.initial["id_number"] == member.id_number


def test_an_exclusion_cannot_end_before_it_starts(manager, reference_data):
    today = timezone.localdate()
    response = manager.post(
        reverse("members:exclusion_new"),
        {
            "id_type": "passport",
            "id_number": "A7654321",
            "full_name": "Someone",
            "kind": "self_exclusion",
            "reason": "Asked.",
            "starts_on": today.isoformat(),
            "ends_on": (today - dt.timedelta(days=1)).isoformat(),
        },
    )
    assert response.status_code == 200
    assert "The last day cannot be before the first." in response.content.decode()
    assert not Exclusion.objects.exists()


def test_ending_an_exclusion_restores_eligibility_and_is_audited(manager, reference_data, user_for):
    member = MemberFactory()
    exclusion = ExclusionFactory(id_type=member.id_type, id_number=member.id_number)
    assert not member_eligibility(member).eligible
    response = manager.post(reverse("members:exclusion_end", args=[exclusion.pk]))
    assert response.status_code == 302
    assert member_eligibility(member).eligible
    assert AuditEvent.objects.filter(action="exclusion.ended", object_id=str(exclusion.pk)).exists()


def test_an_ended_exclusion_cannot_be_ended_again(user_for, reference_data):
    actor = Actor.for_user(user_for("promotions_manager"))
    exclusion = ExclusionFactory()
    exclusion_end(actor=actor, exclusion_id=exclusion.pk)
    with pytest.raises(DomainError, match="already ended"):
        exclusion_end(actor=actor, exclusion_id=exclusion.pk)


def test_an_exclusion_needs_a_signed_in_person(reference_data):
    with pytest.raises(DomainError, match="signed-in manager"):
        exclusion_record(
            actor=Actor.system("x"),
            id_type="sa_id",
            id_number="8001015009087",
            full_name="X",
            kind="self_exclusion",
            reason="r",
            starts_at=timezone.now(),
        )


def test_the_desk_sees_exclusions_in_force_but_cannot_end_them(desk, reference_data):
    ExclusionFactory(full_name="Barred Person")
    ExclusionFactory(full_name="Former Excludee", ends_at=timezone.now() - dt.timedelta(days=1))
    content = desk.get(reverse("members:exclusions")).content.decode()
    assert "Barred Person" in content and "Former Excludee" not in content
    assert "End now" not in content


def test_an_exclusion_typed_with_spaces_still_bars_the_member(user_for, reference_data):
    member = MemberFactory()
    spaced = f"{member.id_number[:6]} {member.id_number[6:10]} {member.id_number[10:]}"
    exclusion_record(
        actor=Actor.for_user(user_for("promotions_manager")),
        id_type="sa_id",
        id_number=spaced,
        full_name=member.full_name,
        kind="self_exclusion",
        reason="Own request.",
        starts_at=timezone.now() - dt.timedelta(minutes=1),
    )
    assert not member_eligibility(member).eligible


def test_an_exclusion_with_an_invalid_sa_id_is_refused(user_for, reference_data):
    with pytest.raises(DomainError, match="not a valid South African ID number"):
        exclusion_record(
            actor=Actor.for_user(user_for("promotions_manager")),
            id_type="sa_id",
            id_number="8001015009088",
            full_name="X",
            kind="self_exclusion",
            reason="r",
            starts_at=timezone.now(),
        )


SAST = dt.timezone(dt.timedelta(hours=2))
NOV_30_2026 = dt.datetime(2026, 11, 30, 10, 0, tzinfo=SAST)


@pytest.fixture
def on_30_november(db):
    """The clock pinned before anyone logs in (a session idles out after 30 minutes)."""
    with time_machine.travel(NOV_30_2026, tick=False):
        yield


def test_an_exclusion_recorded_as_a_passport_with_an_sa_id_number_bars_the_member(user_for, reference_data):
    member = MemberFactory(id_number="8505055123087", date_of_birth=dt.date(1985, 5, 5))
    exclusion = exclusion_record(
        actor=Actor.for_user(user_for("promotions_manager")),
        id_type="passport",
        id_number="8505055123087",
        full_name=member.full_name,
        kind="self_exclusion",
        reason="National register.",
        starts_at=timezone.now() - dt.timedelta(minutes=1),
    )
    assert exclusion.id_type == "sa_id"
    assert not member_eligibility(member).eligible


def test_an_exclusion_bars_a_member_whose_number_was_stored_under_another_type(user_for, reference_data):
    # A member signed up before types were corrected: the same number under "driving licence".
    member = MemberFactory(id_type="driving_licence", id_number="8505055123087", date_of_birth=dt.date(1985, 5, 5))
    ExclusionFactory(id_type="sa_id", id_number="8505055123087")
    assert not member_eligibility(member).eligible


def test_it_refuses_an_unknown_kind_of_exclusion(user_for, reference_data):
    with pytest.raises(DomainError, match="Unknown kind of exclusion"):
        exclusion_record(
            actor=Actor.for_user(user_for("promotions_manager")),
            id_type="passport",
            id_number="A7654321",
            full_name="X",
            kind="banned",
            reason="r",
            starts_at=timezone.now(),
        )


def test_the_list_shows_the_last_day_the_manager_entered(on_30_november, manager, reference_data):
    response = manager.post(
        reverse("members:exclusion_new"),
        {
            "id_type": "passport",
            "id_number": "A7654321",
            "full_name": "Until Person",
            "kind": "self_exclusion",
            "reason": "Asked for a year.",
            "starts_on": "2026-11-30",
            "ends_on": "2027-11-29",
        },
    )
    assert response.status_code == 302
    exclusion = Exclusion.objects.get()
    assert exclusion.ends_at == dt.datetime(2027, 11, 30, 0, 0, tzinfo=SAST)  # stored as the next midnight
    assert exclusion.last_day == dt.date(2027, 11, 29)
    content = manager.get(reverse("members:exclusions")).content.decode()
    assert "29 Nov 2027, inclusive" in content
    assert "30 Nov 2027" not in content and "2027-11-30" not in content


def test_an_exclusion_ended_early_shows_when_it_ended(on_30_november, user_for, reference_data):
    exclusion = ExclusionFactory(starts_at=dt.datetime(2026, 1, 1, tzinfo=SAST))
    exclusion_end(actor=Actor.for_user(user_for("promotions_manager")), exclusion_id=exclusion.pk)
    exclusion.refresh_from_db()
    assert exclusion.last_day == dt.date(2026, 11, 30)
    assert exclusion.until_label == "Mon 30 Nov 2026 10:00"


def test_the_member_page_shows_the_last_day_of_an_exclusion(on_30_november, manager, reference_data):
    member = MemberFactory()
    ExclusionFactory(
        id_number=member.id_number,
        reason="Asked for a year.",
        starts_at=dt.datetime(2026, 11, 1, tzinfo=SAST),
        ends_at=dt.datetime(2027, 11, 30, tzinfo=SAST),
    )
    content = manager.get(reverse("members:detail", args=[member.pk])).content.decode()
    assert "until 29 Nov 2027, inclusive" in content
    assert "30 Nov 2027" not in content


def test_the_list_finds_an_exclusion_by_its_number_typed_with_spaces(desk, reference_data):
    ExclusionFactory(id_number="8505055123087", full_name="Spaced Number")
    ExclusionFactory(full_name="Someone Else")
    content = desk.get(reverse("members:exclusions"), {"q": "850505 5123 087"}).content.decode()
    assert "Spaced Number" in content and "Someone Else" not in content


@pytest.mark.parametrize("member", ["abc", "1.5", "-1", "99999999999999999999999", ""])
def test_a_form_link_with_a_bad_member_is_an_empty_form_not_an_error(member, manager, reference_data):
    response = manager.get(reverse("members:exclusion_new"), {"member": member})
    assert response.status_code == 200
    assert response.context["form"].initial == {}


def test_a_member_id_in_other_digits_is_not_read_as_that_member(manager, reference_data):
    member = MemberFactory()
    arabic_indic = str(member.pk).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
    response = manager.get(reverse("members:exclusion_new"), {"member": arabic_indic})
    assert response.status_code == 200
    assert response.context["form"].initial == {}
    assert manager.get(reverse("members:exclusion_new"), {"member": member.pk}).context["form"].initial


def test_a_search_with_a_broken_character_shows_the_error_and_lists_nothing(desk, reference_data):
    ExclusionFactory(full_name="Barred Person")
    response = desk.get(reverse("members:exclusions"), {"q": "Barred\x00"})
    content = response.content.decode()
    assert response.status_code == 200
    assert "invisible control character" in content and "Barred Person" not in content
