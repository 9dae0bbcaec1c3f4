"""Proxy nominations at the Rewards desk (issue 7, items 1, 2 and 6): every rule at its edges.

A 13h00 draw of the test series prints tickets 08h00-12h55 and takes proxies from 08h00 until
15 minutes before it (12h45), or until it starts where the series says 0 minutes."""

import dataclasses
import datetime as dt

import pytest
import time_machine

from conftest import make_user
from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import REWARDS_DESK
from draws.models import Draw
from draws.seeds import emnotweni_daytime_playtime, load_promotion
from draws.services import activation_create, draw_cancel
from draws.tests.factories import make_draw
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory, TierFactory
from promotions.tests.factories import make_series
from proxies.models import ProxyNomination
from proxies.services import Nominee, proxy_nominate, proxy_revoke
from proxies.tests.factories import decline, desk_actor, nominate, nominee_for

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)


def at(hms: str, day: dt.date | None = None) -> dt.datetime:
    return dt.datetime.combine(day or DRAW_AT.date(), dt.time.fromisoformat(hms), tzinfo=SAST)


def draw_at(moment: dt.datetime, *, close_minutes: int = 15) -> Draw:
    series = make_series(points_per_ticket=100)
    series.proxies_close_minutes = close_minutes
    series.save(update_fields=["proxies_close_minutes"])
    return make_draw(series, moment)


def member(card: str, **kwargs):
    person = MemberFactory(card_number=card, **kwargs)
    PointsEntryFactory(member=person, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))
    return person


def activate(person, draw: Draw, moment: dt.datetime | None = None):
    with time_machine.travel(moment or at("10:00", timezone_date(draw)), tick=False):
        return activation_create(
            actor=Actor.system("test"), draw_id=draw.pk, card_number=person.card_number, channel="ehost"
        )


def timezone_date(draw: Draw) -> dt.date:
    return draw.scheduled_at.astimezone(SAST).date()


def participant_in(draw: Draw, card: str = "4400000001", moment: dt.datetime | None = None):
    person = member(card)
    activate(person, draw, moment)
    return person


def refusal(**kwargs) -> DomainError:
    with pytest.raises(DomainError) as refused:
        nominate(**kwargs)
    return refused.value


@pytest.fixture
def draw(reference_data):
    return draw_at(DRAW_AT)


# --- The window, both closing styles -----------------------------------------------------


@pytest.mark.parametrize(
    ("close_minutes", "last_accepted", "first_refused", "closed_at"),
    [(15, "12:44:59", "12:45:00", "12:45"), (0, "12:59:59", "13:00:00", "13:00")],
    ids=["15 minutes before the draw", "until the draw starts"],
)
def test_proxies_are_accepted_until_the_close_and_refused_from_it(
    reference_data, close_minutes, last_accepted, first_refused, closed_at
):
    draw = draw_at(DRAW_AT, close_minutes=close_minutes)
    early, late = participant_in(draw, "4400000001"), participant_in(draw, "4400000002")

    with time_machine.travel(at(last_accepted), tick=False):
        assert nominate(participant=early, draw=draw, nominee=nominee_for(name="Sipho Dube")).is_live
    with time_machine.travel(at(first_refused), tick=False):
        refused = refusal(
            participant=late, draw=draw, nominee=nominee_for(name="Lerato Khumalo", born=dt.date(1990, 1, 2))
        )

    assert refused.code == "proxy_refused"
    assert refused.message == f"Proxy nominations for {draw.name} closed at Wed 15 Oct 2025 {closed_at}."
    assert ProxyNomination.objects.filter(participant=late).count() == 0


def test_proxies_are_refused_before_the_opening_and_accepted_from_it(draw):
    person = member("4400000001")
    with time_machine.travel(at("07:59:59"), tick=False):
        refused = refusal(participant=person, draw=draw)
    assert refused.message == f"Proxy nominations for {draw.name} open at Wed 15 Oct 2025 08:00."

    activate(person, draw, at("08:00:00"))
    with time_machine.travel(at("08:00:00"), tick=False):
        assert nominate(participant=person, draw=draw).registered_at == at("08:00:00")


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_cancelled_draw_refuses_a_proxy(draw):
    person = participant_in(draw)
    draw_cancel(actor=Actor.system("test"), draw_id=draw.pk, reason="Power failure")
    assert refusal(participant=person, draw=draw).message == f"{draw.name} is cancelled."


# --- The nominee ---------------------------------------------------------------------------


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_proxy_cannot_represent_two_participants_in_one_draw(draw):
    first, second = participant_in(draw, "4400000001"), participant_in(draw, "4400000002")
    proxy = member("4400000009", first_name="Sipho", last_name="Dube")
    nominate(participant=first, draw=draw, nominee=proxy)

    refused = refusal(participant=second, draw=draw, nominee=proxy)

    assert refused.code == "proxy_refused"
    assert refused.message == (
        f"Sipho Dube already represents {first.full_name} (card ending 0001) in {draw.name}: "
        "a proxy may represent only one participant."
    )
    assert not ProxyNomination.objects.filter(participant=second).exists()


def test_a_proxy_may_represent_someone_else_in_another_draw(draw):
    tomorrow = draw_at(DRAW_AT + dt.timedelta(days=1))
    first, second = participant_in(draw, "4400000001"), participant_in(tomorrow, "4400000002")
    proxy = nominee_for(name="Sipho Dube")
    with time_machine.travel(IN_WINDOW, tick=False):
        nominate(participant=first, draw=draw, nominee=proxy)
    with time_machine.travel(IN_WINDOW + dt.timedelta(days=1), tick=False):
        nominate(participant=second, draw=tomorrow, nominee=proxy)
    assert ProxyNomination.objects.live().filter(nominee_id_number=proxy.id_number).count() == 2


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_nominee_who_activated_tickets_for_the_draw_is_refused(draw):
    person, proxy = participant_in(draw, "4400000001"), member("4400000009", first_name="Sipho", last_name="Dube")
    activate(proxy, draw)

    refused = refusal(participant=person, draw=draw, nominee=proxy)

    assert refused.message == (
        f"Sipho Dube has tickets in {draw.name}: a proxy may not take part in the draw they stand in for."
    )


@time_machine.travel(IN_WINDOW, tick=False)
def test_an_sa_id_typed_as_a_passport_is_still_the_same_nominee(draw):
    first, second = participant_in(draw, "4400000001"), participant_in(draw, "4400000002")
    proxy = nominee_for(name="Sipho Dube")
    nomination = nominate(participant=first, draw=draw, nominee=proxy)
    spaced = " ".join([proxy.id_number[:6], proxy.id_number[6:10], proxy.id_number[10:]])

    refused = refusal(
        participant=second, draw=draw, nominee=dataclasses.replace(proxy, id_type="passport", id_number=spaced)
    )

    assert "already represents" in refused.message
    assert (nomination.nominee_id_type, nomination.nominee_id_number) == ("sa_id", proxy.id_number)


@time_machine.travel(IN_WINDOW, tick=False)
def test_an_activated_member_typed_in_by_passport_is_refused_as_a_nominee(draw):
    person, proxy = participant_in(draw, "4400000001"), member("4400000009")
    activate(proxy, draw)
    typed = Nominee(proxy.full_name, "passport", proxy.id_number, "")
    assert "has tickets in" in refusal(participant=person, draw=draw, nominee=typed).message


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_participant_cannot_be_their_own_proxy(draw):
    person = participant_in(draw)
    typed = Nominee(person.full_name, "passport", person.id_number, "")
    for nominee in (nominee_for(person), typed):
        assert refusal(participant=person, draw=draw, nominee=nominee).message == (
            "A participant cannot be their own proxy."
        )


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_nominee_without_a_name_or_a_readable_id_is_refused(draw):
    person = participant_in(draw)
    assert refusal(participant=person, draw=draw, nominee=nominee_for(name="   ")).code == "no_name"
    bad_id = Nominee("Sipho Dube", "passport", "12", "")
    assert refusal(participant=person, draw=draw, nominee=bad_id).code == "invalid_identity"


# --- The participant -----------------------------------------------------------------------


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_participant_has_one_live_nomination_per_draw(draw):
    person = participant_in(draw)
    nominate(participant=person, draw=draw, nominee=nominee_for(name="Sipho Dube"))

    refused = refusal(
        participant=person, draw=draw, nominee=nominee_for(name="Lerato Khumalo", born=dt.date(1990, 1, 2))
    )

    assert refused.message == (
        f"{person.full_name} already nominated Sipho Dube for {draw.name}: revoke that nomination first."
    )


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_participant_without_tickets_for_a_ticket_draw_is_refused(draw):
    person = member("4400000001")
    assert refusal(participant=person, draw=draw).message == (
        f"{person.full_name} has not activated tickets for {draw.name}: only a participant can register."
    )


def test_a_participant_excluded_since_activating_is_refused_with_the_reason(draw):
    person = participant_in(draw)  # activated at 10h00, eligible then
    ExclusionFactory(
        id_number=person.id_number, starts_at=at("10:30"), reason="Asked at the desk to be excluded for a year."
    )
    with time_machine.travel(at("11:00"), tick=False):
        refused = refusal(participant=person, draw=draw)
    assert refused.message.startswith(f"{person.full_name} may not take part: ")
    assert "Asked at the desk to be excluded for a year." in refused.message
    assert not ProxyNomination.objects.exists()


@pytest.mark.parametrize("missing", ["participant_id_seen", "nominee_id_seen", "form_signed"])
@time_machine.travel(IN_WINDOW, tick=False)
def test_both_id_documents_and_the_signed_form_are_required(draw, missing):
    person = participant_in(draw)
    presented = {"participant_id_seen": True, "nominee_id_seen": True, "form_signed": True} | {missing: False}
    with pytest.raises(DomainError) as refused:
        proxy_nominate(actor=desk_actor(), participant=person, draw_ids=[draw.pk], nominee=nominee_for(), **presented)
    assert refused.value.code == "not_presented"
    assert "Both ID documents must be seen and the proxy form signed" in refused.value.message
    assert not ProxyNomination.objects.exists()


# --- Revoking --------------------------------------------------------------------------------


def test_revoking_keeps_the_nomination_and_frees_the_participant_and_the_nominee(draw):
    first, second = participant_in(draw, "4400000001"), participant_in(draw, "4400000002")
    proxy = nominee_for(name="Sipho Dube")
    clerk = make_user(REWARDS_DESK)
    with time_machine.travel(IN_WINDOW, tick=False):
        nomination = nominate(participant=first, draw=draw, nominee=proxy)
    with time_machine.travel(at("11:00"), tick=False):
        proxy_revoke(actor=Actor.for_user(clerk), nomination_id=nomination.pk, reason="  Participant will attend ")

        nomination.refresh_from_db()
        assert (nomination.revoked_at, nomination.revoked_by, nomination.revoke_reason) == (
            at("11:00"),
            clerk,
            "Participant will attend",
        )
        # The nominee may now stand in for someone else, and the participant may name another.
        nominate(participant=second, draw=draw, nominee=proxy)
        nominate(participant=first, draw=draw, nominee=nominee_for(name="Lerato Khumalo", born=dt.date(1990, 1, 2)))

    assert ProxyNomination.objects.filter(draw=draw).count() == 3
    assert ProxyNomination.objects.live().filter(draw=draw).count() == 2


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_revocation_needs_a_reason_and_happens_once(draw):
    nomination = nominate(participant=participant_in(draw), draw=draw)
    with pytest.raises(DomainError) as no_reason:
        proxy_revoke(actor=desk_actor(), nomination_id=nomination.pk, reason="  ")
    assert no_reason.value.code == "no_reason"
    proxy_revoke(actor=desk_actor(), nomination_id=nomination.pk, reason="Changed their mind")
    with pytest.raises(DomainError) as again:
        proxy_revoke(actor=desk_actor(), nomination_id=nomination.pk, reason="Again")
    assert again.value.code == "already_revoked"
    nomination.refresh_from_db()
    assert nomination.revoke_reason == "Changed their mind"


# --- Several draws of one promotional day ------------------------------------------------------


@pytest.fixture
def evening(draw):
    return make_draw(draw.series, at("20:00"))


@time_machine.travel(IN_WINDOW, tick=False)
def test_several_draws_of_one_day_are_nominated_together(draw, evening):
    person = participant_in(draw)
    activate(person, evening)
    nominations = proxy_nominate(
        actor=desk_actor(),
        participant=person,
        draw_ids=[evening.pk, draw.pk],
        nominee=nominee_for(),
        participant_id_seen=True,
        nominee_id_seen=True,
        form_signed=True,
    )
    assert sorted(n.draw_id for n in nominations) == sorted([draw.pk, evening.pk])
    assert len({n.batch for n in nominations}) == 1


@time_machine.travel(IN_WINDOW, tick=False)
def test_one_refused_draw_refuses_the_whole_day(draw, evening):
    person = participant_in(draw)  # no tickets for the evening draw
    with pytest.raises(DomainError) as refused:
        proxy_nominate(
            actor=desk_actor(),
            participant=person,
            draw_ids=[draw.pk, evening.pk],
            nominee=nominee_for(),
            participant_id_seen=True,
            nominee_id_seen=True,
            form_signed=True,
        )
    assert refused.value.message == (
        f"{person.full_name} has not activated tickets for {evening.name}: only a participant can register."
    )
    assert not ProxyNomination.objects.exists()
    assert not AuditEvent.objects.filter(action="proxy.nominated").exists()


@time_machine.travel(IN_WINDOW, tick=False)
def test_draws_of_different_days_are_refused_together(draw):
    tomorrow = make_draw(draw.series, DRAW_AT + dt.timedelta(days=1))
    person = participant_in(draw)
    with pytest.raises(DomainError) as refused:
        proxy_nominate(
            actor=desk_actor(),
            participant=person,
            draw_ids=[draw.pk, tomorrow.pk],
            nominee=nominee_for(),
            participant_id_seen=True,
            nominee_id_seen=True,
            form_signed=True,
        )
    assert (refused.value.code, refused.value.message) == (
        "several_days",
        "Several draws at once must be on one promotional day.",
    )
    assert not ProxyNomination.objects.exists()


# --- A series without proxies: DayTime PlayTime ------------------------------------------------


def test_daytime_playtime_refuses_a_proxy_but_accepts_a_decline(reference_data):
    load_promotion(emnotweni_daytime_playtime.PROMOTION, actor=Actor.system("seed"))
    draw = Draw.objects.get(
        series__promotion__code="emnotweni-daytime-playtime", scheduled_at=at("14:00", dt.date(2025, 9, 3))
    )
    person = MemberFactory(
        card_number="4400000001",
        home_property=reference_data["properties"]["EMN"],
        tier=draw.series.eligible_tiers.order_by("rank").first() or TierFactory(),
    )
    PointsEntryFactory(
        member=person,
        property=reference_data["properties"]["EMN"],
        points=500,
        earned_at=at("09:00", dt.date(2025, 9, 2)),
    )
    activate(person, draw, at("12:30", dt.date(2025, 9, 3)))

    with time_machine.travel(at("13:00", dt.date(2025, 9, 3)), tick=False):
        refused = refusal(participant=person, draw=draw)
        assert refused.message == (
            f"DayTime PlayTime has no proxies for {draw.name}: a participant may register a decline instead."
        )
        assert decline(member=person, draw=draw).is_live
    assert not ProxyNomination.objects.exists()


# --- Audit -----------------------------------------------------------------------------------


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_nomination_and_its_revocation_are_audited_on_the_nomination(draw):
    person, clerk = participant_in(draw), make_user(REWARDS_DESK)
    nomination = nominate(
        participant=person, draw=draw, nominee=nominee_for(name="Sipho Dube"), actor=Actor.for_user(clerk)
    )
    proxy_revoke(actor=Actor.for_user(clerk), nomination_id=nomination.pk, reason="Participant will attend")

    events = AuditEvent.objects.filter(object_type="proxies.proxynomination", object_id=str(nomination.pk))
    nominated, revoked = events.get(action="proxy.nominated"), events.get(action="proxy.revoked")
    assert nominated.actor == revoked.actor == clerk
    assert nominated.data["draw"] == draw.pk and nominated.data["participant"] == person.card_number
    assert (
        nominated.data["nominee"] == "Sipho Dube"
        and nominated.data["nominee_id_last4"] == nomination.nominee_id_number[-4:]
    )
    assert revoked.data == {"reason": "Participant will attend"}
