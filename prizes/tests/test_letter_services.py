"""Prize letters issued at the Rewards desk, voided and reissued by a manager, expired by the
clock (issue 15, item 4; prizes/letter_services.py)."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import PROMOTIONS_MANAGER, REWARDS_DESK
from draws.tests.builders import MANAGER
from members.tests.factories import MemberFactory
from prizes import letter_services as letters
from prizes.letter_models import LetterLine, LetterStatus, PrizeLetter
from prizes.letter_selectors import letterable_lines
from prizes.services import prize_line_reverse
from prizes.tests.letter_helpers import EXPIRES_AT, LAST_MOMENT, presented
from proxies.models import ProxyNomination

pytestmark = pytest.mark.django_db


@pytest.fixture
def desk_actor(user_for) -> Actor:
    return Actor.for_user(user_for(REWARDS_DESK))


@pytest.fixture
def manager_actor(user_for) -> Actor:
    return Actor.for_user(user_for(PROMOTIONS_MANAGER))


def issue(actor, pick, **overrides) -> PrizeLetter:
    return letters.letter_issue(actor=actor, **presented(pick, **overrides))


def refused(actor, pick, code: str, **overrides) -> str:
    with pytest.raises(DomainError) as caught:
        issue(actor, pick, **overrides)
    assert caught.value.code == code, caught.value.message
    return caught.value.message


# --- Issue ----------------------------------------------------------------------------------


def test_the_winner_in_person_gets_one_letter_of_their_money_lines(won, desk_actor):
    draw, first, _ = won
    letter = issue(desk_actor, first)
    assert letter.number == "GRC-25-000001"
    assert (letter.member, letter.draw, letter.property.code) == (first.member, draw, "GRC")
    assert sorted((ll.prize_line.kind, ll.prize_line.amount_cents) for ll in letter.lines.all()) == [
        ("cash", 500_000),
        ("play", 50_000),
    ]
    assert letter.expires_at == EXPIRES_AT  # 15 Oct + 15 days: the end of Thu 30 Oct, Johannesburg
    assert letter.collection_place == "the Cash Desk, Gold Reef City"
    assert (letter.status, letter.id_type_seen, letter.issued_by) == ("issued", "sa_id", desk_actor.label)
    assert len(letter.code) == 64 and letters.letter_verify_code(letter)
    event = AuditEvent.objects.get(action="prize.letter_issued")
    assert (event.object_id, event.actor_label, event.data["number"]) == (
        str(letter.pk),
        desk_actor.label,
        letter.number,
    )


def test_numbers_follow_on_per_property_and_year(won, desk_actor, manager_actor):
    _, first, _ = won
    one = issue(desk_actor, first)
    two = letters.letter_reissue(actor=manager_actor, letter_id=one.pk, reason="Printed on wet paper")
    assert (one.number, two.number) == ("GRC-25-000001", "GRC-25-000002")


def test_a_second_letter_for_the_same_winner_is_refused_naming_the_first(won, desk_actor):
    _, first, _ = won
    letter = issue(desk_actor, first)
    message = refused(desk_actor, first, "letter_refused")
    assert f"already has letter {letter.number}" in message
    assert PrizeLetter.objects.count() == 1


def test_an_id_that_is_not_the_winners_is_refused(won, desk_actor):
    _, first, _ = won
    other = MemberFactory()
    message = refused(desk_actor, first, "letter_id_mismatch", id_number_presented=other.id_number)
    assert "is not" in message and first.member.full_name in message and "in person" in message
    assert other.id_number not in message  # masked: only the last four digits
    assert not PrizeLetter.objects.exists()


def test_another_members_card_is_refused(won, desk_actor):
    _, first, _ = won
    message = refused(desk_actor, first, "letter_card_mismatch", card_number=MemberFactory().card_number)
    assert f"not {first.member.full_name}'s" in message


def test_no_card_swiped_is_refused(won, desk_actor):
    _, first, _ = won
    refused(desk_actor, first, "letter_card_required", card_number="")


def test_the_winners_proxy_never_gets_the_letter(won, desk_actor):
    draw, first, _ = won
    proxy = MemberFactory(first_name="Sipho", last_name="Proxy")
    ProxyNomination.objects.create(
        draw=draw,
        participant=first.member,
        nominee_name="Sipho Proxy",
        nominee_id_type="sa_id",
        nominee_id_number=proxy.id_number,
        nominee_member=proxy,
        participant_id_seen=True,
        nominee_id_seen=True,
        form_signed=True,
        batch="00000000-0000-0000-0000-000000000001",
        registered_by=desk_actor.user,
        registered_at=draw.scheduled_at - dt.timedelta(hours=2),
    )
    # The proxy's own ID, even with the winner's card in hand: refused as the proxy.
    message = refused(desk_actor, first, "letter_proxy", id_number_presented=proxy.id_number)
    assert "Sipho Proxy was" in message and "a proxy never collects" in message and "30 Oct 2025" in message
    # The proxy's card: refused as the proxy too.
    refused(desk_actor, first, "letter_proxy", card_number=proxy.card_number)
    assert not PrizeLetter.objects.exists()


def test_an_id_number_that_cannot_be_an_id_is_refused_in_words(won, desk_actor):
    _, first, _ = won
    message = refused(desk_actor, first, "letter_id_invalid", id_number_presented="8001015009088")
    assert "not a valid South African ID number" in message


def test_no_letter_before_the_draw_is_complete(running, desk_actor):
    draw, first = running
    from prizes.tests.conftest import cash
    from prizes.tests.letter_helpers import store

    store(draw, first, cash(100_000))
    assert "once the draw is complete" in refused(desk_actor, first, "letter_refused")


def test_a_winner_of_only_a_place_has_nothing_to_collect_by_letter(won, desk_actor):
    _, _, second = won
    assert "no prize" in refused(desk_actor, second, "letter_refused")


def test_a_corrected_line_and_its_correction_are_not_lettered(won, desk_actor, manager_actor):
    _, first, _ = won
    cash_line = first.prize_lines.get(kind="cash")
    prize_line_reverse(actor=manager_actor, line_id=cash_line.pk, reason="Wrong podium keyed")
    letter = issue(desk_actor, first)
    assert [ll.prize_line.kind for ll in letter.lines.all()] == ["play"]


def test_staff_of_another_property_do_not_issue(won, user_for):
    _, first, _ = won
    elsewhere = Actor.for_user(user_for(REWARDS_DESK, properties=("MC",)))
    message = refused(elsewhere, first, "other_property")
    assert "Gold Reef City" in message


def test_a_series_paid_at_the_device_has_no_letters(won, desk_actor):
    draw, first, _ = won
    draw.series.paid_at_device = True
    draw.series.save()
    assert "paid at the device" in refused(desk_actor, first, "letter_refused")


def test_the_last_second_of_the_last_day_is_in_time(won, desk_actor):
    _, first, _ = won
    with time_machine.travel(LAST_MOMENT, tick=False):
        letter = issue(desk_actor, first)
    assert letter.status == "issued"


def test_at_midnight_ending_the_last_day_it_is_too_late(won, desk_actor):
    _, first, _ = won
    with time_machine.travel(EXPIRES_AT, tick=False):
        message = refused(desk_actor, first, "letter_refused")
    assert "had to be collected by 30 Oct 2025" in message


# --- Void and reissue --------------------------------------------------------------------------


def test_a_manager_voids_with_a_reason_and_the_lines_are_free_again(won, desk_actor, manager_actor):
    _, first, _ = won
    letter = issue(desk_actor, first)
    assert not letterable_lines(first).exists()
    voided = letters.letter_void(actor=manager_actor, letter_id=letter.pk, reason="Lost by the winner")
    assert (voided.status, voided.void_reason, voided.voided_by) == (
        "voided",
        "Lost by the winner",
        manager_actor.label,
    )
    assert not LetterLine.objects.filter(letter=letter, live=True).exists()
    assert letterable_lines(first).count() == 2
    event = AuditEvent.objects.get(action="prize.letter_voided")
    assert event.data["reason"] == "Lost by the winner" and event.object_id == str(letter.pk)


def test_a_void_needs_its_reason(won, desk_actor, manager_actor):
    _, first, _ = won
    letter = issue(desk_actor, first)
    with pytest.raises(DomainError) as caught:
        letters.letter_void(actor=manager_actor, letter_id=letter.pk, reason="  ")
    assert caught.value.code == "no_reason"
    assert PrizeLetter.objects.get(pk=letter.pk).status == "issued"


def test_the_desk_does_not_void(won, desk_actor):
    _, first, _ = won
    letter = issue(desk_actor, first)
    with pytest.raises(DomainError) as caught:
        letters.letter_void(actor=desk_actor, letter_id=letter.pk, reason="Because")
    assert caught.value.code == "letter_void_refused"


def test_a_reissue_makes_a_new_number_and_code_and_refuses_the_old(won, desk_actor, manager_actor):
    _, first, _ = won
    old = issue(desk_actor, first)
    new = letters.letter_reissue(actor=manager_actor, letter_id=old.pk, reason="Torn")
    old.refresh_from_db()
    assert new.number != old.number and new.code != old.code
    assert (new.replaces, new.expires_at, new.status, old.status) == (old, old.expires_at, "issued", "voided")
    assert sorted(ll.prize_line_id for ll in new.lines.all()) == sorted(ll.prize_line_id for ll in old.lines.all())
    scanned, valid = letters.letter_from_scan(old.qr_text())
    assert scanned == old and valid  # genuine, but voided: the cash desk is told why and what replaced it
    assert f"Its replacement is letter {new.number}" in scanned.state().pay_refusal()
    assert AuditEvent.objects.get(action="prize.letter_reissued").data["replaces"] == old.number


def test_an_expired_letter_is_neither_voided_nor_reissued(won, desk_actor, manager_actor):
    _, first, _ = won
    letter = issue(desk_actor, first)
    with time_machine.travel(EXPIRES_AT, tick=False), pytest.raises(DomainError) as caught:
        letters.letter_reissue(actor=manager_actor, letter_id=letter.pk, reason="Lost")
    assert "expired" in caught.value.message


# --- Expiry ------------------------------------------------------------------------------------


def test_the_tick_expires_an_uncollected_letter_once_at_its_time(won, desk_actor):
    _, first, _ = won
    letter = issue(desk_actor, first)
    assert letters.letters_expire(now=EXPIRES_AT - dt.timedelta(seconds=1)) == 0
    assert letter.state(EXPIRES_AT - dt.timedelta(seconds=1)).is_payable
    # On the request itself, before any tick: expired.
    assert letter.state(EXPIRES_AT).is_expired and "expired" in letter.state(EXPIRES_AT).pay_refusal()
    assert letters.letters_expire(now=EXPIRES_AT) == 1
    assert letters.letters_expire(now=EXPIRES_AT + dt.timedelta(seconds=30)) == 0  # idempotent
    letter.refresh_from_db()
    assert (letter.status, letter.status_changed_at) == (LetterStatus.EXPIRED, EXPIRES_AT)
    assert AuditEvent.objects.filter(action="prize.letter_expired", object_id=str(letter.pk)).count() == 1


def test_the_beat_tick_runs_the_expiry():
    from config.tasks import TICK_STEPS

    assert letters.letters_expire in [step for _name, step in TICK_STEPS]


# --- Paid at the device (RF r14, r29) ------------------------------------------------------------


@pytest.fixture
def device_series(won):
    draw, first, second = won
    draw.series.paid_at_device = True
    draw.series.save()
    return draw, first, second


def test_a_prize_paid_at_the_device_is_recorded_once_by_who_paid(device_series, manager_actor):
    _, first, _ = device_series
    line = first.prize_lines.get(kind="cash")
    payout = letters.device_payout_record(actor=manager_actor, prize_line_id=line.pk)
    assert (payout.where, payout.letter, payout.amount_cents, payout.paid_by) == (
        "device",
        None,
        500_000,
        manager_actor.label,
    )
    with pytest.raises(DomainError) as caught:
        letters.device_payout_record(actor=manager_actor, prize_line_id=line.pk)
    assert "Already paid" in caught.value.message and manager_actor.label in caught.value.message
    assert AuditEvent.objects.filter(action="prize.device_payout").count() == 1
    # Paid at the device: never on a letter afterwards.
    assert line not in letterable_lines(first)


def test_only_a_series_paid_at_the_device_records_there(won, manager_actor):
    _, first, _ = won
    with pytest.raises(DomainError) as caught:
        letters.device_payout_record(actor=manager_actor, prize_line_id=first.prize_lines.get(kind="cash").pk)
    assert "paid by letter at the cash desk" in caught.value.message


def test_entries_or_a_place_are_not_paid_at_the_device(device_series, manager_actor):
    _, _, second = device_series
    with pytest.raises(DomainError) as caught:
        letters.device_payout_record(actor=manager_actor, prize_line_id=second.prize_lines.get().pk)
    assert "not paid out" in caught.value.message


def test_the_desk_does_not_record_device_payouts(device_series, desk_actor):
    _, first, _ = device_series
    with pytest.raises(DomainError):
        letters.device_payout_record(actor=desk_actor, prize_line_id=first.prize_lines.get(kind="cash").pk)


def test_system_actor_is_not_the_staff_who_paid(device_series):
    _, first, _ = device_series
    with pytest.raises(DomainError):
        letters.device_payout_record(actor=MANAGER, prize_line_id=first.prize_lines.get(kind="cash").pk)
