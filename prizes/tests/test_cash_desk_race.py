"""Exactly once (issue 15, item 7): 50 cashiers pay the same letter at the same moment, each on
its own PostgreSQL connection: one payout is written and 49 are told "already paid", by whom and
when. The controls take away what makes it so: without the letter's row lock the unique line
still stops the doubles (the last line of defence), and without both every cashier pays.

Every thread waits, after its checks and before its insert, until all 50 have checked (or 3 s
have passed): the losers of a real race reach the insert the same way, only less often. With
the lock only one thread is past the checks at a time, so the wait times out once and the rest
queue behind the lock."""

import contextlib
import datetime as dt
import threading

import pytest
from django.db import connection

from conftest import make_user
from core.audit import Actor
from core.errors import DomainError
from core.roles import CASH_DESK
from draws.tests.test_engine_races import run_in_threads
from prizes import cash_desk
from prizes.letter_models import Payout, PrizeLetter
from prizes.letter_services import letter_issue
from prizes.tests.conftest import DRAW_AT
from prizes.tests.letter_helpers import desk_actor_for, presented
from testing.db import triggers_off

# 50 connections each: not rerun by make test's clock runs, whose two suites side by side would
# pass PostgreSQL's 100 connections (the payment time is pinned, so the hour cannot matter).
pytestmark = pytest.mark.slow

CASHIERS = 50
PAY_AT = DRAW_AT + dt.timedelta(days=1)


@pytest.fixture
def letter(won, user_for) -> PrizeLetter:
    _, first, _ = won
    return letter_issue(actor=desk_actor_for(user_for), **presented(first))


def race(letter: PrizeLetter, monkeypatch) -> list:
    cashiers = [Actor.for_user(make_user(CASH_DESK, properties=["GRC"])) for _ in range(CASHIERS)]
    all_checked = threading.Barrier(CASHIERS)
    real_id_refusal = cash_desk.id_refusal

    def check_then_wait(*args, **kwargs):
        refusal = real_id_refusal(*args, **kwargs)
        with contextlib.suppress(threading.BrokenBarrierError):
            all_checked.wait(timeout=3)
        return refusal

    monkeypatch.setattr(cash_desk, "id_refusal", check_then_wait)
    digits = letter.member.id_number[-4:]
    return run_in_threads(
        *[
            (
                lambda actor=actor: cash_desk.letter_pay(
                    actor=actor,
                    letter_id=letter.pk,
                    kind_group="cash",
                    id_type_seen="sa_id",
                    id_last_digits=digits,
                    signature_acknowledged=True,
                    scanned_code=letter.code,
                    now=PAY_AT,
                )
            )
            for actor in cashiers
        ]
    )


def assert_one_payout_and_49_told_already_paid(results, letter) -> None:
    paid = [r for r in results if isinstance(r, list)]
    refusals = [r for r in results if isinstance(r, DomainError)]
    assert len(paid) == 1 and len(paid[0]) == 1, [r for r in results if not isinstance(r, list | DomainError)]
    assert Payout.objects.filter(letter=letter).count() == 1
    payout = Payout.objects.get()
    expected = (
        f"The cash of letter {letter.number} is already paid: R 5,000.00 paid by {payout.paid_by} "
        "on Thu 16 Oct 2025 13:00."
    )
    assert len(refusals) == CASHIERS - 1
    assert {(r.code, r.message) for r in refusals} == {("payout_already_paid", expected)}


@pytest.mark.django_db(transaction=True)
def test_fifty_cashiers_at_once_pay_the_letter_once(letter, monkeypatch):
    assert_one_payout_and_49_told_already_paid(race(letter, monkeypatch), letter)


def _unlocked(letter_id: int) -> PrizeLetter:
    return PrizeLetter.objects.with_related().get(pk=letter_id)


@pytest.mark.django_db(transaction=True)
def test_without_the_lock_the_unique_line_still_pays_once(letter, monkeypatch):
    monkeypatch.setattr(cash_desk, "_lock_letter", _unlocked)
    assert_one_payout_and_49_told_already_paid(race(letter, monkeypatch), letter)


@pytest.fixture
def payout_line_not_unique(transactional_db):
    """Payout.prize_line without its unique constraint for one test; put back after (the rows
    the test wrote go first: they break it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT conname FROM pg_constraint WHERE conrelid = 'prizes_payout'::regclass AND contype = 'u'")
        [(name,)] = cursor.fetchall()
        cursor.execute(f'ALTER TABLE prizes_payout DROP CONSTRAINT "{name}"')
    try:
        yield
    finally:
        # Payouts are kept three years (records/migrations/0001_retention.py): removed with the
        # row triggers off, as the suite's superuser may.
        with triggers_off(), connection.cursor() as cursor:
            cursor.execute("DELETE FROM prizes_payout")
            cursor.execute(f'ALTER TABLE prizes_payout ADD CONSTRAINT "{name}" UNIQUE (prize_line_id)')


@pytest.mark.django_db(transaction=True)
def test_control_without_the_lock_and_the_unique_line_every_cashier_pays(letter, monkeypatch, payout_line_not_unique):
    monkeypatch.setattr(cash_desk, "_lock_letter", _unlocked)
    results = race(letter, monkeypatch)
    assert sum(isinstance(r, list) for r in results) == CASHIERS, [r for r in results if not isinstance(r, list)]
    assert Payout.objects.filter(letter=letter).count() == CASHIERS  # R 250,000 paid for R 5,000


@pytest.mark.django_db(transaction=True)
def test_control_with_the_lock_alone_the_letter_is_still_paid_once(letter, monkeypatch, payout_line_not_unique):
    # The lock by itself holds: the unique line is the second guard, not the one doing the work.
    results = race(letter, monkeypatch)
    assert sum(isinstance(r, list) for r in results) == 1
    assert Payout.objects.filter(letter=letter).count() == 1
