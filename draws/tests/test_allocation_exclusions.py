"""An exclusion bars a member's tickets whatever document type either record carries
(issue 6, 2.1): the allocation statement, one member's standing and activation agree."""

import datetime as dt

import pytest

from core.audit import Actor
from core.errors import DomainError
from draws.allocation import draw_allocations, member_allocation
from draws.models import Activation, Channel, Draw
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_THE_WINDOW = dt.datetime(2025, 10, 15, 9, 0, tzinfo=SAST)
SA_ID = "8505055123087"


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(period_kind="days_before", period_days=7, points_per_ticket=100), DRAW_AT)


@pytest.fixture
def member(reference_data):
    # Signed up before types were corrected: an SA ID number stored as a passport.
    member = MemberFactory(
        id_type="passport",
        id_number=SA_ID,
        date_of_birth=dt.date(1985, 5, 5),
        tier=reference_data["tiers"]["QUEEN"],
        card_number="4000000001",
    )
    PointsEntryFactory(member=member, points=550, earned_at=DRAW_AT - dt.timedelta(days=2))
    return member


@pytest.fixture
def excluded(member):
    return ExclusionFactory(
        id_type="sa_id",
        id_number=SA_ID,
        reason="National self-exclusion register.",
        starts_at=DRAW_AT - dt.timedelta(days=30),
    )


def test_the_member_has_tickets_without_the_exclusion(draw, member):
    assert member_allocation(draw, member, at=IN_THE_WINDOW).tickets == 5
    assert [a.member_id for a in draw_allocations(draw, at=IN_THE_WINDOW)] == [member.pk]


def test_a_member_the_statement_counts_costs_no_read_of_the_register(draw, member, django_assert_num_queries):
    """The allocation statement applies the register itself: the member's standing reads the
    series' tiers and runs the statement, and reads the register again only to word a refusal."""
    draw = Draw.objects.with_related().get(pk=draw.pk)
    with django_assert_num_queries(2) as queries:
        assert member_allocation(draw, member, at=IN_THE_WINDOW).tickets == 5
    assert not any("members_exclusion" in q["sql"] and "pts" not in q["sql"] for q in queries.captured_queries)


def test_the_allocation_statement_leaves_out_a_member_excluded_under_another_type(draw, member, excluded):
    assert draw_allocations(draw, at=IN_THE_WINDOW) == []


def test_the_member_standing_gives_the_exclusion_as_the_reason(draw, member, excluded):
    standing = member_allocation(draw, member, at=IN_THE_WINDOW)
    assert standing.tickets == 0
    assert "National self-exclusion register." in standing.refusals[0]


def test_activation_is_refused(draw, member, excluded):
    with pytest.raises(DomainError) as refused:
        activation_create(
            actor=Actor.system("test"),
            draw_id=draw.pk,
            card_number=member.card_number,
            channel=Channel.EHOST,
            now=IN_THE_WINDOW,
        )
    assert refused.value.code == "not_eligible"
    assert not Activation.objects.exists()
