""" "Is this member a live proxy in this draw" has one meaning: ProxyNomination's queryset
(proxy_of_another, standing_in, live) and the instance's answers (is_proxy_of_another,
names_as_proxy, is_live) agree over nominations made at every edge, and the registry that
draws asks (proxies.registers.proxy_of) is the queryset's."""

import datetime as dt
import itertools
import uuid

import pytest

from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, UserFactory, sa_id_for
from promotions.tests.factories import make_series
from proxies.models import ProxyNomination
from proxies.registers import proxy_of

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))


def test_the_queryset_the_instance_and_the_registry_agree_on_who_is_a_live_proxy(reference_data):
    series = make_series()
    clerk = UserFactory()
    participant, by_card, by_number, bystander = (MemberFactory() for _ in range(4))
    stranger_id = sa_id_for(dt.date(1980, 1, 1), 4321)
    # (who is named as the nominee: member, ID number; revoked?)
    named = [
        (by_card, by_card.id_number),  # a member, named by card and number
        (by_card, stranger_id),  # named by card with another document's number
        (None, by_number.id_number),  # named by the number only (typed in at the desk)
        (None, stranger_id),  # someone without a card
        (participant, participant.id_number),  # the participant themself: never "another's" proxy
    ]
    nominations = []
    for day, ((member, number), revoked) in enumerate(itertools.product(named, (False, True))):
        draw = make_draw(series, dt.datetime(2025, 10, 1 + day, 13, 0, tzinfo=SAST))
        nominations.append(
            ProxyNomination.objects.create(
                draw=draw,
                participant=participant,
                nominee_name="Named",
                nominee_id_type="sa_id",
                nominee_id_number=number,
                nominee_member=member,
                participant_id_seen=True,
                nominee_id_seen=True,
                form_signed=True,
                batch=uuid.uuid4(),
                registered_by=clerk,
                registered_at=draw.proxies_open_at,
                revoked_at=draw.proxies_open_at + dt.timedelta(minutes=5) if revoked else None,
            )
        )
    live = set(ProxyNomination.objects.live().values_list("pk", flat=True))
    assert live == {n.pk for n in nominations if n.is_live} and 0 < len(live) < len(nominations)
    for member in (participant, by_card, by_number, bystander):
        in_sql = set(ProxyNomination.objects.proxy_of_another(member).values_list("pk", flat=True))
        assert in_sql == {n.pk for n in nominations if n.is_proxy_of_another(member)}, member
        for nomination in nominations:
            registered = proxy_of(nomination.draw, member)
            assert (registered is not None) == (nomination.pk in in_sql)
            if registered:
                assert registered.participant_card == participant.card_number
    assert not set(ProxyNomination.objects.proxy_of_another(participant).values_list("pk", flat=True))
    assert len(set(ProxyNomination.objects.proxy_of_another(by_card).values_list("pk", flat=True))) == 2
    assert len(set(ProxyNomination.objects.proxy_of_another(by_number).values_list("pk", flat=True))) == 1
    # The desk's "already represents someone" asks by number (and card, when a member).
    standing = ProxyNomination.objects.standing_in(id_number=stranger_id)
    assert set(standing.values_list("pk", flat=True)) == {
        n.pk for n in nominations if n.names_as_proxy(id_number=stranger_id)
    }
