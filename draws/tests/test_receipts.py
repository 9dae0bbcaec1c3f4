import datetime as dt
import html
import re

import pytest
import segno
from django.contrib.staticfiles import finders
from django.urls import reverse

from core.audit import Actor
from draws.models import Channel
from draws.receipts import receipt_pdf
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from testing.pdf import pdf_fonts, pdf_pages, pdf_text

pytestmark = pytest.mark.django_db

DASH = "\N{EN DASH}"  # between the first and last of a range, as the pages print it
SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
MM = 72 / 25.4  # PDF points per millimetre


@pytest.fixture
def activation(reference_data):
    draw = make_draw(make_series(points_per_ticket=100), DRAW_AT)
    # Someone else's tickets first, so the receipt's range does not start at 1.
    for card, points in (("4000000009", 1200), ("4000000001", 730)):
        member = MemberFactory(
            card_number=card, first_name="Naledi", last_name=f"Mokoena-{card[-1]}", tier=reference_data["tiers"]["ACE"]
        )
        PointsEntryFactory(member=member, points=points, earned_at=DRAW_AT - dt.timedelta(days=1))
        activation = activation_create(
            actor=Actor.system("test"),
            draw_id=draw.pk,
            card_number=card,
            channel=Channel.DESK,
            now=DRAW_AT - dt.timedelta(hours=2),
        )
    return activation  # serials 13-19 of the draw, for Naledi Mokoena-1


def dark_modules(svg: str) -> set[tuple[int, int]]:
    """The dark modules drawn by segno's SVG path: "M x y", then "h n" (n dark modules to the
    right) and "m dx dy" (a relative move); each line runs through the middle of its row."""
    path = re.search(r'\sd="([^"]+)"', svg).group(1)
    x = y = 0.0
    dark = set()
    for command, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:\s(-?[\d.]+))?", path.replace(" h", "h")):
        if command == "M":
            x, y = float(a), float(b)
        elif command == "m":
            x, y = x + float(a), y + float(b)
        else:
            dark.update((int(x) + i, int(y)) for i in range(int(float(a))))
            x += float(a)
    return dark


def test_the_receipt_page_has_everything_on_the_slip_but_the_id_number(desk, activation):
    response = desk.get(reverse("draws:receipt", args=[activation.pk]))
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    for expected in (
        "Gold Reef City",
        "Test promotion",
        activation.draw.name,
        "Wed 15 Oct 2025 13:00",
        "Naledi Mokoena-1",
        "4000000001",
        f"13 {DASH} 19",
        "7 tickets",
        activation.receipt_number,
        "15 Oct 2025 11:00:00",
        "VIP / Rewards desk",
        "Valid for this draw only",
        "css/receipt.css",
        "js/receipt.js",  # the Print button's behaviour (an inline onclick would break the CSP)
        'id="print-receipt"',
    ):
        assert expected in page, expected
    assert activation.member.id_number not in page
    assert activation.member.id_number[-6:] not in page


def test_the_qr_code_on_the_receipt_encodes_the_receipt_number(desk, activation):
    page = desk.get(reverse("draws:receipt", args=[activation.pk])).content.decode()
    svg = re.search(r"<svg.*?</svg>", page, re.S).group(0)
    qr = segno.make_qr(activation.receipt_number, error="m")
    assert not qr.is_micro  # phones and desk scanners read full QR codes
    border = 4
    expected = {(x + border, y + border) for y, row in enumerate(qr.matrix) for x, dark in enumerate(row) if dark}
    assert dark_modules(svg) == expected


def test_the_receipt_pdf_is_80_mm_wide_with_the_serials_receipt_number_and_member(auditor, activation):
    response = auditor.get(reverse("draws:receipt_pdf", args=[activation.pk]))

    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    text, pages = pdf_text(response.content), pdf_pages(response.content)
    assert len(pages) == 1
    width_mm = float(pages[0].mediabox.width) / MM
    height_mm = float(pages[0].mediabox.height) / MM
    assert abs(width_mm - 80) <= 1
    assert 60 < height_mm < 200  # cut after the content, not an A4 length of paper
    assert f"13 {DASH} 19" in text
    assert activation.receipt_number in text
    assert "Naledi Mokoena-1" in text
    assert "Valid for this draw only".upper() in text.upper()
    assert activation.member.id_number not in text
    assert pdf_fonts(response.content) == {"Desk-Mono", "Desk-Mono-Bold"}  # static/css/pdf_fonts.css


def test_the_receipt_pdf_renders_without_a_request(activation):
    text = pdf_text(receipt_pdf(activation))
    assert activation.receipt_number in text


def test_the_receipt_stylesheet_prints_on_80_mm_paper():
    with open(finders.find("css/receipt.css"), encoding="utf-8") as css:
        stylesheet = css.read()
    assert "@media print" in stylesheet
    assert "@page { size: 80mm auto; margin: 3mm }" in stylesheet


def test_a_receipt_needs_the_view_activation_permission(cashier, activation):
    assert cashier.get(reverse("draws:receipt", args=[activation.pk])).status_code == 403
    assert cashier.get(reverse("draws:receipt_pdf", args=[activation.pk])).status_code == 403
