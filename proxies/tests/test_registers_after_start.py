"""Issue 12, finding 6: the registers hold once the draw has started, a decline is withdrawn only
with the member present, and nobody under 18 or on the exclusion register stands in as a proxy.

A 13h00 draw of the test series prints tickets 08h00-12h55 (entries freeze at 12h55), takes
proxies 08h00-12h45 and declines 08h00-13h00."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from draws.engine import draw_start
from draws.models import Draw, DrawStatus
from draws.services import activation_create, draw_close_window
from draws.tests.factories import make_draw
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory, sa_id_for
from promotions.tests.factories import make_series
from proxies.models import DeclineRegistration, ProxyNomination
from proxies.services import Nominee, decline_revoke, proxy_revoke
from proxies.tests.factories import decline, desk_actor, nominate, nominee_for

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)
CARD = "4600000001"
OTHER_CARD = "4600000002"


def at(hms: str) -> dt.datetime:
    return dt.datetime.combine(DRAW_AT.date(), dt.time.fromisoformat(hms), tzinfo=SAST)


def participant_in(draw: Draw, card: str = CARD, **kwargs):
    person = MemberFactory(card_number=card, **kwargs)
    PointsEntryFactory(member=person, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))
    with time_machine.travel(IN_WINDOW, tick=False):
        activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number=card, channel="ehost")
    return person


def start(draw: Draw, moment: dt.datetime = DRAW_AT) -> Draw:
    with time_machine.travel(moment, tick=False):
        assert draw_start(
            actor=Actor.system("test-manager"), draw_id=draw.pk, early_start_reason="The stage is ready.", now=moment
        )
    draw.refresh_from_db()
    return draw


@pytest.fixture
def draw(reference_data):
    return make_draw(make_series(points_per_ticket=100), DRAW_AT)


# --- Nothing is revoked once the draw has started ------------------------------------------


def test_a_nomination_cannot_be_revoked_once_its_draw_has_started(draw):
    person = participant_in(draw)
    with time_machine.travel(IN_WINDOW, tick=False):
        nomination = nominate(participant=person, draw=draw)
    draw = start(draw)
    assert draw.status in (DrawStatus.RUNNING, DrawStatus.DRAWN)
    with time_machine.travel(at("13:05"), tick=False), pytest.raises(DomainError) as refused:
        proxy_revoke(actor=desk_actor(), nomination_id=nomination.pk, reason="The participant came back.")
    assert (refused.value.code, refused.value.message) == (
        "draw_started",
        f"{draw.name} has started: its proxy nominations can no longer be changed.",
    )
    nomination.refresh_from_db()
    assert nomination.is_live
    assert not AuditEvent.objects.filter(action="proxy.revoked").exists()


def test_a_declined_winner_is_not_turned_into_a_no_show_after_the_start(draw):
    person = participant_in(draw)
    with time_machine.travel(IN_WINDOW, tick=False):
        registration = decline(member=person, draw=draw)
    draw = start(draw)  # the only entrant is picked: on the decline register, still a winner
    assert draw.picks.get(k=1).member_id == person.pk
    with time_machine.travel(at("13:05"), tick=False), pytest.raises(DomainError) as refused:
        decline_revoke(actor=desk_actor(), registration_id=registration.pk, reason="Will be present.", card_number=CARD)
    assert (refused.value.code, refused.value.message) == (
        "draw_started",
        f"{draw.name} has started: its declines can no longer be changed.",
    )
    registration.refresh_from_db()
    assert registration.is_live


def test_an_early_start_closes_the_registers_for_revoking_too(draw):
    # Started at 12h56, before its 13h00 time: started_at is what counts, not the clock.
    person = participant_in(draw)
    with time_machine.travel(IN_WINDOW, tick=False):
        registration = decline(member=person, draw=draw)
    start(draw, at("12:56"))
    with time_machine.travel(at("12:57"), tick=False), pytest.raises(DomainError) as refused:
        decline_revoke(actor=desk_actor(), registration_id=registration.pk, reason="Here.", card_number=CARD)
    assert refused.value.code == "draw_started"


def test_frozen_entries_do_not_stop_a_withdrawal_before_the_start(draw):
    # The edge: entries froze at 12h55 (status closed), the draw has not started.
    person = participant_in(draw)
    with time_machine.travel(IN_WINDOW, tick=False):
        registration = decline(member=person, draw=draw)
    assert draw_close_window(draw_id=draw.pk, now=at("12:55"))
    draw.refresh_from_db()
    assert (draw.status, draw.started_at) == (DrawStatus.CLOSED, None)
    with time_machine.travel(at("12:58"), tick=False):
        decline_revoke(actor=desk_actor(), registration_id=registration.pk, reason="Here.", card_number=CARD)
    registration.refresh_from_db()
    assert not registration.is_live


def test_the_member_page_offers_no_revoke_or_withdraw_once_the_draw_started(client_for, draw):
    nominator = participant_in(draw, CARD)
    decliner = participant_in(draw, OTHER_CARD)
    with time_machine.travel(IN_WINDOW, tick=False):
        nominate(participant=nominator, draw=draw)
        decline(member=decliner, draw=draw)
        desk = client_for("rewards_desk")
        before = [desk.get(reverse("members:detail", args=[m.pk])).content.decode() for m in (nominator, decliner)]
    assert ">Revoke</button>" in before[0] and ">Withdraw</button>" in before[1]
    start(draw)
    with time_machine.travel(at("13:05"), tick=False):
        desk = client_for("rewards_desk")  # a new sign-in: the morning's session went idle
        after = [desk.get(reverse("members:detail", args=[m.pk])).content.decode() for m in (nominator, decliner)]
    assert ">Revoke</button>" not in after[0]
    assert f"{draw.name} has started: its proxy nominations can no longer be changed." in after[0]
    assert ">Withdraw</button>" not in after[1]
    assert f"{draw.name} has started: its declines can no longer be changed." in after[1]


def test_a_revoke_posted_after_the_start_is_refused_in_words(client_for, draw):
    person = participant_in(draw)
    with time_machine.travel(IN_WINDOW, tick=False):
        nomination = nominate(participant=person, draw=draw)
    start(draw)
    with time_machine.travel(at("13:05"), tick=False):
        response = client_for("rewards_desk").post(
            reverse("proxies:nomination_revoke", args=[nomination.pk]), {"reason": "Came back."}, follow=True
        )
    assert "has started: its proxy nominations can no longer be changed." in response.content.decode()
    assert ProxyNomination.objects.get(pk=nomination.pk).is_live


# --- A decline is withdrawn in person --------------------------------------------------------


@time_machine.travel(IN_WINDOW, tick=False)
@pytest.mark.parametrize("card", ["", "   ", OTHER_CARD])
def test_a_decline_is_withdrawn_only_with_the_members_own_card(draw, card):
    person = participant_in(draw)
    MemberFactory(card_number=OTHER_CARD)
    registration = decline(member=person, draw=draw)
    with pytest.raises(DomainError) as refused:
        decline_revoke(actor=desk_actor(), registration_id=registration.pk, reason="Will attend", card_number=card)
    assert refused.value.code == "not_presented"
    assert "in person" in refused.value.message
    registration.refresh_from_db()
    assert registration.is_live


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_withdrawal_is_audited_with_how_the_member_was_identified(draw):
    person, clerk = participant_in(draw), desk_actor()
    registration = decline(member=person, draw=draw)
    decline_revoke(actor=clerk, registration_id=registration.pk, reason="Will attend", card_number=CARD)
    event = AuditEvent.objects.get(action="decline.revoked")
    assert event.actor == clerk.user
    assert event.data == {"reason": "Will attend", "member": CARD, "identified_by": "card"}


def test_the_desk_withdraws_a_decline_by_swiping_the_members_card(client_for, draw):
    person = participant_in(draw, first_name="Naledi", last_name="Khumalo")
    stripe = f"%B{CARD}^KHUMALO/NALEDI^2812101?;{CARD}=2812101?"
    with time_machine.travel(IN_WINDOW, tick=False):
        registration = decline(member=person, draw=draw)
        desk = client_for("rewards_desk")
        page = desk.get(reverse("members:detail", args=[person.pk])).content.decode()
        assert 'name="card"' in page and "data-swipe-inline" in page
        response = desk.post(
            reverse("proxies:decline_revoke", args=[registration.pk]), {"reason": "Will attend", "card": stripe}
        )
    assert response.status_code == 302
    registration.refresh_from_db()
    assert (registration.is_live, registration.revoke_reason) == (False, "Will attend")
    assert "KHUMALO" not in str(AuditEvent.objects.get(action="decline.revoked").data)


def test_a_withdrawal_with_someone_elses_card_is_refused_on_the_page(client_for, draw):
    person = participant_in(draw)
    with time_machine.travel(IN_WINDOW, tick=False):
        registration = decline(member=person, draw=draw)
        response = client_for("rewards_desk").post(
            reverse("proxies:decline_revoke", args=[registration.pk]),
            {"reason": "Will attend", "card": OTHER_CARD},
            follow=True,
        )
    assert f"That card is not {person.full_name}&#x27;s" in response.content.decode()
    assert DeclineRegistration.objects.get(pk=registration.pk).is_live


# --- Who may stand in --------------------------------------------------------------------------


def _typed(born: dt.date, *, name: str = "Thabo Nkosi") -> Nominee:
    return Nominee(name, "sa_id", sa_id_for(born, 4321), "+27821234567")


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_nominee_under_18_on_the_draw_day_is_refused(draw):
    person = participant_in(draw)
    with pytest.raises(DomainError) as refused:
        nominate(participant=person, draw=draw, nominee=_typed(dt.date(2007, 10, 16)))
    assert refused.value.code == "proxy_refused"
    assert refused.value.message.startswith(f"Thabo Nkosi may not be a proxy at {draw.name}: Under 18 (aged 17;")
    assert not ProxyNomination.objects.exists()


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_nominee_who_turns_18_on_the_draw_day_is_accepted(draw):
    person = participant_in(draw)
    assert nominate(participant=person, draw=draw, nominee=_typed(dt.date(2007, 10, 15))).is_live


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_passport_nominee_needs_a_date_of_birth_and_18_years(draw):
    person = participant_in(draw)
    passport = Nominee("Jean Dupont", "passport", "ab 123456", "")
    with pytest.raises(DomainError) as no_date:
        nominate(participant=person, draw=draw, nominee=passport)
    assert no_date.value.code == "no_birth_date"
    young = Nominee("Jean Dupont", "passport", "ab 123456", "", date_of_birth=dt.date(2010, 1, 1))
    with pytest.raises(DomainError) as under_age:
        nominate(participant=person, draw=draw, nominee=young)
    assert "Under 18" in under_age.value.message
    adult = Nominee("Jean Dupont", "passport", "ab 123456", "", date_of_birth=dt.date(1980, 1, 1))
    assert nominate(participant=person, draw=draw, nominee=adult).nominee_id_number == "AB123456"


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_self_excluded_nominee_is_refused_by_normalised_id_number(draw):
    person = participant_in(draw)
    nominee = _typed(dt.date(1985, 6, 15))
    ExclusionFactory(id_number=nominee.id_number, full_name="Thabo Nkosi")
    spaced = Nominee(nominee.name, "passport", " ".join(nominee.id_number), "")  # typed as a passport, with spaces
    with pytest.raises(DomainError) as refused:
        nominate(participant=person, draw=draw, nominee=spaced)
    assert refused.value.message.startswith(f"Thabo Nkosi may not be a proxy at {draw.name}: Self-excluded since")
    assert not ProxyNomination.objects.exists()


@time_machine.travel(IN_WINDOW, tick=False)
def test_an_exclusion_starting_before_the_draw_refuses_the_nominee_now(draw):
    # Excluded from 12h00: not yet in force at 10h00, but it is at the draw.
    person = participant_in(draw)
    nominee = _typed(dt.date(1985, 6, 15))
    ExclusionFactory(id_number=nominee.id_number, starts_at=at("12:00"))
    with pytest.raises(DomainError) as refused:
        nominate(participant=person, draw=draw, nominee=nominee)
    assert "Self-excluded since" in refused.value.message


@time_machine.travel(IN_WINDOW, tick=False)
def test_an_exclusion_that_ended_before_now_does_not_refuse_the_nominee(draw):
    person = participant_in(draw)
    nominee = _typed(dt.date(1985, 6, 15))
    ExclusionFactory(id_number=nominee.id_number, starts_at=at("10:00") - dt.timedelta(days=400), ends_at=at("09:59"))
    assert nominate(participant=person, draw=draw, nominee=nominee).is_live


@time_machine.travel(IN_WINDOW, tick=False)
def test_an_excluded_member_swiped_as_nominee_is_refused(draw):
    person = participant_in(draw)
    proxy = MemberFactory(card_number="4600000009")
    ExclusionFactory(id_number=proxy.id_number, full_name=proxy.full_name)
    with pytest.raises(DomainError) as refused:
        nominate(participant=person, draw=draw, nominee=nominee_for(proxy))
    assert f"{proxy.full_name} may not be a proxy" in refused.value.message


def test_the_nominate_page_takes_a_passport_proxys_date_of_birth(client_for, draw):
    person = participant_in(draw)
    form = {
        "draws": [draw.pk],
        "nominee_name": "Jean Dupont",
        "nominee_id_type": "passport",
        "nominee_id_number": "AB123456",
        "nominee_date_of_birth": "15/06/2012",
    }
    with time_machine.travel(IN_WINDOW, tick=False):
        desk = client_for("rewards_desk")
        url = reverse("proxies:member_nominate", args=[person.pk])
        refused = desk.post(url, form).content.decode()
        assert "Jean Dupont may not be a proxy" in refused and "Under 18" in refused
        accepted = desk.post(url, form | {"nominee_date_of_birth": "15/06/1980"})
        assert accepted.status_code == 302
        # Printed, signed, then registered (proxies.drafts).
        desk.get(reverse("proxies:nominate_form_pdf", args=[person.pk]))
        signed = {"participant_id_seen": "on", "nominee_id_seen": "on", "form_signed": "on"}
        desk.post(reverse("proxies:nominate_sign", args=[person.pk]), signed)
    assert ProxyNomination.objects.get().nominee_name == "Jean Dupont"
