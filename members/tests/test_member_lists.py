"""The members, exclusions and imports lists page, filter and count (issue 9, 6), with a
number of queries that does not grow with the rows."""

import datetime as dt

import pytest
from django.core.files.base import ContentFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from core.audit import Actor
from core.roles import AUDITOR, CASH_DESK
from members.models import ImportJob, ImportStatus
from members.services import import_job_create
from members.tests.factories import ExclusionFactory, MemberFactory, UserFactory, sa_id_for

pytestmark = pytest.mark.django_db


def showing(first: int, last: int, count: int, noun: str) -> str:
    """The count under a paged list (templates/_pagination.html)."""
    return f"Showing {first}\N{EN DASH}{last} of {count} {noun}"


def queries(client, url, params=None) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, params).status_code == 200
    return len(captured)


# --- members --------------------------------------------------------------------------------


def test_the_members_list_pages_with_its_count(desk, reference_data):
    MemberFactory.create_batch(55)
    first = desk.get(reverse("members:list")).content.decode()
    assert showing(1, 50, 55, "members") in first and 'rel="next"' in first
    second = desk.get(reverse("members:list"), {"page": 2}).content.decode()
    assert showing(51, 55, 55, "members") in second


def test_the_members_list_filters_by_property_tier_and_app(desk, reference_data):
    grc, gh = reference_data["properties"]["GRC"], reference_data["properties"]["GH"]
    ace = reference_data["tiers"]["ACE"]
    MemberFactory(home_property=gh, tier=ace, app_registered_on=dt.date(2026, 1, 5), last_name="Wanted")
    MemberFactory(home_property=gh, tier=ace, last_name="NoApp")
    MemberFactory(home_property=grc, tier=ace, app_registered_on=dt.date(2026, 1, 5), last_name="OtherCasino")
    content = desk.get(reverse("members:list"), {"home_property": gh.pk, "tier": ace.pk, "app": "yes"}).text
    assert showing(1, 1, 1, "members") in content and "Wanted" in content
    assert "NoApp" not in content and "OtherCasino" not in content
    # The page links keep the filters.
    assert f'<option value="{gh.pk}" selected>' in content


def test_the_members_list_searches_like_the_lookup(desk, reference_data):
    thabo = MemberFactory(first_name="Thabo", last_name="Nkosi", card_number="1000000017")
    MemberFactory(first_name="Sipho", last_name="Nkosi")
    assert "of 2 members" in desk.get(reverse("members:list"), {"q": "nkosi"}).text
    assert "of 1 members" in desk.get(reverse("members:list"), {"q": "thabo nkos"}).text
    by_card = desk.get(reverse("members:list"), {"q": "1000000017"}).text
    by_id = desk.get(reverse("members:list"), {"q": thabo.id_number}).text
    assert "of 1 members" in by_card and "of 1 members" in by_id
    assert "at least 3 letters" in desk.get(reverse("members:list"), {"q": "ab"}).text


def test_the_members_list_masks_id_numbers(client_for, reference_data):
    member = MemberFactory()
    content = client_for(CASH_DESK).get(reverse("members:list")).text
    assert member.id_number not in content and member.id_number[-4:] in content


def test_a_bad_filter_lists_nobody_and_says_so(desk, reference_data):
    MemberFactory()
    content = desk.get(reverse("members:list"), {"home_property": "999999"}).text
    assert "Correct the filter above" in content and "None to show" in content


def test_the_members_list_runs_the_same_queries_however_many_rows(desk, reference_data):
    MemberFactory.create_batch(3)
    few = queries(desk, reverse("members:list"))
    MemberFactory.create_batch(60)
    assert queries(desk, reverse("members:list")) == few <= 12


# --- exclusions -----------------------------------------------------------------------------


@pytest.fixture
def exclusions(reference_data):
    now = timezone.now()
    member = MemberFactory(first_name="Carded", last_name="Person")
    return {
        "carded": ExclusionFactory(id_number=member.id_number, full_name="Carded Person"),
        "guest": ExclusionFactory(id_number=sa_id_for(dt.date(1970, 2, 2), 1), full_name="Guest Without Card"),
        "ended": ExclusionFactory(
            id_number=sa_id_for(dt.date(1970, 3, 3), 2),
            full_name="Ended Person",
            ends_at=now - dt.timedelta(days=1),
            ended_by=UserFactory(username="manager7"),
        ),
        "future": ExclusionFactory(
            id_number=sa_id_for(dt.date(1970, 4, 4), 3),
            full_name="Future Person",
            kind="refusal_of_entry",
            starts_at=now + dt.timedelta(days=3),
        ),
        "member": member,
    }


def test_the_exclusions_list_shows_those_in_force_with_counts_of_each_status(manager, exclusions):
    content = manager.get(reverse("members:exclusions")).text
    assert "Carded Person" in content and "Guest Without Card" in content
    assert "Ended Person" not in content and "Future Person" not in content
    assert showing(1, 2, 2, "exclusions") in content
    for label, count in (("In force", 2), ("Ended", 1), ("Starting later", 1), ("All", 4)):
        assert f'{label} <span class="badge' in content and f">{count}</span>" in content


def test_ended_exclusions_are_listed_with_who_ended_them_and_no_end_button(manager, exclusions):
    content = manager.get(reverse("members:exclusions"), {"status": "ended"}).text
    assert "Ended Person" in content and "ended by manager7" in content
    assert "End now" not in content


def test_an_exclusion_not_yet_started_offers_no_end_now(manager, exclusions):
    content = manager.get(reverse("members:exclusions"), {"status": "future"}).text
    assert "Future Person" in content and "End now" not in content


def test_an_exclusion_in_force_offers_end_now_to_the_manager_only(manager, desk, exclusions):
    assert "End now" in manager.get(reverse("members:exclusions")).text
    assert "End now" not in desk.get(reverse("members:exclusions")).text


def test_an_excluded_member_is_linked_and_a_guest_without_a_card_is_not(manager, exclusions):
    content = manager.get(reverse("members:exclusions")).text
    member_url = reverse("members:detail", args=[exclusions["member"].pk])
    assert f'<a href="{member_url}">Carded Person</a>' in content
    assert "Guest Without Card <span" in content and "(no card)" in content


def test_the_search_is_labelled_and_finds_by_name_or_number_in_any_status(manager, exclusions):
    content = manager.get(reverse("members:exclusions"), {"q": "ended", "status": "all"}).text
    assert '<label class="form-label small mb-0" for="id_q">ID number or name</label>' in content
    assert "Ended Person" in content and "Carded Person" not in content
    number = exclusions["guest"].id_number
    spaced = f"{number[:6]} {number[6:10]} {number[10:]}"
    assert "Guest Without Card" in manager.get(reverse("members:exclusions"), {"q": spaced}).text


def test_the_counts_follow_the_search_and_the_kind(manager, exclusions):
    content = manager.get(reverse("members:exclusions"), {"kind": "refusal_of_entry", "status": "all"}).text
    assert "Future Person" in content and showing(1, 1, 1, "exclusions") in content
    assert "Carded Person" not in content


def test_the_tabs_keep_the_search(manager, exclusions):
    content = manager.get(reverse("members:exclusions"), {"q": "person"}).text
    assert 'href="?q=person&amp;status=ended"' in content


def test_the_exclusions_list_pages(manager, reference_data):
    for n in range(52):
        ExclusionFactory(id_number=sa_id_for(dt.date(1971, 1, 1), n))
    content = manager.get(reverse("members:exclusions")).text
    assert showing(1, 50, 52, "exclusions") in content


def test_the_exclusions_list_runs_the_same_queries_however_many_rows(manager, reference_data):
    for n in range(3):
        ExclusionFactory(id_number=sa_id_for(dt.date(1971, 1, 1), n))
    few = queries(manager, reverse("members:exclusions"))
    for n in range(3, 60):
        MemberFactory(id_number=sa_id_for(dt.date(1971, 1, 1), n))
        ExclusionFactory(id_number=sa_id_for(dt.date(1971, 1, 1), n), recorded_by=UserFactory())
    assert queries(manager, reverse("members:exclusions")) == few <= 12


# --- imports --------------------------------------------------------------------------------


def make_jobs(count: int, *, kind="members", status=ImportStatus.SUCCEEDED) -> None:
    for _ in range(count):
        job = import_job_create(actor=Actor.system("test"), kind=kind, file=ContentFile(b"x"), name=f"{kind}.csv")
        ImportJob.objects.filter(pk=job.pk).update(status=status)


def test_the_imports_list_pages_with_counts_by_status(manager, reference_data):
    make_jobs(51)
    make_jobs(2, status=ImportStatus.FAILED)
    content = manager.get(reverse("members:imports")).text
    assert showing(1, 50, 53, "imports") in content
    assert 'All <span class="badge text-bg-light">53</span>' in content
    assert 'Rejected <span class="badge text-bg-secondary">2</span>' in content
    second = manager.get(reverse("members:imports"), {"page": 2}).text
    assert showing(51, 53, 53, "imports") in second


def test_the_imports_list_filters_by_kind_and_status(client_for, reference_data):
    make_jobs(2, kind="points")
    make_jobs(1, kind="points", status=ImportStatus.FAILED)
    make_jobs(4)
    auditor = client_for(AUDITOR)
    content = auditor.get(reverse("members:imports"), {"kind": "points", "status": "failed"}).text
    assert showing(1, 1, 1, "imports") in content
    # The counts are of the kind chosen, each status a tab that keeps the kind.
    assert 'All <span class="badge text-bg-secondary">3</span>' in content
    assert 'href="?kind=points&amp;status=succeeded"' in content


def test_the_imports_list_runs_the_same_queries_however_many_rows(manager, reference_data):
    make_jobs(2)
    few = queries(manager, reverse("members:imports"))
    make_jobs(40)
    assert queries(manager, reverse("members:imports")) == few <= 12
