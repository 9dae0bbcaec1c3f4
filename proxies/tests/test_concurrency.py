"""Two desks at once (issue 7, item 2): the draw lock and the partial unique indexes keep a
nominee to one participant per draw and out of the draw they stand in for, whoever clicks
first. Each desk is a thread with its own database connection; the controls take the
protection away and show the race they guard against is real."""

import datetime as dt
import threading

import pytest
import time_machine
from django.db import connection

import draws.services
import proxies.services
from core.audit import Actor
from core.errors import DomainError
from draws.models import Activation, Draw
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from proxies.models import ProxyNomination
from proxies.tests.factories import desk_actor, nominate
from testing.db import triggers_off

pytestmark = pytest.mark.django_db(transaction=True)

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)
NOMINEE_CONSTRAINT = "nominee_represents_one_participant_per_draw"


def member(card: str):
    person = MemberFactory(card_number=card, first_name="Sipho", last_name=f"Dube{card[-2:]}")
    PointsEntryFactory(member=person, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))
    return person


def activate(person, draw: Draw) -> Activation:
    return activation_create(
        actor=Actor.system("test"), draw_id=draw.pk, card_number=person.card_number, channel="ehost"
    )


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(points_per_ticket=100), DRAW_AT)


@pytest.fixture
def two_participants_one_nominee(draw):
    first, second = member("4600000001"), member("4600000002")
    with time_machine.travel(IN_WINDOW, tick=False):
        activate(first, draw)
        activate(second, draw)
    return first, second, member("4600000009")


def at_two_desks(*jobs) -> list:
    """Run each job in its own thread and connection, released together; what each returned
    or raised, in the jobs' order."""
    barrier = threading.Barrier(len(jobs))
    outcomes: list = [None] * len(jobs)

    def desk(index, job):
        try:
            barrier.wait(timeout=10)
            outcomes[index] = job()
        except Exception as error:  # an IntegrityError too must show up as an outcome
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=desk, args=(n, job)) for n, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


def nomination_job(draw, participant, nominee):
    actor = desk_actor()  # made here, in the test's connection, not in the desk's
    return lambda: nominate(participant=participant, draw=draw, nominee=nominee, actor=actor)


@time_machine.travel(IN_WINDOW, tick=False)
def test_two_desks_registering_one_nominee_for_two_participants_make_one_nomination(draw, two_participants_one_nominee):
    first, second, nominee = two_participants_one_nominee

    outcomes = at_two_desks(nomination_job(draw, first, nominee), nomination_job(draw, second, nominee))

    nominations = [o for o in outcomes if isinstance(o, ProxyNomination)]
    (refused,) = [o for o in outcomes if not isinstance(o, ProxyNomination)]
    assert len(nominations) == 1
    assert isinstance(refused, DomainError), refused
    assert refused.code == "proxy_refused"
    assert "already represents" in refused.message and "a proxy may represent only one participant" in refused.message
    assert ProxyNomination.objects.live().filter(draw=draw, nominee_id_number=nominee.id_number).count() == 1


def _without_the_draw_lock(monkeypatch, checked: threading.Barrier):
    """The service with no draw lock, both desks passing the nominee check before either
    writes: the interleaving the lock prevents, made certain."""

    def unlocked(draw_ids):
        return list(Draw.objects.select_related("series", "series__promotion").filter(pk__in=draw_ids))

    real_check = proxies.services._nominee_refusal

    def check_then_wait(*args):
        refusal = real_check(*args)
        checked.wait(timeout=10)
        return refusal

    monkeypatch.setattr(proxies.services, "_locked_draws", unlocked)
    monkeypatch.setattr(proxies.services, "_nominee_refusal", check_then_wait)


@time_machine.travel(IN_WINDOW, tick=False)
def test_without_the_lock_the_unique_index_still_refuses_the_second_desk_with_a_readable_message(
    draw, two_participants_one_nominee, monkeypatch
):
    first, second, nominee = two_participants_one_nominee
    _without_the_draw_lock(monkeypatch, threading.Barrier(2))

    outcomes = at_two_desks(nomination_job(draw, first, nominee), nomination_job(draw, second, nominee))

    (refused,) = [o for o in outcomes if not isinstance(o, ProxyNomination)]
    assert isinstance(refused, DomainError), refused
    assert (refused.code, refused.message) == (
        "proxy_refused",
        "This nominee or participant was registered for this draw at another desk a moment ago.",
    )
    assert ProxyNomination.objects.live().filter(nominee_id_number=nominee.id_number).count() == 1


@pytest.fixture
def without_the_nominee_index(transactional_db):
    """Drop the partial unique index for one test; put it back before the database is flushed."""
    (constraint,) = [c for c in ProxyNomination._meta.constraints if c.name == NOMINEE_CONSTRAINT]
    with connection.schema_editor() as editor:
        editor.remove_constraint(ProxyNomination, constraint)
    try:
        yield
    finally:
        # Nominations are kept three years (records/migrations/0001_retention.py): removed with
        # the row triggers off, as the suite's superuser may.
        with triggers_off(), connection.cursor() as cursor:
            cursor.execute("DELETE FROM proxies_proxynomination")
        with connection.schema_editor() as editor:
            editor.add_constraint(ProxyNomination, constraint)


@time_machine.travel(IN_WINDOW, tick=False)
def test_control_without_the_lock_and_the_index_two_desks_both_register_the_nominee(
    draw, two_participants_one_nominee, without_the_nominee_index, monkeypatch
):
    first, second, nominee = two_participants_one_nominee
    _without_the_draw_lock(monkeypatch, threading.Barrier(2))

    outcomes = at_two_desks(nomination_job(draw, first, nominee), nomination_job(draw, second, nominee))

    assert all(isinstance(o, ProxyNomination) for o in outcomes), outcomes
    assert ProxyNomination.objects.live().filter(draw=draw, nominee_id_number=nominee.id_number).count() == 2


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_nomination_and_the_nominees_own_activation_at_once_never_both_succeed(draw):
    for round_ in range(3):  # a few rounds, so either may come first
        participant, nominee = member(f"46000001{round_}1"), member(f"46000001{round_}9")
        activate(participant, draw)

        nominated, activated = at_two_desks(
            nomination_job(draw, participant, nominee), lambda nominee=nominee: activate(nominee, draw)
        )

        won = [isinstance(nominated, ProxyNomination), isinstance(activated, Activation)]
        assert won.count(True) == 1, (nominated, activated)
        loser = activated if won[0] else nominated
        assert isinstance(loser, DomainError), loser
        assert loser.code == ("is_proxy" if won[0] else "proxy_refused")
        assert ProxyNomination.objects.filter(draw=draw, nominee_id_number=nominee.id_number).exists() == won[0]
        assert Activation.objects.filter(draw=draw, member=nominee).exists() == won[1]


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_nomination_made_while_the_nominee_is_activating_refuses_the_activation(draw, monkeypatch):
    participant, nominee = member("4600000001"), member("4600000009")
    activate(participant, draw)
    job = nomination_job(draw, participant, nominee)
    real_allocation = draws.services.member_allocation

    def nominated_at_another_desk_meanwhile(*args, **kwargs):
        # The activation has passed its first look (no nomination then) and not yet locked
        # the draw: another desk registers the member as a proxy now.
        (nomination,) = at_two_desks(job)
        assert isinstance(nomination, ProxyNomination), nomination
        return real_allocation(*args, **kwargs)

    monkeypatch.setattr(draws.services, "member_allocation", nominated_at_another_desk_meanwhile)

    with pytest.raises(DomainError) as refused:
        activate(nominee, draw)
    assert refused.value.code == "is_proxy"
    assert not Activation.objects.filter(member=nominee).exists()
