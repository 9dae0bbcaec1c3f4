"""A prize letter's verification code: HMAC-SHA256 over its fields under the letter key, so a
letter changed in any one of them, or made up, fails (issue 15, items 4 and 11)."""

import datetime as dt
import hashlib
import hmac

import pytest
from django.db import connection
from django.test import override_settings

from core.audit import Actor
from core.roles import REWARDS_DESK
from prizes import letter_codes
from prizes.letter_models import PrizeLetter
from prizes.letter_services import letter_from_scan, letter_issue, letter_verify_code
from prizes.tests.letter_helpers import presented
from testing.db import triggers_off

UTC = dt.UTC
FIELDS = {
    "number": "GRC-25-000001",
    "card_number": "1000000017",
    "id_number": "8001015009087",
    "draw_id": 12,
    "lines": [(40, "cash", 500_000), (41, "play", 50_000)],
    "issued_at": dt.datetime(2025, 10, 16, 8, 0, tzinfo=UTC),
    "expires_at": dt.datetime(2025, 10, 30, 22, 0, tzinfo=UTC),
}
CHANGED = {
    "number": "GRC-25-000002",
    "card_number": "1000000025",
    "id_number": "8001015009095",
    "draw_id": 13,
    "lines": [(40, "cash", 5_000_000), (41, "play", 50_000)],
    "issued_at": dt.datetime(2025, 10, 16, 8, 0, 1, tzinfo=UTC),
    "expires_at": dt.datetime(2025, 11, 30, 22, 0, tzinfo=UTC),
}


def code(**changes) -> str:
    return letter_codes.sign(letter_codes.canonical_text(**(FIELDS | changes)))


@pytest.mark.parametrize("field", sorted(CHANGED))
def test_the_code_changes_when_any_one_field_changes(field):
    assert code(**{field: CHANGED[field]}) != code()


@pytest.mark.parametrize(
    "lines",
    [
        [(40, "vehicle", 500_000), (41, "play", 50_000)],  # another kind
        [(42, "cash", 500_000), (41, "play", 50_000)],  # another line
        [(40, "cash", 500_000)],  # a line left out
    ],
)
def test_the_code_covers_each_lines_id_kind_and_amount(lines):
    assert code(lines=lines) != code()


def test_the_code_is_the_hmac_of_the_canonical_text_under_the_letter_key():
    text = letter_codes.canonical_text(**FIELDS)
    assert text.splitlines()[:5] == ["PL1", "number=GRC-25-000001", "card=1000000017", "id=8001015009087", "draw=12"]
    with override_settings(PRIZE_LETTER_SECRET="another key"):
        other = code()
    assert other == hmac.new(b"another key", text.encode(), hashlib.sha256).hexdigest() != code()


def test_the_order_lines_are_given_in_does_not_matter():
    assert code(lines=list(reversed(FIELDS["lines"]))) == code()


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("PL1:GRC-25-000001:" + "AB" * 32, ("GRC-25-000001", "ab" * 32)),
        ("  pl1:grc-25-000001:" + "ab" * 32 + "\n", ("GRC-25-000001", "ab" * 32)),  # a scanner in lower case
        ("GRC-25-000001", ("GRC-25-000001", "")),  # keyed by hand
        ("grc-25-000001 ", ("GRC-25-000001", "")),
        ("PL1:GRC-25-000001:ABC", None),  # a code cut short
        ("1000000017", None),  # a card number
        ("", None),
    ],
)
def test_scanned_or_keyed_text_is_read(text, parsed):
    assert letter_codes.parse_scan(text) == parsed


# --- A stored letter ---------------------------------------------------------------------------


@pytest.fixture
def letter(won, user_for) -> PrizeLetter:
    _, first, _ = won
    return letter_issue(actor=Actor.for_user(user_for(REWARDS_DESK)), **presented(first))


def test_the_qr_text_is_short_and_in_the_qr_alphanumeric_set(letter):
    text = letter.qr_text()
    assert text == f"PL1:{letter.number}:{letter.code.upper()}"
    assert len(text) <= 90 and set(text) <= set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")


def test_a_scanned_letter_is_found_and_genuine(letter):
    assert letter_from_scan(letter.qr_text()) == (letter, True)
    assert letter_from_scan(letter.number) == (letter, True)


def test_a_forged_code_is_not_valid(letter):
    forged = f"PL1:{letter.number}:{'0' * 64}"
    assert letter_from_scan(forged) == (letter, False)


def test_an_unknown_number_names_no_letter(letter):
    assert letter_from_scan("GRC-25-999999") == (None, False)


def _drop_play_line(letter) -> None:
    # Letter lines are kept three years (records/migrations/0001_retention.py): only the owner,
    # with the row triggers off, can drop one.
    with triggers_off(), connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM prizes_letterline WHERE letter_id = %s"
            " AND prize_line_id IN (SELECT id FROM prizes_prizeline WHERE kind = 'play')",
            [letter.pk],
        )


@pytest.mark.parametrize(
    "change",
    [
        lambda letter: PrizeLetter.objects.filter(pk=letter.pk).update(
            expires_at=letter.expires_at + dt.timedelta(days=30)
        ),
        lambda letter: PrizeLetter.objects.filter(pk=letter.pk).update(number="GRC-25-000099"),
        lambda letter: letter.member.__class__.objects.filter(pk=letter.member_id).update(card_number="1999999999"),
        lambda letter: _drop_play_line(letter),
    ],
    ids=["expiry", "number", "card", "a line"],
)
def test_a_letter_altered_in_the_database_fails_its_code(letter, change):
    assert letter_verify_code(letter)
    change(letter)
    altered = PrizeLetter.objects.with_related().get(pk=letter.pk)
    assert not letter_verify_code(altered)
