"""The member page lists the member's draws at the clerk's property too (issue 9, item 2): a
Golden Horse member playing at Gold Reef City is activated from the member page there."""

import datetime as dt
import html

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.audit import Actor
from core.roles import REWARDS_DESK
from draws.tests.factories import make_draw
from members.staff import staff_profile_set
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2026, 3, 4, 13, 0, tzinfo=SAST)  # tickets 08h00-12h55
IN_WINDOW = dt.datetime(2026, 3, 4, 10, 50, tzinfo=SAST)


@pytest.fixture
def gh_member(reference_data):
    member = MemberFactory(
        tier=reference_data["tiers"]["QUEEN"],
        home_property=reference_data["properties"]["GH"],
        card_number="4200000001",
    )
    PointsEntryFactory(member=member, points=1400, earned_at=DRAW_AT - dt.timedelta(days=1))
    return member


@pytest.fixture
def grc_draw(reference_data):
    return make_draw(make_series(property_code="GRC", points_per_ticket=100), DRAW_AT)


def _clerk(user_for, reference_data, home: str | None) -> Client:
    user = user_for(REWARDS_DESK, properties=())
    if home:
        staff_profile_set(actor=Actor.system("test"), user=user, home_property=reference_data["properties"][home])
    client = Client()
    client.force_login(user)
    return client


def _link(draw) -> str:
    return f'href="{reverse("draws:detail", args=[draw.pk])}"'


def _page(client, member) -> str:
    response = client.get(reverse("members:detail", args=[member.pk]))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_golden_horse_member_can_be_activated_at_the_gold_reef_city_desk(
    user_for, reference_data, gh_member, grc_draw
):
    page = _page(_clerk(user_for, reference_data, "GRC"), gh_member)
    assert _link(grc_draw) in page
    assert f"{reverse('draws:activate', args=[grc_draw.pk])}?card={gh_member.card_number}" in page


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_clerk_elsewhere_or_without_a_property_sees_only_the_members_home_draws(
    user_for, reference_data, gh_member, grc_draw
):
    gh_draw = make_draw(make_series(property_code="GH", points_per_ticket=100), DRAW_AT)
    for clerk in (_clerk(user_for, reference_data, "EMN"), _clerk(user_for, reference_data, None)):
        page = _page(clerk, gh_member)
        assert _link(gh_draw) in page and _link(grc_draw) not in page
        assert "at Golden Horse" not in page  # one property: no need to name it on each row


@time_machine.travel(IN_WINDOW, tick=False)
def test_draws_at_two_properties_name_their_property(user_for, reference_data, gh_member, grc_draw):
    make_draw(make_series(property_code="GH", points_per_ticket=100), DRAW_AT)
    page = _page(_clerk(user_for, reference_data, "GRC"), gh_member)
    assert "at Golden Horse" in page and "at Gold Reef City" in page


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_clerks_draws_come_first_when_the_members_home_has_many(user_for, reference_data, gh_member, grc_draw):
    gh_series = make_series(property_code="GH", windows=[{"day": -1, "open": "00:00", "close_before": 5}])
    gh_draws = [make_draw(gh_series, IN_WINDOW + dt.timedelta(minutes=5 * n)) for n in range(1, 10)]
    page = _page(_clerk(user_for, reference_data, "GRC"), gh_member)  # 8 shown, all before the GRC one
    assert _link(grc_draw) in page and _link(gh_draws[-1]) not in page
    assert page.index(_link(grc_draw)) < page.index(_link(gh_draws[0]))


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_clerks_properties_cost_the_member_page_no_query(user_for, reference_data, gh_member, grc_draw):
    gh_draw = make_draw(make_series(property_code="GH", points_per_ticket=100), DRAW_AT)
    p = reference_data["properties"]
    # At Emnotweni and Golden Horse: the same draws, and the same Activate checks, as a clerk at Golden Horse.
    several = user_for(REWARDS_DESK, properties=())
    staff_profile_set(actor=Actor.system("test"), user=several, home_property=p["EMN"], other_properties=[p["GH"]])
    with_profile = Client()
    with_profile.force_login(several)

    def queries(client) -> int:
        with CaptureQueriesContext(connection) as captured:
            page = _page(client, gh_member)
        assert _link(gh_draw) in page and _link(grc_draw) not in page
        return len(captured)

    assert queries(with_profile) == queries(_clerk(user_for, reference_data, "GH"))
