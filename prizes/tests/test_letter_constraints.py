"""PostgreSQL itself keeps the letters' invariants, whoever writes (issue 15, item 4): never two
live letters for one prize line, one live letter per winner, a line paid once. Each insert runs
AS THE APPLICATION'S DATABASE ROLE (core/tests/test_audit_role.py)."""

import pytest
from django.db import IntegrityError

from core.audit import Actor
from core.roles import REWARDS_DESK
from core.tests.test_audit_role import as_app_role
from prizes.letter_models import LetterLine, PrizeLetter
from prizes.letter_services import letter_issue
from prizes.tests.letter_helpers import presented

pytestmark = pytest.mark.django_db

LINE = "INSERT INTO prizes_letterline (letter_id, prize_line_id, live) VALUES (%s, %s, %s)"
LETTER = (
    "INSERT INTO prizes_prizeletter (number, draw_id, pick_id, member_id, property_id, collection_place, issued_at, "
    "issued_by, id_type_seen, expires_at, status, voided_by, void_reason, code, pdf, render_state, render_error) "
    "SELECT %s, draw_id, pick_id, member_id, property_id, collection_place, issued_at, 'sql', id_type_seen, "
    "expires_at, %s, '', '', code, '', 'pending', '' FROM prizes_prizeletter WHERE id = %s RETURNING id"
)
PAYOUT = (
    "INSERT INTO prizes_payout (prize_line_id, letter_id, property_id, kind, amount_cents, paid_at, paid_by, "
    '"where", id_type_seen, id_last_digits, signature_acknowledged, handed_over) '
    "VALUES (%s, %s, %s, 'cash', 500000, now(), 'sql', %s, 'sa_id', '9087', true, false)"
)


@pytest.fixture
def letter(won, user_for) -> PrizeLetter:
    _, first, _ = won
    return letter_issue(actor=Actor.for_user(user_for(REWARDS_DESK)), **presented(first))


def _second_letter(letter: PrizeLetter, status: str) -> int:
    with as_app_role() as cursor:
        cursor.execute(LETTER, ["GRC-25-000077", status, letter.pk])
        return cursor.fetchone()[0]


def test_a_second_live_letter_for_a_prize_line_is_refused(letter):
    line = letter.lines.first()
    other = _second_letter(letter, "expired")  # not live for the winner: only the line index stands
    with pytest.raises(IntegrityError, match="one_live_letter_per_line"), as_app_role() as cursor:
        cursor.execute(LINE, [other, line.prize_line_id, True])


def test_the_line_of_a_voided_letter_may_be_on_a_new_one(letter):
    line = letter.lines.first()
    LetterLine.objects.filter(letter=letter).update(live=False)  # as letter_void leaves it
    other = _second_letter(letter, "expired")
    with as_app_role() as cursor:
        cursor.execute(LINE, [other, line.prize_line_id, True])
    assert LetterLine.objects.filter(prize_line_id=line.prize_line_id, live=True).count() == 1


@pytest.mark.parametrize("status", ["issued", "paid"])
def test_a_second_live_letter_for_one_winner_is_refused(letter, status):
    with pytest.raises(IntegrityError, match="one_live_letter_per_winner"):
        _second_letter(letter, status)


def test_a_prize_line_is_paid_once_whatever_the_path(letter):
    line = letter.lines.first().prize_line
    with as_app_role() as cursor:
        cursor.execute(PAYOUT, [line.pk, letter.pk, letter.property_id, "cash_desk"])
    with pytest.raises(IntegrityError, match="prize_line_id"), as_app_role() as cursor:
        cursor.execute(PAYOUT, [line.pk, None, letter.property_id, "device"])


@pytest.mark.parametrize(("where", "with_letter"), [("cash_desk", False), ("device", True)])
def test_the_cash_desk_pays_against_a_letter_and_the_device_never(letter, where, with_letter):
    line = letter.lines.first().prize_line
    with pytest.raises(IntegrityError, match="payout_letter_by_place"), as_app_role() as cursor:
        cursor.execute(PAYOUT, [line.pk, letter.pk if with_letter else None, letter.property_id, where])
