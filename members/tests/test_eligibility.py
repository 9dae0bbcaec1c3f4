import datetime as dt

import pytest
import time_machine
from django.utils import timezone

from members.eligibility import member_eligibility
from members.models import ExclusionKind
from members.tests.factories import ExclusionFactory, MemberFactory, sa_id_for

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))


def test_an_adult_with_no_exclusion_is_eligible(reference_data):
    assert member_eligibility(MemberFactory()).eligible


@time_machine.travel(dt.datetime(2026, 3, 14, 23, 59, 59, tzinfo=SAST))
def test_a_member_is_under_18_until_the_day_of_their_18th_birthday(reference_data):
    member = MemberFactory(date_of_birth=dt.date(2008, 3, 15))
    eligibility = member_eligibility(member)
    assert not eligibility.eligible
    assert eligibility.reasons == ["Under 18 (aged 17; turns 18 on 15 Mar 2026)."]
    assert member_eligibility(member, dt.datetime(2026, 3, 15, 0, 0, tzinfo=SAST)).eligible


def test_age_is_counted_on_the_casino_calendar_not_utc(reference_data):
    member = MemberFactory(date_of_birth=dt.date(2008, 3, 15))
    # 00:30 in Johannesburg on the birthday is still 22:30 the day before in UTC.
    assert member_eligibility(member, dt.datetime(2026, 3, 15, 0, 30, tzinfo=SAST)).eligible


@pytest.mark.parametrize("kind", ExclusionKind.values)
def test_every_kind_of_exclusion_makes_a_member_ineligible_with_its_reason(kind, reference_data):
    member = MemberFactory()
    ExclusionFactory(id_type=member.id_type, id_number=member.id_number, kind=kind, reason="On the register.")
    eligibility = member_eligibility(member)
    assert not eligibility.eligible
    assert "On the register." in eligibility.reasons[0]
    assert ExclusionKind(kind).label.split(" (")[0] in eligibility.reasons[0]


def test_an_exclusion_counts_only_between_its_start_and_end(reference_data):
    member = MemberFactory()
    start = timezone.now()
    ExclusionFactory(
        id_type=member.id_type, id_number=member.id_number, starts_at=start, ends_at=start + dt.timedelta(days=30)
    )
    assert member_eligibility(member, start - dt.timedelta(seconds=1)).eligible
    assert not member_eligibility(member, start).eligible
    assert not member_eligibility(member, start + dt.timedelta(days=30, seconds=-1)).eligible
    assert member_eligibility(member, start + dt.timedelta(days=30)).eligible


def test_an_exclusion_of_another_person_does_not_count(reference_data):
    member = MemberFactory(date_of_birth=dt.date(1980, 1, 1))
    ExclusionFactory(id_number=sa_id_for(dt.date(1980, 1, 1), 1234))
    assert member_eligibility(member).eligible


def test_all_reasons_are_listed_together(reference_data):
    member = MemberFactory(date_of_birth=timezone.localdate() - dt.timedelta(days=365 * 17))
    ExclusionFactory(id_type=member.id_type, id_number=member.id_number, kind=ExclusionKind.REFUSAL_OF_ENTRY)
    assert len(member_eligibility(member).reasons) == 2


def test_a_guest_without_a_card_is_not_a_member():
    eligibility = member_eligibility(None)
    assert eligibility.reasons == ["Not a member: sign the guest up for a rewards card first."]


@time_machine.travel(dt.datetime(2026, 11, 30, 10, 0, tzinfo=SAST), tick=False)
def test_the_refusal_names_the_last_day_of_the_exclusion_not_the_midnight_after_it(reference_data):
    member = MemberFactory()
    ExclusionFactory(
        id_number=member.id_number,
        reason="Asked for a year.",
        starts_at=dt.datetime(2026, 11, 1, tzinfo=SAST),
        ends_at=dt.datetime(2027, 11, 30, tzinfo=SAST),  # last day entered: 29 November 2027
    )
    assert member_eligibility(member).reasons == [
        "Self-excluded since 01 Nov 2026 until 29 Nov 2027, inclusive: Asked for a year."
    ]


def test_an_exclusion_recorded_under_another_document_type_still_counts(reference_data):
    member = MemberFactory(id_type="passport", id_number="A7654321")
    ExclusionFactory(id_type="driving_licence", id_number="A7654321", reason="Same number, other document.")
    assert "Same number, other document." in member_eligibility(member).reasons[0]
