"""A series' rule or windows stored with values no form could save (raw SQL, an old row) fail
with one clean error naming the series, not a 500, and break no other draw (issue 6, item 2.2)."""

import datetime as dt

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from core.audit import Actor
from core.errors import DomainError
from draws.allocation import allocation_overview, draw_allocations, member_allocation
from draws.rule_words import rule_in_words
from draws.services import device_token_create, draw_schedule
from draws.tests.factories import make_draw
from members.models import Tier
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory
from promotions.models import DrawSeries, EarningRule
from promotions.rules import RuleUnreadable
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)

BAD_VALUES = [
    {"free_tickets_by_tier": [5]},
    {"points_per_ticket_by_tier": []},
    {"points_per_ticket_by_tier": [1, 2]},
    {"points_per_ticket_by_tier": "abc"},
    {"points_per_ticket_by_tier": {"ACE": "abc"}},
    {"points_per_ticket_by_tier": {"ACE": [1]}},
    {"free_tickets_by_weekday": {"0": 5}},
    {"free_tickets_by_weekday": []},
    {"cap_by_tier": {"KING": "x"}},
    {"free_tickets_by_tier": {"ACE": 2**63 - 1}},
    {"free_tickets_by_tier": {"ACE": 1e30}},
]


@pytest.fixture
def member(reference_data):
    member = MemberFactory(card_number="4000000001")
    PointsEntryFactory(member=member, points=550, earned_at=DRAW_AT - dt.timedelta(days=2))
    return member


def spoil(draw, **values):
    """Store the values as raw SQL or an old row would, past every form and service."""
    EarningRule.objects.filter(series=draw.series).update(**values)
    draw.series.refresh_from_db()  # drop the cached rule


@pytest.mark.parametrize("values", BAD_VALUES)
def test_every_reader_of_a_bad_stored_rule_raises_the_clean_error(reference_data, member, values):
    draw = make_draw(make_series(), DRAW_AT)
    spoil(draw, **values)
    readers = [
        lambda: draw_allocations(draw, at=IN_WINDOW),
        lambda: allocation_overview(draw, at=IN_WINDOW),
        lambda: member_allocation(draw, member, at=IN_WINDOW),
        lambda: rule_in_words(draw, list(Tier.objects.all())),
    ]
    for read in readers:
        with pytest.raises(RuleUnreadable) as caught:
            read()
        assert isinstance(caught.value, DomainError)
        assert caught.value.code == "rule_unreadable"
        assert caught.value.message.startswith("The earning rule of Test promotion: Test cash draw cannot be read: ")
        assert caught.value.message.endswith("Ask the promotions manager to fix it.")
        assert "'" not in caught.value.message


def test_a_member_refused_anyway_is_told_why_and_not_about_the_rule(reference_data, member):
    """An excluded member hears the exclusion, as with a readable rule: the rule's fault is the
    promotions manager's to fix, and fixing it would not let this member take part."""
    draw = make_draw(make_series(), DRAW_AT)
    spoil(draw, free_tickets_by_tier=[5])
    starts_at = DRAW_AT - dt.timedelta(days=30)
    ExclusionFactory(id_number=member.id_number, reason="National self-exclusion register.", starts_at=starts_at)
    standing = member_allocation(draw, member, at=IN_WINDOW)
    assert standing.allocation is None
    assert len(standing.refusals) == 1
    assert "National self-exclusion register." in standing.refusals[0]


def test_one_bad_rule_leaves_the_other_draws_of_the_property_counted(reference_data, member):
    good = make_draw(make_series(), DRAW_AT)
    bad = make_draw(make_series(), DRAW_AT)
    spoil(bad, free_tickets_by_tier=[5])
    with pytest.raises(RuleUnreadable):
        member_allocation(bad, member, at=IN_WINDOW)
    assert member_allocation(good, member, at=IN_WINDOW).tickets == 5


def test_wrong_tier_keys_stored_are_promised_to_no_one(reference_data):
    draw = make_draw(make_series(free_tickets_by_tier={"QUEEN": 10}), DRAW_AT)
    spoil(draw, free_tickets_by_tier={"Queen": 10, "Kings": 5})
    lines = rule_in_words(draw, list(Tier.objects.all()))
    assert not any("Free tickets" in line for line in lines)


def test_bad_stored_windows_refuse_scheduling_with_the_clean_error(reference_data):
    series = make_series()
    DrawSeries.objects.filter(pk=series.pk).update(ticket_windows=[{"day": 0, "open": 8, "close": "12:55"}])
    series.refresh_from_db()
    with pytest.raises(RuleUnreadable) as caught:
        draw_schedule(actor=Actor.system("t"), series=series, scheduled_at=DRAW_AT, allow_past=True)
    assert caught.value.message == (
        "The ticket windows of Test promotion: Test cash draw cannot be read: "
        "Ticket windows: Window 1: the opening time 8 is not a time such as 08:00. "
        "Ask the promotions manager to fix them."
    )


@pytest.mark.parametrize("rate", [0, 1_000_001, 2**63 - 1])
def test_a_bins_own_points_per_ticket_is_bounded(reference_data, rate):
    with pytest.raises(DomainError, match="from 1 to 1,000,000"):
        make_draw(make_series(), DRAW_AT, points_per_ticket=rate)


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_kiosk_and_the_pages_still_answer_with_the_other_draws(reference_data, member, auditor):
    good = make_draw(make_series(), DRAW_AT)
    bad = make_draw(make_series(), DRAW_AT + dt.timedelta(hours=1))
    spoil(bad, free_tickets_by_tier=[5])
    _, token = device_token_create(actor=Actor.system("t"), prop=reference_data["properties"]["GRC"], name="ehost-1")
    ehost = Client(headers={"Authorization": f"Bearer {token}"})

    listing = ehost.get("/api/v1/members/4000000001/draws")
    assert listing.status_code == 200
    assert {row["draw_id"]: row["tickets_available"] for row in listing.json()} == {good.pk: 5, bad.pk: 0}

    refused = ehost.post(
        "/api/v1/activations",
        {"card_number": "4000000001", "draw_id": bad.pk, "channel": "ehost"},
        content_type="application/json",
    )
    assert refused.status_code < 500
    assert refused.json()["code"] == "rule_unreadable"

    page = auditor.get(reverse("draws:detail", args=[bad.pk]))
    assert page.status_code == 200
    assert "cannot be read: Free tickets: give a number for each tier, not [5]." in page.content.decode()
