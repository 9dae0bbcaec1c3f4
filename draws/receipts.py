"""Ticket receipts: the slip an 80 mm thermal printer prints after an activation, as an HTML
page (printed by the browser) and as a PDF (WeasyPrint). Both render draws/_receipt.html, so
they carry the same content: never the member's ID number."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.pdf import qr_svg, render_pdf
from draws.models import Activation

if TYPE_CHECKING:
    import weasyprint  # imported when a PDF is made (core/pdf.py)

# What a receipt shows, loaded with the activation in one query.
RECEIPT_RELATED = ("member", "draw", "draw__property", "draw__series__promotion")

# A roll has no page length and CSS has no "auto" page height, so the PDF is laid out on a long
# page that is then cut just below the content, as the printer's cutter would.
_ROLL_PAGE = "@page { size: 80mm 1000mm; margin: 3mm }"


def receipt_context(activation: Activation) -> dict:
    return {
        "activation": activation,
        "draw": activation.draw,
        "member": activation.member,
        "qr_svg": qr_svg(activation.receipt_number),
    }


def _cut_after_content(document: weasyprint.Document) -> None:
    if len(document.pages) != 1:
        return  # longer than a metre of paper: leave the pages as they are
    page = document.pages[0]
    page_box = page._page_box
    content_bottom = max(
        (child.position_y + child.margin_height() for child in page_box.children), default=page_box.margin_top
    )
    page.height = min(page.height, content_bottom + page_box.margin_bottom)


def receipt_pdf(activation: Activation) -> bytes:
    """The receipt as an 80 mm wide, one-page PDF, rendered without any network access."""
    return render_pdf(
        "draws/receipt_pdf.html",
        receipt_context(activation),
        css="css/receipt.css",
        extra_css=_ROLL_PAGE,
        adjust=_cut_after_content,
    )
