"""The audit log's latest seal on the auditor's and the manager's start pages (issue 16, part 2):
the day, the digest in full (in groups of four), how many days are chained, and the days that
wait for theirs."""

import datetime as dt
import html
import re

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from core.audit_seal import seal_due
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from core.tests.test_audit_seal import D1, D3, after_midnight, event_at, local

pytestmark = pytest.mark.django_db


def start_page(user_for, role) -> str:
    client = Client()
    client.force_login(user_for(role))
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


@pytest.fixture
def sealed(reference_data):
    event_at(local(D1, 9))
    event_at(local(D3, 9))
    event_at(local(D3, 10))
    with after_midnight(D3):
        return seal_due()[-1]


@pytest.mark.parametrize("role", [AUDITOR, PROMOTIONS_MANAGER])
def test_the_latest_seal_is_on_the_start_page(user_for, sealed, role):
    with after_midnight(D3, minutes=30):
        content = start_page(user_for, role)
    section = content[content.index('id="audit-seal"') :].split("</section>")[0]
    words = " ".join(re.sub(r"<[^>]+>", "", section).split())
    assert "Sealed up to 03 Mar 2026: 3 days chained, 2 entries that day." in words
    groups = " ".join(sealed.digest[i : i + 4] for i in range(0, 64, 4))
    assert f'<code class="text-break" id="audit-seal-digest">{groups}</code>' in section
    assert "not sealed yet" not in section


def test_days_waiting_for_their_seal_are_said(user_for, sealed):
    with time_machine.travel(local(D3 + dt.timedelta(days=3), 9), tick=False):
        content = start_page(user_for, AUDITOR)
    assert "2 days since then not sealed yet." in content


def test_before_any_seal_the_page_says_so(user_for, reference_data):
    content = start_page(user_for, AUDITOR)
    assert "No day of the audit log is sealed yet" in content


@pytest.mark.parametrize("role", [REWARDS_DESK, CASH_DESK])
def test_the_desk_and_the_cash_desk_do_not_see_it(user_for, sealed, role):
    assert 'id="audit-seal"' not in start_page(user_for, role)


def test_just_after_midnight_yesterday_is_not_yet_overdue(user_for, sealed):
    with time_machine.travel(local(D3 + dt.timedelta(days=2), 0, 40), tick=False):
        assert "not sealed yet" not in start_page(user_for, AUDITOR)
    with time_machine.travel(local(D3 + dt.timedelta(days=2), 1, 5), tick=False):
        assert "1 day since then not sealed yet." in start_page(user_for, AUDITOR)


def test_a_database_that_cannot_seal_does_not_promise_a_seal(user_for, reference_data, monkeypatch):
    # make run's SQLite never seals (seal_due returns nothing there): the page says why.
    from config import home_data

    monkeypatch.setattr(home_data.connection, "vendor", "sqlite")
    content = start_page(user_for, AUDITOR)
    assert "cannot seal it; on PostgreSQL each day is sealed a few minutes after midnight." in content
