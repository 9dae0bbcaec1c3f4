"""The activation's first statement counts the member's tickets with the worker's copy of the
draw (draws.services._first_look, issue 17 item 1): one round trip less. The count is used only
when the same statement says the copy is current; a copy made stale by a rule saved since is
counted again with the draw as it is now."""

import datetime as dt

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from draws import activation_cache
from draws.allocation import NOT_COUNTED, allocation_from_row, member_allocation
from draws.models import Activation
from draws.services import _first_look
from draws.tests.test_activation_statements import _statements
from draws.tests.test_api import DRAW_AT, IN_WINDOW, draw, ehost, member, post  # noqa: F401 (fixtures)
from draws.tests.test_series_rule_race import _save_rule
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory
from promotions.models import EarningRule

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_copies():
    """Each test starts as a worker that has read no draw yet."""
    activation_cache.forget_all()
    yield
    activation_cache.forget_all()


def test_without_a_copy_the_first_look_counts_nothing_and_with_one_it_counts_as_the_allocation(
    reference_data,
    draw,  # noqa: F811
):
    tiers, grc, gh = reference_data["tiers"], reference_data["properties"]["GRC"], reference_data["properties"]["GH"]
    earner = MemberFactory(tier=tiers["QUEEN"], home_property=gh)
    PointsEntryFactory(member=earner, property=grc, points=420, earned_at=DRAW_AT - dt.timedelta(days=1))
    home_no_points = MemberFactory(tier=tiers["KING"], home_property=grc)
    elsewhere_no_points = MemberFactory(tier=tiers["QUEEN"], home_property=gh)
    excluded = MemberFactory(tier=tiers["QUEEN"], home_property=grc)
    PointsEntryFactory(member=excluded, property=grc, points=900, earned_at=DRAW_AT - dt.timedelta(days=1))
    ExclusionFactory(id_number=excluded.id_number, starts_at=IN_WINDOW - dt.timedelta(days=30), ends_at=None)
    people = [earner, home_no_points, elsewhere_no_points, excluded]

    cold = _first_look(earner.card_number, draw.pk, None, IN_WINDOW)
    assert (cold.counted_with, cold.allocation) == (None, None)
    copy = activation_cache.cached_draw(draw.pk, cold.draw_version)
    answers = {}
    for person in people:
        look = _first_look(person.card_number, draw.pk, None, IN_WINDOW)
        assert look.counted_with is copy and look.draw_version == copy.cache_version
        counted = allocation_from_row(look.allocation) if look.allocation else None
        # The statement applies the same eligibility as member_allocation's words.
        assert counted == member_allocation(draw, person, at=IN_WINDOW).allocation
        answers[person] = counted.tickets if counted else None
    # 420 points at 100 a ticket: 4; a home member with no points here is counted, with none.
    assert answers == {earner: 4, home_no_points: 0, elsewhere_no_points: None, excluded: None}
    # Given the count, member_allocation says what it says when it runs the statement itself.
    for person in people:
        look = _first_look(person.card_number, draw.pk, None, IN_WINDOW)
        given = member_allocation(copy, person, at=IN_WINDOW, counted=look.allocation)
        asked = member_allocation(copy, person, at=IN_WINDOW, counted=NOT_COUNTED)
        assert (given.allocation, given.refusals) == (asked.allocation, asked.refusals)


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_rule_saved_after_the_copy_was_made_is_the_one_the_activation_counts_with(ehost, draw, member):  # noqa: F811
    assert ehost.get("/api/v1/members/5000000001/draws").json()[0]["tickets_available"] == 4  # the copy is made
    _save_rule(draw.series_id, 50)
    with CaptureQueriesContext(connection) as queries:
        response = post(ehost, {"card_number": "5000000001", "draw_id": draw.pk})
    assert response.status_code == 201, response.json()
    # 420 points at 50 a ticket, not at the copy's 100.
    assert response.json()["tickets"] == 8
    statements = _statements(queries)
    # The stale count was left: the draw read again, then the allocation asked on its own.
    assert any("members_pointsentry" in sql and "LATERAL" not in sql for sql in statements), "\n".join(statements)
    # The next activation counts in its first look again, with the new copy.
    other = MemberFactory(card_number="5000000002")
    PointsEntryFactory(member=other, points=420, earned_at=DRAW_AT - dt.timedelta(days=1))
    with CaptureQueriesContext(connection) as queries:
        response = post(ehost, {"card_number": "5000000002", "draw_id": draw.pk})
    assert (response.status_code, response.json()["tickets"]) == (201, 8)
    assert len(_statements(queries)) == 2, "\n".join(_statements(queries))


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_rule_no_form_could_save_is_refused_in_words_with_a_copy_in_hand(ehost, draw, member):  # noqa: F811
    assert ehost.get("/api/v1/members/5000000001/draws").status_code == 200  # the copy is made
    # Stored past every form and service (raw SQL, an old row): the copy's version changes too.
    EarningRule.objects.filter(series=draw.series).update(free_tickets_by_tier=[5])
    response = post(ehost, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (response.status_code, response.json()["code"]) == (409, "rule_unreadable")
    # And with the bad rule already in the copy: the first look cannot build its count, nor a 500.
    response = post(ehost, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (response.status_code, response.json()["code"]) == (409, "rule_unreadable")
    assert not Activation.objects.filter(draw=draw).exists()
    # The count the first look cannot build does not come before the refusals it used to follow.
    response = post(ehost, {"card_number": "5999999999", "draw_id": draw.pk})
    assert (response.status_code, response.json()["code"]) == (404, "unknown_card")


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_copy_replaced_by_another_thread_meanwhile_is_not_counted_with(ehost, draw, member, monkeypatch):  # noqa: F811
    """gthread workers share the copies: another thread may load the draw again between the first
    look and this thread's cached_draw. The count was made with the object the look used, so it
    is left and the allocation asked again, as with a stale copy."""
    assert ehost.get("/api/v1/members/5000000001/draws").status_code == 200  # the copy is made
    cached_draw = activation_cache.cached_draw

    def after_another_thread_reloaded(draw_id, version):
        activation_cache.forget_draw(draw_id)
        return cached_draw(draw_id, version)

    monkeypatch.setattr(activation_cache, "cached_draw", after_another_thread_reloaded)
    with CaptureQueriesContext(connection) as queries:
        response = post(ehost, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (response.status_code, response.json()["tickets"]) == (201, 4)
    statements = _statements(queries)
    assert any("members_pointsentry" in sql and "LATERAL" not in sql for sql in statements), "\n".join(statements)
