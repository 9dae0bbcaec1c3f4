"""Twenty desks sign the same passport up at the same moment (issue 6, 3.2): one card is
issued and every other desk reads "already a member", never a server error."""

import datetime as dt
import threading

import pytest
from django.db import IntegrityError, connection

from core.audit import Actor
from core.errors import DomainError
from members import services
from members.models import Member, Property

DESKS = 20
PASSPORT = "A9876543"


def race(desks: int = DESKS) -> list:
    """Run member_sign_up for the same person from `desks` threads, each on its own database
    connection, released together; the result or the exception of each."""
    home = Property.objects.get(code="GRC")
    barrier = threading.Barrier(desks)
    outcomes: list = [None] * desks

    def desk(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            outcomes[index] = services.member_sign_up(
                actor=Actor.system(f"desk-{index}"),
                first_name="Lindiwe",
                last_name="Dube",
                id_type="passport",
                id_number=PASSPORT,
                date_of_birth=dt.date(1991, 6, 1),
                home_property=home,
            )
        except Exception as error:  # every outcome, errors included, is asserted by the test
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=desk, args=(i,)) for i in range(desks)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


def assert_one_card_and_every_other_desk_told_already_a_member(outcomes: list) -> None:
    members = [o for o in outcomes if isinstance(o, Member)]
    refusals = [o for o in outcomes if isinstance(o, DomainError)]
    assert len(members) == 1, outcomes
    assert len(refusals) == DESKS - 1, [o for o in outcomes if not isinstance(o, Member | DomainError)]
    winner = Member.objects.get()
    expected = f"This person is already a member: card {winner.card_number} (Lindiwe Dube)."
    assert {(r.code, r.message) for r in refusals} == {("already_member", expected)}


@pytest.mark.django_db(transaction=True)
def test_every_desk_but_one_is_told_the_person_is_already_a_member(reference_data):
    assert_one_card_and_every_other_desk_told_already_a_member(race())


@pytest.mark.django_db(transaction=True)
def test_with_the_check_bypassed_the_database_still_refuses_every_duplicate_in_words(reference_data, monkeypatch):
    # Every desk now reaches the insert, as the losers of a real race do.
    monkeypatch.setattr(services, "_refuse_existing_member", lambda id_number: None)
    assert_one_card_and_every_other_desk_told_already_a_member(race())


@pytest.mark.django_db(transaction=True)
def test_control_without_the_translation_the_duplicates_are_database_errors(reference_data, monkeypatch):
    # Proves the race reaches the constraint: without the check and without turning the
    # IntegrityError into a refusal, the 19 losers fail as they did in the report (500s).
    monkeypatch.setattr(services, "_refuse_existing_member", lambda id_number: None)
    monkeypatch.setattr(services, "_member_insert", lambda member: member.save())
    outcomes = race()
    assert sum(isinstance(o, Member) for o in outcomes) == 1
    assert sum(isinstance(o, IntegrityError) for o in outcomes) == DESKS - 1
