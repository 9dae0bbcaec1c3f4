"""The cash desk's pages (issue 15, items 6 and 9): a scan or a keyed number finds the letter,
one form per group pays it, refusals are said in words, the start page shows today's payouts
and the letters about to expire."""

import datetime as dt

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from conftest import make_user
from core.roles import CASH_DESK, REWARDS_DESK
from prizes.letter_models import Payout, PrizeLetter
from prizes.letter_services import letter_issue
from prizes.tests.conftest import DRAW_AT
from prizes.tests.letter_helpers import EXPIRES_AT, desk_actor_for, presented

pytestmark = pytest.mark.django_db

PAY_AT = DRAW_AT + dt.timedelta(days=1)


@pytest.fixture
def letter(won, user_for) -> PrizeLetter:
    _, first, _ = won
    return letter_issue(actor=desk_actor_for(user_for), **presented(first))


def signed_in(role: str, **kwargs) -> Client:
    """A client signed in now (a session signed in days before, on the pinned clock, has timed out)."""
    client = Client()
    client.force_login(make_user(role, **kwargs))
    return client


@pytest.fixture
def till(reference_data) -> Client:
    """A cashier at Gold Reef City, the clock a day after the draw."""
    with time_machine.travel(PAY_AT, tick=False):
        yield signed_in(CASH_DESK, properties=["GRC"])


def scan(client, text: str):
    return client.get(reverse("prizes:cash_desk"), {"scan": text})


def html(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


def pay(client, letter, group="cash", **overrides):
    data = {
        "group": group,
        "code": letter.code.upper(),
        f"{group}-id_type_seen": "sa_id",
        f"{group}-id_last_digits": letter.member.id_number[-4:],
        f"{group}-signed": "on",
        **overrides,
    }
    return client.post(reverse("prizes:cash_desk_pay", args=[letter.pk]), data)


def test_a_scan_opens_the_letter_with_the_winner_and_the_lines(letter, till):
    response = scan(till, letter.qr_text())
    assert response.status_code == 302
    page = html(till.get(response["Location"]))
    member = letter.member
    assert letter.number in page and member.full_name in page and "R 5,000.00" in page and "R 500.00" in page
    assert member.id_number[:2] + "*" * (len(member.id_number) - 2) in page
    assert member.id_number[-4:] not in page.split('id="id-hint"')[1].split("</span>")[0]  # never shown: typed
    assert 'id="pay-cash"' in page and 'id="pay-play"' in page and 'id="pay-vehicle"' not in page
    assert 'inputmode="numeric"' in page and "The winner signed for receipt" in page


def test_a_keyed_letter_number_opens_it_too(letter, till):
    response = scan(till, letter.number.lower())
    assert response["Location"] == reverse("prizes:cash_desk_letter", args=[letter.pk])


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("hello", "QR code nor a letter number"),
        ("GRC-25-999999", "There is no prize letter GRC-25-999999"),
        # A card swiped into the field: the stripe is scrubbed to its card number (core middleware).
        ("%B6000000001^DLAMINI/THANDI^2812?", "QR code nor a letter number"),
    ],
)
def test_what_is_not_a_letter_is_said_in_words(letter, till, text, words):
    response = scan(till, text)
    page = html(till.get(response["Location"]) if response.status_code == 302 else response)
    assert words in page and "DLAMINI" not in page


def test_paying_says_what_was_paid_and_the_scan_field_is_ready(letter, till):
    response = pay(till, letter, "cash")
    assert response.status_code == 302
    page = html(till.get(response["Location"]))
    assert f"Paid: the cash of letter {letter.number} (R 5,000.00) to {letter.member.full_name}" in page
    assert 'id="scan"' in page and page.index("autofocus") < page.index('id="letter-lines"')  # the scan field
    assert 'id="pay-cash"' not in page and 'id="pay-play"' in page
    assert "already paid" in page.split('id="refusal-cash"')[1].split("</p>")[0]
    payout = Payout.objects.get()
    assert (payout.kind, payout.paid_at, payout.signature_acknowledged) == ("cash", PAY_AT, True)


def test_a_refusal_is_said_on_the_page_and_nothing_is_paid(letter, till):
    page = html(
        pay(
            till,
            letter,
            "cash",
            **{"cash-id_last_digits": "0000" if letter.member.id_number[-4:] != "0000" else "1111"},
        )
    )
    assert "is not" in page and "the prize is paid only to the winner, in person" in page
    assert not Payout.objects.exists()


def test_a_second_scan_of_a_paid_letter_says_who_paid(letter, till):
    pay(till, letter, "cash")
    pay(till, letter, "play")
    page = html(till.get(scan(till, letter.qr_text())["Location"]))
    refusal = page.split('id="pay-refusal"')[1].split("</div>")[0]
    assert f"Letter {letter.number} is already paid." in refusal and "Last paid by" in refusal
    assert reverse("prizes:cash_desk_pay", args=[letter.pk]) not in page


def test_a_forged_code_shows_no_form(letter, till):
    code = letter.code.upper()
    forged = f"PL1:{letter.number}:{code[:-1]}{'0' if code[-1] != '0' else '1'}"
    page = html(till.get(scan(till, forged)["Location"]))
    assert "is not valid: the letter was altered" in page and 'id="pay-cash"' not in page
    # Posting anyway with the forged code is refused by the service.
    assert "is not valid" in html(pay(till, letter, "cash", code=forged.split(":")[2]))
    assert not Payout.objects.exists()


def test_an_expired_letter_is_refused_on_the_page(letter, till):
    with time_machine.travel(EXPIRES_AT, tick=False):
        till.force_login(make_user(CASH_DESK, properties=["GRC"]))
        page = html(till.get(reverse("prizes:cash_desk_letter", args=[letter.pk])))
    assert "expired: the prize had to be collected by 30 Oct 2025" in page and 'id="pay-cash"' not in page


def test_the_desk_reads_the_letter_but_pays_nothing(letter):
    with time_machine.travel(PAY_AT, tick=False):
        desk = signed_in(REWARDS_DESK)
        page = html(desk.get(reverse("prizes:cash_desk_letter", args=[letter.pk])))
        assert letter.member.full_name in page and 'id="pay-cash"' not in page
        assert pay(desk, letter).status_code == 403


def test_the_start_page_shows_todays_payouts_and_letters_expiring(letter, till, won, user_for):
    page = html(till.get(reverse("prizes:cash_desk")))
    assert "Nothing paid here today yet" in page and 'id="letters-expiring"' not in page
    with time_machine.travel(EXPIRES_AT - dt.timedelta(days=4, seconds=1), tick=False):  # 26 Oct, 23:59:59
        till.force_login(make_user(CASH_DESK, properties=["GRC"]))
        page = html(till.get(reverse("prizes:cash_desk")))
    assert 'id="letters-expiring"' not in page  # 4 days left
    with time_machine.travel(EXPIRES_AT - dt.timedelta(days=4), tick=False):  # 27 Oct, 00:00: the last day is 30 Oct
        pay(till, letter, "cash")
        page = html(till.get(reverse("prizes:cash_desk")))
    expiring = page.split('id="letters-expiring"')[1].split("</ul>")[0]
    assert letter.number in expiring and "3 days left" in expiring
    today = page.split('id="payouts-today"')[1].split("</table>")[0]
    assert letter.number in today and "R 5,000.00" in today and 'id="paid-total"' in today
