"""The desk's letter pages (issue 15, item 4): each winner's letter on the draw's prizes and the
member page, the issue form (card swipe and ID), the letter page, a manager's void or reissue,
a prize paid at the device."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.roles import CASH_DESK, REWARDS_DESK
from prizes.letter_models import Payout, PrizeLetter
from prizes.letter_services import letter_issue
from prizes.tests.letter_helpers import EXPIRES_AT, presented

pytestmark = pytest.mark.django_db


def page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def letter(won, user_for) -> PrizeLetter:
    _, first, _ = won
    return letter_issue(actor=Actor.for_user(user_for(REWARDS_DESK)), **presented(first))


def test_the_desk_sees_issue_letter_only_for_a_winner_with_money_to_collect(won, desk):
    draw, first, second = won
    html = page(desk, reverse("prizes:draw", args=[draw.pk]))
    assert reverse("prizes:letter_issue", args=[first.pk]) in html
    assert reverse("prizes:letter_issue", args=[second.pk]) not in html
    assert "no prize of" in html  # the place-only winner: the reason in its place


def test_a_manager_reads_the_letters_but_is_not_offered_to_issue(won, manager):
    draw, first, _ = won
    assert reverse("prizes:letter_issue", args=[first.pk]) not in page(manager, reverse("prizes:draw", args=[draw.pk]))


def test_the_desk_issues_with_a_swiped_card_and_the_id(won, desk):
    _, first, _ = won
    swipe = (
        f"%B{first.member.card_number}^{first.member.last_name.upper()}/THANDI^2812?;{first.member.card_number}=2812?"
    )
    response = desk.post(
        reverse("prizes:letter_issue", args=[first.pk]),
        {"card": swipe, "id_type_seen": "sa_id", "id_number": first.member.id_number},
    )
    letter = PrizeLetter.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("prizes:letter", args=[letter.pk])
    html = page(desk, response["Location"])
    assert letter.number in html and "R 5,000.00" in html and "R 500.00" in html and letter.code in html
    assert "Genuine" in html and "30 Oct 2025" in html
    assert first.member.last_name.upper() not in html  # the stripe's name is never echoed


def test_a_wrong_id_is_refused_on_the_form(won, desk):
    _, first, _ = won
    response = desk.post(
        reverse("prizes:letter_issue", args=[first.pk]),
        {"card": first.member.card_number, "id_type_seen": "passport", "id_number": "A1234567"},
    )
    assert response.status_code == 200 and "the letter is issued only to the winner" in response.content.decode()
    assert not PrizeLetter.objects.exists()


def test_a_second_issue_is_refused_with_the_first_letter_named(letter, desk):
    response = desk.get(reverse("prizes:letter_issue", args=[letter.pick_id]))
    assert f"already has letter {letter.number}" in response.content.decode()
    assert 'id="issue-form"' not in response.content.decode()


def test_the_letter_page_says_expired_on_the_request_itself(letter, client_for):
    url = reverse("prizes:letter", args=[letter.pk])
    with time_machine.travel(EXPIRES_AT - dt.timedelta(seconds=1), tick=False):
        assert "1 day left" not in page(client_for(CASH_DESK), url)
        assert "Last day today" in page(client_for(CASH_DESK), url)
    with time_machine.travel(EXPIRES_AT, tick=False):
        html = page(client_for(CASH_DESK), url)
    assert "Expired" in html and "not collected by 30 Oct 2025" in html
    assert PrizeLetter.objects.get(pk=letter.pk).status == "issued"  # no tick ran: the page knew anyway


def test_an_altered_letter_is_flagged_on_its_page(letter, auditor):
    PrizeLetter.objects.filter(pk=letter.pk).update(expires_at=letter.expires_at.replace(year=2026))
    assert 'id="code-invalid"' in page(auditor, reverse("prizes:letter", args=[letter.pk]))


def test_a_manager_reissues_with_a_reason(letter, manager):
    url = reverse("prizes:letter_void", args=[letter.pk])
    response = manager.post(url, {"action": "reissue", "reason": ""})
    assert response.status_code == 200 and "Say why" in response.content.decode()
    response = manager.post(url, {"action": "reissue", "reason": "The winner lost it"})
    new = PrizeLetter.objects.get(replaces=letter)
    assert response["Location"] == reverse("prizes:letter", args=[new.pk])
    html = page(manager, reverse("prizes:letter", args=[letter.pk]))
    assert "Voided" in html and "The winner lost it" in html and new.number in html


def test_the_void_form_says_why_not_for_a_voided_letter(letter, manager):
    manager.post(reverse("prizes:letter_void", args=[letter.pk]), {"action": "void", "reason": "Wrong winner"})
    html = page(manager, reverse("prizes:letter_void", args=[letter.pk]))
    assert "already voided" in html and "<textarea" not in html


def test_the_member_page_shows_the_win_and_its_letter(letter, desk, cashier):
    url = reverse("members:detail", args=[letter.member_id])
    for client in (desk, cashier):
        html = page(client, url)
        assert 'id="member-prizes"' in html and letter.number in html and "R 5,000.00" in html


def test_the_member_page_offers_the_desk_to_issue(won, desk, cashier):
    _, first, _ = won
    issue_url = reverse("prizes:letter_issue", args=[first.pk])
    assert issue_url in page(desk, reverse("members:detail", args=[first.member_id]))
    assert issue_url not in page(cashier, reverse("members:detail", args=[first.member_id]))


def test_a_prize_paid_at_the_device_is_recorded_from_the_prize_record(won, manager):
    draw, first, _ = won
    draw.series.paid_at_device = True
    draw.series.save()
    line = first.prize_lines.get(kind="cash")
    html = page(manager, reverse("prizes:draw", args=[draw.pk]))
    assert reverse("prizes:device_payout", args=[line.pk]) in html
    assert "Issue letter" not in html
    manager.post(reverse("prizes:device_payout", args=[line.pk]))
    assert Payout.objects.get(prize_line=line).where == "device"
    html = page(manager, reverse("prizes:draw", args=[draw.pk]))
    assert f'id="paid-{line.pk}"' in html and reverse("prizes:device_payout", args=[line.pk]) not in html
