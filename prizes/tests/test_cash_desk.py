"""The cash desk pays a prize letter (issue 15, items 6 and 8; prizes/cash_desk.py): each group
of lines on its own, to the winner in person, refused in words when it must not be paid."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import CASH_DESK, PROMOTIONS_MANAGER
from prizes import cash_desk
from prizes.letter_models import LetterStatus, Payout, PrizeLetter
from prizes.letter_services import letter_issue, letter_reissue, letter_void, letters_expire
from prizes.lines import LineKind, LineSource, LineSpec
from prizes.services import prize_line_reverse
from prizes.tests.conftest import DRAW_AT, cash
from prizes.tests.letter_helpers import EXPIRES_AT, LAST_MOMENT, desk_actor_for, presented, store

pytestmark = pytest.mark.django_db

PAY_AT = DRAW_AT + dt.timedelta(days=1)


def vehicle(amount_cents: int = 35_000_000) -> LineSpec:
    return LineSpec(LineKind.VEHICLE, amount_cents, LineSource.BOARD, "A Toyota Corolla")


@pytest.fixture
def cashier_actor(user_for) -> Actor:
    return Actor.for_user(user_for(CASH_DESK, properties=["GRC"]))


@pytest.fixture
def letter(won, user_for) -> PrizeLetter:
    """The first winner's letter: R5,000 cash and R500 +Play."""
    _, first, _ = won
    return letter_issue(actor=desk_actor_for(user_for), **presented(first))


@pytest.fixture
def car_letter(complete, user_for) -> PrizeLetter:
    """A letter of cash and a vehicle."""
    draw, first, _ = complete
    store(draw, first, cash(100_000), vehicle())
    return letter_issue(actor=desk_actor_for(user_for), **presented(first))


def last4(letter: PrizeLetter) -> str:
    return letter.member.id_number[-4:]


def pay(actor, letter, group="cash", *, now=PAY_AT, **overrides):
    fields = {
        "kind_group": group,
        "id_type_seen": "sa_id",
        "id_last_digits": last4(letter),
        "signature_acknowledged": True,
        "scanned_code": letter.code.upper(),
        **overrides,
    }
    return cash_desk.letter_pay(actor=actor, letter_id=letter.pk, now=now, **fields)


def refused(actor, letter, code, group="cash", **overrides) -> str:
    with pytest.raises(DomainError) as caught:
        pay(actor, letter, group, **overrides)
    assert caught.value.code == code, caught.value.message
    return caught.value.message


# --- Paying ----------------------------------------------------------------------------------


def test_cash_and_play_are_paid_and_recorded_separately(letter, cashier_actor):
    [cash_paid] = pay(cashier_actor, letter, "cash")
    assert (cash_paid.kind, cash_paid.amount_cents, cash_paid.where) == ("cash", 500_000, "cash_desk")
    assert (cash_paid.paid_by, cash_paid.paid_at, cash_paid.id_type_seen) == (cashier_actor.label, PAY_AT, "sa_id")
    assert (cash_paid.id_last_digits, cash_paid.signature_acknowledged, cash_paid.handed_over) == (
        last4(letter),
        True,
        False,
    )
    letter.refresh_from_db()
    assert letter.status == LetterStatus.ISSUED  # the +Play is still to be paid
    [play_paid] = pay(cashier_actor, letter, "play", now=PAY_AT + dt.timedelta(minutes=5))
    assert (play_paid.kind, play_paid.amount_cents) == ("play", 50_000)
    letter.refresh_from_db()
    assert (letter.status, letter.status_changed_at) == (LetterStatus.PAID, PAY_AT + dt.timedelta(minutes=5))
    events = AuditEvent.objects.filter(object_id=str(letter.pk)).order_by("id")
    payouts = [e for e in events if e.action == "prize.cash_desk_payout"]
    assert [(e.data["group"], e.data["amount"], e.actor_label) for e in payouts] == [
        ("cash", "R 5,000.00", cashier_actor.label),
        ("play", "R 500.00", cashier_actor.label),
    ]
    assert events.filter(action="prize.letter_paid").count() == 1


def test_a_vehicle_is_recorded_as_handed_over_and_the_letter_is_paid_after_its_last_group(car_letter, cashier_actor):
    [car] = pay(cashier_actor, car_letter, "vehicle")
    assert (car.kind, car.handed_over, car.amount_cents) == ("vehicle", True, 35_000_000)
    car_letter.refresh_from_db()
    assert car_letter.status == LetterStatus.ISSUED
    pay(cashier_actor, car_letter, "cash")
    car_letter.refresh_from_db()
    assert car_letter.status == LetterStatus.PAID


def test_a_keyed_letter_number_pays_without_a_scanned_code(letter, cashier_actor):
    assert pay(cashier_actor, letter, scanned_code=None)


def test_a_passport_holder_types_the_last_four_characters(won, user_for, cashier_actor):
    _, first, _ = won
    first.member.id_type, first.member.id_number = "passport", "A12345B7"
    first.member.save()
    letter = letter_issue(
        actor=desk_actor_for(user_for), **presented(first, id_type_seen="passport", id_number_presented="A12345B7")
    )
    assert pay(cashier_actor, letter, id_type_seen="passport", id_last_digits="45b7")


# --- Refusals, each in words -----------------------------------------------------------------


def test_a_second_payout_is_refused_saying_who_paid_and_when(letter, cashier_actor, user_for):
    pay(cashier_actor, letter, "cash")
    other = Actor.for_user(user_for(CASH_DESK, properties=["GRC"]))
    message = refused(other, letter, "payout_already_paid", "cash")
    assert message == (
        f"The cash of letter {letter.number} is already paid: R 5,000.00 paid by {cashier_actor.label} "
        "on Thu 16 Oct 2025 13:00."
    )
    assert Payout.objects.count() == 1


def test_a_paid_letter_is_refused_as_already_paid(letter, cashier_actor):
    pay(cashier_actor, letter, "cash")
    pay(cashier_actor, letter, "play")
    message = refused(cashier_actor, letter, "payout_already_paid", "cash")
    assert message.startswith(f"Letter {letter.number} is already paid.") and cashier_actor.label in message


def test_a_wrong_id_is_refused_and_nothing_is_paid(letter, cashier_actor):
    wrong = "0000" if last4(letter) != "0000" else "1111"
    message = refused(cashier_actor, letter, "payout_id_mismatch", id_last_digits=wrong)
    assert message == (
        f"The ID shown (ending {wrong}) is not {letter.member.full_name}'s: the prize is paid only to the winner, "
        "in person, with their own ID. Do not pay."
    )
    assert not Payout.objects.exists()


@pytest.mark.parametrize("typed", ["", "123", "12345", "12 3"])
def test_the_last_four_must_be_typed(letter, cashier_actor, typed):
    assert "Type the last 4 digits" in refused(cashier_actor, letter, "payout_id_digits", id_last_digits=typed)


def test_the_signature_and_the_id_type_are_required(letter, cashier_actor):
    assert "signs for receipt" in refused(cashier_actor, letter, "payout_signature", signature_acknowledged=False)
    assert "type of ID" in refused(cashier_actor, letter, "payout_id_type", id_type_seen="library_card")
    assert not Payout.objects.exists()


def test_a_forged_code_one_character_changed_is_refused(letter, cashier_actor):
    code = letter.code.upper()
    forged = code[:10] + ("A" if code[10] != "A" else "B") + code[11:]
    message = refused(cashier_actor, letter, "payout_code_invalid", scanned_code=forged)
    assert message.startswith(f"The code of letter {letter.number} is not valid: the letter was altered")
    assert not Payout.objects.exists()


def test_a_letter_altered_in_the_database_is_refused(letter, cashier_actor):
    PrizeLetter.objects.filter(pk=letter.pk).update(expires_at=EXPIRES_AT + dt.timedelta(days=30))
    letter.refresh_from_db()
    refused(cashier_actor, letter, "payout_code_invalid", scanned_code=None)


def test_the_wrong_property_is_refused(letter, user_for):
    elsewhere = Actor.for_user(user_for(CASH_DESK, properties=["MC"]))
    message = refused(elsewhere, letter, "other_property")
    assert message.startswith(f"Letter {letter.number} is paid where it was won. You work at Montecasino")


def test_a_cashier_without_a_property_pays_nowhere(letter, user_for):
    nowhere = Actor.for_user(user_for(CASH_DESK, properties=()))
    assert "Your login has no property yet" in refused(nowhere, letter, "other_property")


def test_a_voided_letter_is_refused_naming_its_replacement(letter, cashier_actor, user_for):
    manager = Actor.for_user(user_for(PROMOTIONS_MANAGER))
    new = letter_reissue(actor=manager, letter_id=letter.pk, reason="Lost by the winner")
    letter.refresh_from_db()
    message = refused(cashier_actor, letter, "payout_letter_voided", scanned_code=letter.code)
    assert message == f"Letter {letter.number} was voided: it is not paid. Its replacement is letter {new.number}."
    assert pay(cashier_actor, new)  # the replacement pays


def test_a_voided_letter_without_a_replacement(letter, cashier_actor, user_for):
    letter_void(actor=Actor.for_user(user_for(PROMOTIONS_MANAGER)), letter_id=letter.pk, reason="Issued in error")
    letter.refresh_from_db()
    assert refused(cashier_actor, letter, "payout_letter_voided") == (
        f"Letter {letter.number} was voided: it is not paid."
    )


def test_expiry_is_on_the_request_itself_at_the_last_second_and_the_first_after(letter, cashier_actor):
    # 23:59:59 of the last day: paid. 00:00:00 after it: refused, though the tick has not run.
    with time_machine.travel(EXPIRES_AT, tick=False):
        message = refused(cashier_actor, letter, "payout_letter_expired", now=EXPIRES_AT)
    assert message == f"Letter {letter.number} expired: the prize had to be collected by 30 Oct 2025."
    assert PrizeLetter.objects.get(pk=letter.pk).status == LetterStatus.ISSUED  # the tick's to store
    assert pay(cashier_actor, letter, now=LAST_MOMENT)


def test_an_expired_letter_the_tick_marked_is_refused(letter, cashier_actor):
    assert letters_expire(now=EXPIRES_AT) == 1
    letter.refresh_from_db()
    refused(cashier_actor, letter, "payout_letter_expired", now=EXPIRES_AT)


def test_a_group_the_letter_does_not_have_is_refused(letter, cashier_actor):
    assert refused(cashier_actor, letter, "payout_no_such_prize", "vehicle") == (
        f"Letter {letter.number} has no vehicle to pay."
    )
    refused(cashier_actor, letter, "payout_no_such_prize", "chips")


def test_a_line_corrected_after_the_letter_is_not_paid(won, letter, cashier_actor, manager_actor):
    cash_line = letter.lines.get(prize_line__kind="cash").prize_line
    prize_line_reverse(actor=manager_actor, line_id=cash_line.pk, reason="Wrong slot keyed")
    refused(cashier_actor, letter, "payout_no_such_prize", "cash")
    pay(cashier_actor, letter, "play")
    letter.refresh_from_db()
    assert letter.status == LetterStatus.PAID  # nothing left to pay


def test_a_refusal_writes_nothing(letter, cashier_actor):
    before = AuditEvent.objects.count()
    refused(cashier_actor, letter, "payout_signature", signature_acknowledged=False)
    assert AuditEvent.objects.count() == before and not Payout.objects.exists()
