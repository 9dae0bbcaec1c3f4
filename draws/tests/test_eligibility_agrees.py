"""Eligibility has one meaning: members.eligibility.person_refusals (what the desk and the
kiosk are told) and the allocation statement's SQL (who gets tickets) agree for every member of
a generated population: ages around the 18th birthday on the draw day (29 February included)
and exclusions starting, ending and spanning every edge between now and the draw."""

import datetime as dt
import itertools

import pytest

from draws.allocation import draw_allocations, person_refusals_for_draw
from draws.raps import _person_refusals
from draws.tests.factories import make_draw
from members.identity import IdType
from members.models import Exclusion, ExclusionKind
from members.tests.factories import MemberFactory, PointsEntryFactory, UserFactory, sa_id_for
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
NOW = dt.datetime(2025, 10, 15, 9, 0, tzinfo=SAST)
H = dt.timedelta(hours=1)

BIRTH_DATES = [
    dt.date(2007, 10, 14),  # 18 the day before the draw
    dt.date(2007, 10, 15),  # 18 on the draw day
    dt.date(2007, 10, 16),  # 18 the day after: refused
    dt.date(2008, 2, 29),  # a leap-day birthday, still 17
    dt.date(1980, 1, 1),
]
# (starts_at, ends_at) of an exclusion, or None for no exclusion.
EXCLUSIONS = [
    None,
    (NOW - 48 * H, NOW - H),  # ended before now
    (NOW - 48 * H, NOW),  # ends exactly now: no longer in force
    (NOW - 48 * H, NOW + H),  # ends between now and the draw: still barred now
    (NOW + H, NOW + 2 * H),  # starts and ends between now and the draw
    (DRAW_AT, None),  # starts at the draw
    (DRAW_AT + H, None),  # starts after the draw
    (NOW - 48 * H, None),  # in force throughout
]
DOCUMENT_TYPES = [IdType.SA_ID, IdType.PASSPORT]  # the exclusion recorded as either type


def test_the_desk_and_the_allocation_agree_on_who_may_take_part(reference_data):
    draw = make_draw(make_series(points_per_ticket=100), DRAW_AT)
    recorder = UserFactory()
    members = []
    for n, (born, exclusion, doc_type) in enumerate(itertools.product(BIRTH_DATES, EXCLUSIONS, DOCUMENT_TYPES)):
        member = MemberFactory(date_of_birth=born, id_number=sa_id_for(born, 1000 + n))
        PointsEntryFactory(member=member, points=300, earned_at=DRAW_AT - 24 * H)
        if exclusion:
            Exclusion.objects.create(
                id_type=doc_type,
                id_number=member.id_number,
                kind=ExclusionKind.SELF_EXCLUSION,
                reason="generated",
                starts_at=exclusion[0],
                ends_at=exclusion[1],
                recorded_by=recorder,
            )
        members.append(member)

    in_sql = {a.member_id for a in draw_allocations(draw, at=NOW)}
    by_desk = {m.pk for m in members if not person_refusals_for_draw(draw, m, at=NOW)}
    assert in_sql == by_desk
    # The population really has both kinds: neither side is trivially empty or full.
    assert 0 < len(by_desk) < len(members)

    # A RAPS list's bulk check asks the same SQL twin (draws.raps): it refuses the same people.
    by_raps = set(_person_refusals(draw, members, NOW))
    assert by_raps == {m.pk for m in members} - by_desk
