"""Ticket receipts: the slip an 80 mm thermal printer prints after an activation, as an HTML
page (printed by the browser) and as a PDF (WeasyPrint). Both render draws/_receipt.html, so
they carry the same content: never the member's ID number."""

from functools import cache

import segno
import weasyprint
from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from draws.models import Activation

# What a receipt shows, loaded with the activation in one query.
RECEIPT_RELATED = ("member", "draw", "draw__property", "draw__series__promotion")

# A roll has no page length and CSS has no "auto" page height, so the PDF is laid out on a long
# page that is then cut just below the content, as the printer's cutter would.
_ROLL_PAGE = "@page { size: 80mm 1000mm; margin: 3mm }"


def receipt_qr_svg(activation: Activation) -> SafeString:
    """The receipt number as a QR code (a full QR symbol, never Micro QR, which phones and most
    desk scanners cannot read), as inline SVG that scales to the CSS width."""
    qr = segno.make_qr(activation.receipt_number, error="m")
    # segno writes only path data for the modules: nothing from the input is echoed as markup.
    return mark_safe(qr.svg_inline(border=4, omitsize=True, svgclass="qr", lineclass="qr-line"))  # noqa: S308


def receipt_context(activation: Activation) -> dict:
    return {
        "activation": activation,
        "draw": activation.draw,
        "member": activation.member,
        "qr_svg": receipt_qr_svg(activation),
    }


@cache
def _stylesheets() -> tuple[weasyprint.CSS, ...]:
    path = finders.find("css/receipt.css")
    return (weasyprint.CSS(filename=path), weasyprint.CSS(string=_ROLL_PAGE))


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
    html = render_to_string("draws/receipt_pdf.html", receipt_context(activation))
    document = weasyprint.HTML(string=html, base_url=str(settings.BASE_DIR)).render(stylesheets=list(_stylesheets()))
    _cut_after_content(document)
    return document.write_pdf()
