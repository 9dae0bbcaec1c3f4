"""The members import reads an ID document as sign-up does (issue 6, 2.1): a valid SA ID number
is an SA ID whatever id_type the file gives, and one number is one member whatever its type."""

import datetime as dt

import pytest
import time_machine

from members.eligibility import member_eligibility
from members.models import ImportStatus, Member
from members.tests.factories import ExclusionFactory, MemberFactory
from members.tests.test_imports import MEMBERS_HEADER, errors_of, member_line, run_import

pytestmark = pytest.mark.django_db

EXCLUDED_SA_ID = "8505055123087"


@pytest.fixture(autouse=True)
def _pinned_clock():
    with time_machine.travel(dt.datetime(2026, 11, 2, 10, 0, tzinfo=dt.UTC), tick=False):
        yield


def members_file(*lines: str) -> str:
    return "\n".join([MEMBERS_HEADER, *lines]) + "\n"


@pytest.mark.parametrize("id_type", ["passport", "driving_licence"])
def test_an_sa_id_given_as_another_document_is_imported_as_an_sa_id_and_stays_barred(id_type, reference_data):
    ExclusionFactory(id_type="sa_id", id_number=EXCLUDED_SA_ID, reason="National self-exclusion register.")
    job = run_import("members", members_file(member_line("2000000001", id_number=EXCLUDED_SA_ID, id_type=id_type)))
    assert job.status == ImportStatus.SUCCEEDED, errors_of(job)
    member = Member.objects.get()
    assert (member.id_type, member.date_of_birth) == ("sa_id", dt.date(1985, 5, 5))
    assert "National self-exclusion register." in member_eligibility(member).reasons[0]


def test_an_sa_id_already_held_is_a_bad_row_whatever_type_the_file_gives(reference_data):
    MemberFactory(id_type="sa_id", id_number=EXCLUDED_SA_ID, date_of_birth=dt.date(1985, 5, 5))
    job = run_import(
        "members",
        members_file(
            member_line("2000000001"),
            member_line("2000000002", id_number=EXCLUDED_SA_ID, id_type="passport"),
        ),
    )
    assert job.status == ImportStatus.FAILED
    assert errors_of(job) == [(3, f"id_number {EXCLUDED_SA_ID} already belongs to a member")]
    assert Member.objects.count() == 1


def test_one_number_twice_in_a_file_under_two_types_is_a_bad_row(reference_data):
    job = run_import(
        "members",
        members_file(
            member_line("2000000001", id_number="A7654321", id_type="passport", date_of_birth="1990-01-01"),
            member_line("2000000002", id_number="A7654321", id_type="driving_licence", date_of_birth="1990-01-01"),
        ),
    )
    assert job.status == ImportStatus.FAILED
    assert errors_of(job) == [(3, "id_number A7654321 already belongs to a member")]


def test_an_sa_id_given_as_a_passport_with_another_birth_date_is_a_bad_row(reference_data):
    job = run_import(
        "members",
        members_file(
            member_line("2000000001", id_number=EXCLUDED_SA_ID, id_type="passport", date_of_birth="1990-01-01")
        ),
    )
    assert job.status == ImportStatus.FAILED
    [(line, message)] = errors_of(job)
    assert line == 2 and "does not match the ID number, which gives 1985-05-05" in message
