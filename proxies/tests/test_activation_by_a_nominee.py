"""A nominee may not take part in the draw they stand in for: their activation is refused at
the desk, the kiosk and the app (issue 7)."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from core.errors import DomainError
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from proxies.services import proxy_revoke
from proxies.tests.factories import desk_actor, nominate

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)  # tickets 08h00-12h55, proxies 08h00-12h45
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)


def _activate(member):
    return activation_create(
        actor=Actor.system("test"), draw_id=_activate.draw.pk, card_number=member.card_number, channel="ehost"
    )


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(points_per_ticket=100), DRAW_AT)


def _member(card):
    member = MemberFactory(card_number=card)
    PointsEntryFactory(member=member, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))
    return member


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_nominees_activation_is_refused_and_allowed_again_once_revoked(draw):
    _activate.draw = draw
    participant, nominee = _member("4300000001"), _member("4300000002")
    _activate(participant)
    nomination = nominate(participant=participant, draw=draw, nominee=nominee)
    with pytest.raises(DomainError) as refused:
        _activate(nominee)
    assert refused.value.code == "is_proxy"
    assert "registered as a proxy for another participant" in refused.value.message
    proxy_revoke(actor=desk_actor(), nomination_id=nomination.pk, reason="Participant will attend")
    assert _activate(nominee).tickets == 5
