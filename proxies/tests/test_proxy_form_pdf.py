"""The proxy form: an A4 PDF both parties sign, with the promotion's proxy clauses."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from proxies.models import ProxyNomination
from proxies.pdf import proxy_clauses, proxy_form_pdf
from proxies.services import proxy_nominate
from proxies.tests.factories import desk_actor, nominee_for
from testing.pdf import pdf_fonts, pdf_pages, pdf_text

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2026, 11, 30, 5, 30, tzinfo=SAST)
A4 = (595, 842)  # points, rounded

RULES = """FAST LANE TO FORTUNE

10. Tickets are activated at the kiosks.
11. Proxy nominations will be available from 08h00 until the start of the draw at the
Tsogo Sun Rewards Desk.
12. Winners are announced on the gaming floor.

112. Authorized representatives shall not be entitled to any prizes.
113. Authorized representatives (Proxies) cannot participate in the same draw.
114. A participant may nominate another person.
"""


def test_it_extracts_the_numbered_clauses_on_proxies_nominees_and_representatives():
    assert proxy_clauses(RULES) == [
        "11. Proxy nominations will be available from 08h00 until the start of the draw at the Tsogo Sun Rewards Desk.",
        "112. Authorized representatives shall not be entitled to any prizes.",
        "113. Authorized representatives (Proxies) cannot participate in the same draw.",
        "114. A participant may nominate another person.",
    ]


def test_it_extracts_nothing_from_rules_without_proxy_clauses():
    assert proxy_clauses("1. Tickets are free.\n2. Winners are announced.\n") == []


@pytest.fixture
def batch(reference_data):
    """One participant's proxy for two draws of one day (07:00 and 09:00), registered at 05:30."""
    with time_machine.travel(NOW, tick=False):
        series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
        series.proxies_open = dt.time(0, 0)  # so the 07:00 draw's proxy window is open at 05:30
        series.save()
        series.promotion.rules_text = RULES
        series.promotion.save()
        draws = [make_draw(series, NOW.replace(hour=h, minute=0)) for h in (7, 9)]
        participant = MemberFactory(
            card_number="7100000001", first_name="Sipho", last_name="Dlamini", id_number="8001015009087"
        )
        PointsEntryFactory(member=participant, points=500, earned_at=NOW - dt.timedelta(days=1))
        for draw in draws:
            activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number="7100000001", channel="ehost")
        return proxy_nominate(
            actor=desk_actor(),
            participant=participant,
            draw_ids=[d.pk for d in draws],
            nominee=nominee_for(name="Lerato Khumalo"),
            participant_id_seen=True,
            nominee_id_seen=True,
            form_signed=True,
        )


def test_the_form_holds_both_parties_masked_ids_the_draws_and_the_proxy_clauses(batch):
    pdf = proxy_form_pdf(batch[0])
    flat, pages = pdf_text(pdf, flat=True), pdf_pages(pdf)
    assert "Sipho Dlamini" in flat and "7100000001" in flat
    assert "Lerato Khumalo" in flat and "+27821234567" in flat
    assert "*********9087" in flat and "8001015009087" not in flat
    nominee_id = batch[0].nominee_id_number
    assert "*********" + nominee_id[-4:] in flat and nominee_id not in flat
    # One form for the batch: both draws, in Johannesburg time.
    assert "Mon 30 Nov 2026 07:00" in flat and "Mon 30 Nov 2026 09:00" in flat
    assert "Authorized representatives (Proxies) cannot participate in the same draw." in flat
    assert "Winners are announced on the gaming floor" not in flat
    assert "Test promotion" in flat
    assert [tuple(round(float(x)) for x in page.mediabox[2:]) for page in pages] == [A4]
    assert pdf_fonts(pdf) <= {"Desk-Sans", "Desk-Sans-Bold"}  # static/css/pdf_fonts.css


def test_the_desk_reprints_the_form_later_even_once_revoked(desk, batch):
    nomination = ProxyNomination.objects.get(pk=batch[1].pk)
    nomination.revoked_at, nomination.revoke_reason = NOW, "Participant is here after all."
    nomination.save()
    response = desk.get(reverse("proxies:nomination_pdf", args=[nomination.pk]))
    assert response["Content-Type"] == "application/pdf"
    flat = pdf_text(response.content, flat=True)
    assert "Lerato Khumalo" in flat and "Participant is here after all." in flat
