import datetime as dt

import pytest
import time_machine
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from stdnum import luhn

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from members.models import ExclusionKind, Member
from members.services import member_sign_up
from members.tests.factories import ExclusionFactory, MemberFactory, sa_id_for

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))


@pytest.fixture(autouse=True)
def _pinned_clock():
    """Ages are counted on the casino's calendar day: a test that read "today" just before
    midnight and signed up just after would see another age."""
    with time_machine.travel(dt.datetime(2026, 11, 30, 23, 59, 59, tzinfo=SAST), tick=False):
        yield


def years_before(day: dt.date, years: int) -> dt.date:
    """The same day `years` earlier; 29 February falls back to the 28th."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


def sign_up(reference_data, **overrides):
    fields = {
        "actor": Actor.system("test"),
        "first_name": "Naledi",
        "last_name": "Mokoena",
        "id_type": "sa_id",
        "id_number": sa_id_for(dt.date(1992, 4, 9)),
        "date_of_birth": None,
        "home_property": reference_data["properties"]["GRC"],
    } | overrides
    return member_sign_up(**fields)


def test_a_guest_is_signed_up_in_the_lowest_tier_with_a_new_card(reference_data):
    member = sign_up(reference_data)
    assert member.tier.name == "Ten"
    assert member.date_of_birth == dt.date(1992, 4, 9)
    assert luhn.is_valid(member.card_number)
    assert AuditEvent.objects.filter(action="member.signed_up", object_id=str(member.pk)).exists()


def test_two_sign_ups_get_different_card_numbers(reference_data):
    first = sign_up(reference_data)
    second = sign_up(reference_data, id_number=sa_id_for(dt.date(1992, 4, 9), 6001))
    assert first.card_number != second.card_number


def test_a_guest_under_18_is_refused_with_the_date_they_turn_18(reference_data):
    born = years_before(timezone.localdate(), 17)
    with pytest.raises(DomainError, match="Under 18") as refused:
        sign_up(reference_data, id_number=sa_id_for(born))
    assert refused.value.code == "person_refused"
    assert not Member.objects.exists()


def test_a_guest_who_turns_18_today_is_accepted(reference_data):
    today = timezone.localdate()
    born = years_before(today, 18)
    assert sign_up(reference_data, id_number=sa_id_for(born)).pk


@pytest.mark.parametrize("kind", ExclusionKind.values)
def test_an_excluded_guest_is_refused_with_the_reason(kind, reference_data):
    number = sa_id_for(dt.date(1970, 1, 1))
    ExclusionFactory(id_number=number, kind=kind, reason="Order 42/2026.")
    with pytest.raises(DomainError, match="Order 42/2026"):
        sign_up(reference_data, id_number=number)
    assert not Member.objects.exists()


def test_a_guest_who_already_has_a_card_is_told_which_one(reference_data):
    existing = MemberFactory()
    with pytest.raises(DomainError, match=f"already a member: card {existing.card_number}"):
        sign_up(reference_data, id_number=existing.id_number)


def test_a_bad_sa_id_is_refused_in_words_a_clerk_understands(reference_data):
    with pytest.raises(DomainError, match="not a valid South African ID number"):
        sign_up(reference_data, id_number="8001015009088")


def test_the_sign_up_page_issues_a_card_and_shows_the_member(desk, reference_data):
    response = desk.post(
        reverse("members:sign_up"),
        {
            "first_name": "Sipho",
            "last_name": "Ndlovu",
            "id_type": "sa_id",
            "id_number": sa_id_for(dt.date(1988, 8, 8)),
            "home_property": reference_data["properties"]["GH"].pk,
            "phone": "+27 82 555 0101",
        },
        follow=True,
    )
    member = Member.objects.get()
    # Like an activation's receipt: the printable welcome slip with the new card number.
    assert response.redirect_chain[-1][0] == reverse("members:welcome_slip", args=[member.pk])
    assert f'id="slip-card-number">{member.card_number}<' in response.content.decode()
    assert member.phone == "+27825550101"


def test_the_sign_up_page_shows_the_refusal_and_keeps_what_was_typed(desk, reference_data):
    born = years_before(timezone.localdate(), 16)
    response = desk.post(
        reverse("members:sign_up"),
        {
            "first_name": "Young",
            "last_name": "Guest",
            "id_type": "sa_id",
            "id_number": sa_id_for(born),
            "home_property": reference_data["properties"]["GRC"].pk,
        },
    )
    assert response.status_code == 200
    assert "Sign-up refused. Under 18" in response.content.decode()
    assert 'value="Young"' in response.content.decode()
    assert not Member.objects.exists()


@time_machine.travel(dt.datetime(2028, 2, 29, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))), tick=False)
def test_on_29_february_a_guest_born_on_28_february_18_years_ago_is_accepted(reference_data):
    assert sign_up(reference_data, id_number=sa_id_for(dt.date(2010, 2, 28))).pk


EXCLUDED_SA_ID = "8505055123087"  # the number of the report (issue 6, 2.1)


@pytest.mark.parametrize("picked", ["passport", "driving_licence"])
def test_it_refuses_an_excluded_sa_id_typed_as_another_document(picked, reference_data):
    ExclusionFactory(id_type="sa_id", id_number=EXCLUDED_SA_ID, reason="National self-exclusion register.")
    with pytest.raises(DomainError, match="National self-exclusion register") as refused:
        sign_up(reference_data, id_type=picked, id_number=EXCLUDED_SA_ID, date_of_birth=dt.date(1985, 5, 5))
    assert refused.value.code == "person_refused"
    assert not Member.objects.exists()


def test_the_sign_up_page_refuses_an_excluded_sa_id_typed_as_a_passport(desk, reference_data):
    ExclusionFactory(id_type="sa_id", id_number=EXCLUDED_SA_ID, reason="National self-exclusion register.")
    response = desk.post(
        reverse("members:sign_up"),
        {
            "first_name": "Excluded",
            "last_name": "Guest",
            "id_type": "passport",
            "id_number": EXCLUDED_SA_ID,
            "date_of_birth": "1985-05-05",
            "home_property": reference_data["properties"]["GRC"].pk,
        },
    )
    assert response.status_code == 200
    assert "Sign-up refused. Self-excluded" in response.content.decode()
    assert not Member.objects.exists()


def test_an_sa_id_typed_as_a_passport_is_stored_as_an_sa_id(reference_data):
    member = sign_up(reference_data, id_type="passport", id_number=sa_id_for(dt.date(1990, 3, 3)))
    assert (member.id_type, member.date_of_birth) == ("sa_id", dt.date(1990, 3, 3))


def test_it_refuses_a_number_already_held_under_another_document_type(reference_data):
    existing = MemberFactory(id_type="passport", id_number="A7654321", date_of_birth=dt.date(1990, 1, 1))
    with pytest.raises(DomainError, match=f"already a member: card {existing.card_number}") as refused:
        sign_up(reference_data, id_type="driving_licence", id_number="a765 4321", date_of_birth=dt.date(1990, 1, 1))
    assert refused.value.code == "already_member"


def test_the_database_refuses_two_members_with_one_number_under_different_types(reference_data):
    MemberFactory(id_type="passport", id_number="A7654321")
    with pytest.raises(IntegrityError, match="member_unique_id_number"), transaction.atomic():
        MemberFactory(id_type="driving_licence", id_number="A7654321")
