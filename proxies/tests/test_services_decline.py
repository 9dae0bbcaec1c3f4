"""The decline-to-be-present register (issue 7, items 4 and 6): in person, inside the draw's
decline window (from the first ticket window's opening until the draw starts), once per draw.
A 13h00 draw of the test series opens its register at 08h00 and closes it at 13h00."""

import datetime as dt
import inspect

import pytest
import time_machine

from conftest import make_user
from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import REWARDS_DESK
from draws.models import Draw
from draws.services import activation_create, draw_cancel
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.models import DrawMethod
from promotions.tests.factories import make_series
from proxies.models import DeclineRegistration
from proxies.services import decline_register, decline_revoke
from proxies.tests.factories import decline, desk_actor

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)


def at(hms: str) -> dt.datetime:
    return dt.datetime.combine(DRAW_AT.date(), dt.time.fromisoformat(hms), tzinfo=SAST)


def member(card: str = "4500000001"):
    person = MemberFactory(card_number=card)
    PointsEntryFactory(member=person, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))
    return person


def participant_in(draw: Draw, card: str = "4500000001", moment: dt.datetime = IN_WINDOW):
    person = member(card)
    with time_machine.travel(moment, tick=False):
        activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number=card, channel="ehost")
    return person


def refusal(**kwargs) -> DomainError:
    with pytest.raises(DomainError) as refused:
        decline(**kwargs)
    return refused.value


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(points_per_ticket=100), DRAW_AT)


def test_the_register_opens_with_the_first_ticket_window(draw):
    person = member()
    with time_machine.travel(at("07:59:59"), tick=False):
        refused = refusal(member=person, draw=draw)
    assert (refused.code, refused.message) == (
        "decline_refused",
        f"Decline registrations for {draw.name} open at Wed 15 Oct 2025 08:00.",
    )


def test_a_decline_is_accepted_from_the_opening(draw):
    with time_machine.travel(at("08:00:00"), tick=False):
        person = member()
        activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number=person.card_number, channel="ehost")
        assert decline(member=person, draw=draw).registered_at == at("08:00:00")


def test_a_decline_is_accepted_until_the_draw_starts_and_refused_from_then(draw):
    early, late = participant_in(draw, "4500000001"), participant_in(draw, "4500000002")
    with time_machine.travel(at("12:59:59"), tick=False):
        assert decline(member=early, draw=draw).is_live
    with time_machine.travel(at("13:00:00"), tick=False):
        refused = refusal(member=late, draw=draw)
    assert refused.message == f"Decline registrations for {draw.name} closed at Wed 15 Oct 2025 13:00."
    assert not DeclineRegistration.objects.filter(member=late).exists()


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_cancelled_draw_refuses_a_decline(draw):
    person = participant_in(draw)
    draw_cancel(actor=Actor.system("test"), draw_id=draw.pk, reason="Power failure")
    assert refusal(member=person, draw=draw).message == f"{draw.name} is cancelled."


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_member_declines_once_per_draw(draw):
    person = participant_in(draw)
    decline(member=person, draw=draw)
    assert refusal(member=person, draw=draw).message == (
        f"{person.full_name} has already declined to be present at {draw.name}."
    )
    assert DeclineRegistration.objects.filter(member=person).count() == 1


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_member_without_tickets_for_a_ticket_draw_cannot_decline(draw):
    person = member()
    assert refusal(member=person, draw=draw).message == (
        f"{person.full_name} has not activated tickets for {draw.name}: only a participant can register."
    )


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_raps_session_takes_a_decline_without_tickets(reference_data):
    series = make_series(points_per_ticket=100)
    series.method = DrawMethod.RAPS
    series.save(update_fields=["method"])
    session = make_draw(series, DRAW_AT)
    assert session.method == DrawMethod.RAPS
    assert decline(member=member(), draw=session).is_live


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_members_own_id_must_be_seen(draw):
    person = participant_in(draw)
    with pytest.raises(DomainError) as refused:
        decline_register(actor=desk_actor(), member=person, draw_ids=[draw.pk], id_seen=False)
    assert refused.value.code == "not_presented"
    assert "check their own ID document" in refused.value.message
    assert not DeclineRegistration.objects.exists()


def test_a_decline_for_someone_else_is_impossible():
    # The service takes only the member whose card was swiped, and the register keeps no one
    # acting on their behalf: there is nowhere to put a representative.
    assert list(inspect.signature(decline_register).parameters) == ["actor", "member", "draw_ids", "id_seen", "now"]
    fields = {f.name for f in DeclineRegistration._meta.get_fields()}
    assert fields == {
        "id",
        "draw",
        "member",
        "id_seen",
        "batch",
        "registered_by",
        "registered_at",
        "revoked_at",
        "revoked_by",
        "revoke_reason",
    }


def test_revoking_a_decline_keeps_it_with_the_reason_and_frees_the_member(draw):
    person, clerk = participant_in(draw), make_user(REWARDS_DESK)
    with time_machine.travel(IN_WINDOW, tick=False):
        registration = decline(member=person, draw=draw)
    with time_machine.travel(at("11:00"), tick=False):
        decline_revoke(
            actor=Actor.for_user(clerk),
            registration_id=registration.pk,
            reason=" Will attend after all ",
            card_number=person.card_number,
        )
        registration.refresh_from_db()
        assert (registration.revoked_at, registration.revoked_by, registration.revoke_reason) == (
            at("11:00"),
            clerk,
            "Will attend after all",
        )
        with pytest.raises(DomainError) as again:
            decline_revoke(
                actor=desk_actor(), registration_id=registration.pk, reason="Again", card_number=person.card_number
            )
        assert again.value.code == "already_revoked"
        assert decline(member=person, draw=draw).is_live  # may decline again
    assert DeclineRegistration.objects.filter(member=person).count() == 2


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_withdrawal_needs_a_reason(draw):
    person = participant_in(draw)
    registration = decline(member=person, draw=draw)
    with pytest.raises(DomainError) as refused:
        decline_revoke(
            actor=desk_actor(), registration_id=registration.pk, reason="   ", card_number=person.card_number
        )
    assert refused.value.code == "no_reason"
    registration.refresh_from_db()
    assert registration.is_live


@time_machine.travel(IN_WINDOW, tick=False)
def test_every_draw_of_the_day_is_declined_together_or_none(draw):
    evening = make_draw(draw.series, at("20:00"))
    person = participant_in(draw)  # no tickets for the evening draw yet
    with pytest.raises(DomainError) as refused:
        decline_register(actor=desk_actor(), member=person, draw_ids=[draw.pk, evening.pk], id_seen=True)
    assert evening.name in refused.value.message
    assert not DeclineRegistration.objects.exists()

    activation_create(actor=Actor.system("test"), draw_id=evening.pk, card_number=person.card_number, channel="ehost")
    registrations = decline_register(actor=desk_actor(), member=person, draw_ids=[draw.pk, evening.pk], id_seen=True)
    assert {r.draw_id for r in registrations} == {draw.pk, evening.pk}
    assert len({r.batch for r in registrations}) == 1


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_decline_and_its_withdrawal_are_audited_on_the_registration(draw):
    person, clerk = participant_in(draw), make_user(REWARDS_DESK)
    registration = decline(member=person, draw=draw, actor=Actor.for_user(clerk))
    decline_revoke(
        actor=Actor.for_user(clerk),
        registration_id=registration.pk,
        reason="Will attend",
        card_number=person.card_number,
    )

    events = AuditEvent.objects.filter(object_type="proxies.declineregistration", object_id=str(registration.pk))
    registered, revoked = events.get(action="decline.registered"), events.get(action="decline.revoked")
    assert registered.actor == revoked.actor == clerk
    assert registered.data["draw"] == draw.pk and registered.data["member"] == person.card_number
    assert revoked.data == {"reason": "Will attend", "member": person.card_number, "identified_by": "card"}
