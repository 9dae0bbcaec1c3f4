import datetime as dt
import hashlib
import itertools
import threading

import pytest
import time_machine
from django.db import connection

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from draws.models import Activation, Channel, Draw, DrawStatus
from draws.services import activation_create, draw_close_window, draws_close_due
from draws.tests.factories import make_draw
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)  # a Wednesday 13h00 cash draw


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(period_kind="days_before", period_days=7, points_per_ticket=100), DRAW_AT)


@pytest.fixture
def member(reference_data):
    member = MemberFactory(tier=reference_data["tiers"]["QUEEN"], card_number="4000000001")
    PointsEntryFactory(member=member, points=550, earned_at=DRAW_AT - dt.timedelta(days=2))
    return member


def activate(draw, card="4000000001", channel=Channel.EHOST, at=None, **kwargs):
    return activation_create(
        actor=Actor.system("test"), draw_id=draw.pk, card_number=card, channel=channel, now=at, **kwargs
    )


def at(hh, mm, ss=0):
    return dt.datetime(2025, 10, 15, hh, mm, ss, tzinfo=SAST)


def test_activation_gives_a_contiguous_serial_range_and_a_receipt(draw, member):
    activation = activate(draw, at=at(9, 0))
    assert (activation.first_serial, activation.last_serial, activation.tickets) == (1, 5, 5)
    assert activation.breakdown == {"points": 550, "earned": 5, "free": 0, "bonus": 0, "capped": 0, "tickets": 5}
    assert activation.receipt_number == f"{draw.pk}-00000001"
    assert AuditEvent.objects.filter(action="tickets.activated", object_id=str(activation.pk)).exists()


def test_the_next_member_gets_the_next_serials(draw, member, reference_data):
    other = MemberFactory(card_number="4000000002")
    PointsEntryFactory(member=other, points=300, earned_at=DRAW_AT - dt.timedelta(days=1))
    activate(draw, at=at(9, 0))
    second = activate(draw, card="4000000002", at=at(9, 1))
    assert (second.first_serial, second.last_serial) == (6, 8)


@pytest.mark.parametrize(
    ("moment", "accepted"),
    [((7, 59, 59), False), ((8, 0, 0), True), ((12, 54, 59), True), ((12, 55, 0), False)],
)
def test_the_window_edges_to_the_second(draw, member, moment, accepted):
    with time_machine.travel(at(*moment), tick=False):
        if accepted:
            assert activate(draw).tickets == 5
        else:
            with pytest.raises(DomainError) as refused:
                activate(draw)
            assert refused.value.code == "window_closed"
            assert not Activation.objects.exists()


def test_a_closed_window_names_the_closing_time(draw, member):
    with pytest.raises(DomainError, match="closed at Wed 15 Oct 2025 12:55"):
        activate(draw, at=at(12, 55))


def test_a_member_activates_once_per_draw(draw, member):
    activate(draw, at=at(9, 0))
    with pytest.raises(DomainError, match="already activated 5 tickets") as refused:
        activate(draw, at=at(9, 5))
    assert refused.value.code == "already_activated"


def test_an_unknown_card_is_refused(draw):
    with pytest.raises(DomainError) as refused:
        activate(draw, card="1234567890", at=at(9, 0))
    assert refused.value.code == "unknown_card"


def test_an_excluded_member_is_refused_with_the_reason(draw, member):
    ExclusionFactory(
        id_type=member.id_type,
        id_number=member.id_number,
        reason="Refusal of Entry 7/2025",
        starts_at=DRAW_AT - dt.timedelta(days=30),
    )
    with pytest.raises(DomainError, match="Refusal of Entry 7/2025") as refused:
        activate(draw, at=at(9, 0))
    assert refused.value.code == "not_eligible"


def test_an_exclusion_that_starts_before_the_draw_bars_an_activation_now(draw, member):
    """The first look asks only whether an exclusion is in force now or later (issue 17): one
    that starts after the swipe but before the draw still sends the desk's words."""
    ExclusionFactory(
        id_type=member.id_type,
        id_number=member.id_number,
        reason="Self-exclusion from noon",
        starts_at=at(12, 0),
    )
    with pytest.raises(DomainError, match="Self-exclusion from noon") as refused:
        activate(draw, at=at(9, 0))
    assert refused.value.code == "not_eligible"


def test_an_exclusion_that_ended_before_the_swipe_does_not_bar(draw, member):
    ExclusionFactory(
        id_type=member.id_type,
        id_number=member.id_number,
        reason="Refusal of Entry, lifted",
        starts_at=at(7, 0) - dt.timedelta(days=60),
        ends_at=at(9, 0),
    )
    assert activate(draw, at=at(9, 0)).tickets == 5


def test_a_member_without_points_gets_no_tickets(draw, reference_data):
    MemberFactory(card_number="4000000009")
    with pytest.raises(DomainError) as refused:
        activate(draw, card="4000000009", at=at(9, 0))
    assert refused.value.code == "no_tickets"


def test_the_app_requires_the_member_to_be_playing(draw, member):
    with pytest.raises(DomainError) as refused:
        activate(draw, channel=Channel.APP, at=at(9, 0))
    assert refused.value.code == "not_active_on_floor"
    member.playing_now, member.playing_updated_at = True, at(8, 50, 1)  # the feed said so 9m59s ago
    member.playing_property = draw.property
    member.save()
    assert activate(draw, channel=Channel.APP, at=at(9, 0)).channel == "app"


def test_the_app_refuses_when_the_feed_last_reported_play_over_ten_minutes_ago(draw, member):
    member.playing_now, member.playing_updated_at = True, at(8, 50)
    member.playing_property = draw.property
    member.save()
    with pytest.raises(DomainError) as refused:
        activate(draw, channel=Channel.APP, at=at(9, 0, 1))
    assert refused.value.code == "not_active_on_floor"


def test_the_desk_activates_only_for_its_vip_tiers(draw, member, reference_data):
    ten = MemberFactory(card_number="4000000003", tier=reference_data["tiers"]["TEN"])
    PointsEntryFactory(member=ten, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))
    with pytest.raises(DomainError, match="desk prints tickets only for Queen, King, Ace"):
        activate(draw, card="4000000003", channel=Channel.DESK, at=at(9, 0))
    assert activate(draw, channel=Channel.DESK, at=at(9, 0)).tickets == 5


def test_twenty_simultaneous_activations_never_overlap(transactional_db, reference_data):
    draw = make_draw(make_series(points_per_ticket=100), DRAW_AT)
    cards = [f"41000000{n:02d}" for n in range(20)]
    for n, card in enumerate(cards):
        PointsEntryFactory(
            member=MemberFactory(card_number=card), points=100 * (n + 1), earned_at=DRAW_AT - dt.timedelta(days=1)
        )
    cards.append(cards[0])  # one member clicks twice
    barrier = threading.Barrier(len(cards))
    outcomes = []

    def worker(card):
        try:
            barrier.wait()
            outcomes.append(activate(draw, card=card, at=at(10, 0)).pk)
        except DomainError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(card,)) for card in cards]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert outcomes.count("already_activated") == 1
    ranges = sorted(Activation.objects.filter(draw=draw).values_list("first_serial", "last_serial"))
    assert len(ranges) == 20
    assert ranges[0][0] == 1
    for (_, last), (first, _) in itertools.pairwise(ranges):
        assert first == last + 1
    assert Draw.objects.get(pk=draw.pk).next_serial == ranges[-1][1] + 1 == sum(range(1, 21)) + 1


def test_closing_the_window_freezes_the_entries_once(draw, member):
    activate(draw, at=at(9, 0))
    assert not draw_close_window(draw_id=draw.pk, now=at(12, 54, 59))
    assert draws_close_due(now=at(12, 55)) == 1
    assert draws_close_due(now=at(12, 56)) == 0
    draw.refresh_from_db()
    assert draw.status == DrawStatus.CLOSED and draw.tickets_total == 5 and draw.entries_count == 1
    assert len(draw.entries_sha256) == 64 and len(draw.seed_sha256) == 64
    assert hashlib.sha256(f"1,5,{member.pk}\n".encode()).hexdigest() == draw.entries_sha256
    assert hashlib.sha256(bytes.fromhex(draw.seed_hex)).hexdigest() == draw.seed_sha256
    assert AuditEvent.objects.filter(action="draw.entries_frozen").count() == 1
    late = MemberFactory(card_number="4000000077")
    PointsEntryFactory(member=late, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))
    with pytest.raises(DomainError) as refused:  # a request stamped inside the window, after the freeze
        activate(draw, card="4000000077", at=at(12, 54))
    assert refused.value.code == "window_closed"
    assert not Activation.objects.filter(member=late).exists()


def test_two_workers_closing_the_same_draw_at_once_close_it_once(transactional_db, reference_data):
    draw = make_draw(make_series(points_per_ticket=100), DRAW_AT)
    results = []
    barrier = threading.Barrier(4)

    def worker():
        try:
            barrier.wait()
            results.append(draws_close_due(now=at(12, 56)))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [0, 0, 0, 1]
    assert AuditEvent.objects.filter(action="draw.entries_frozen", object_id=str(draw.pk)).count() == 1


@pytest.mark.parametrize("status", ["draft", "closed"])
def test_a_draw_of_an_unpublished_promotion_takes_no_tickets(draw, member, status):
    draw.series.promotion.status = status
    draw.series.promotion.save()
    with pytest.raises(DomainError, match="not published") as refused:
        activate(draw, at=at(9, 0))
    assert refused.value.code == "not_published"
    assert not Draw.objects.accepting_tickets_at(at(9, 0)).exists()


def test_a_member_excluded_now_cannot_activate_even_if_the_exclusion_ends_before_the_draw(draw, member):
    ExclusionFactory(
        id_type=member.id_type,
        id_number=member.id_number,
        reason="Refusal of Entry until noon",
        starts_at=at(7, 0),
        ends_at=at(12, 0),
    )
    with pytest.raises(DomainError, match="Refusal of Entry until noon") as refused:
        activate(draw, at=at(9, 0))
    assert refused.value.code == "not_eligible"
    assert activate(draw, at=at(12, 0)).tickets == 5
