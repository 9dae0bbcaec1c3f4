"""PDFs from templates: receipts, the draw certificate, proxy forms and prize letters.

    render_pdf("prizes/letter.html", context, css="css/letter.css")

WeasyPrint renders the template with the project's fonts (static/css/pdf_fonts.css, first under
the document's own sheets) and without network access: a PDF is printed at the desk, and a slow
or hostile address in a template must never stall or leak from the render.

The fonts and the named stylesheets are parsed once per thread and kept (outside DEBUG, where an
edited sheet must show at once): parsing them was a third of a letter's render (bench/letters.py),
and Pango's font maps are not shared between threads, so each thread keeps its own.

WeasyPrint is imported when the first PDF is made, not with this module: loading it (cffi
opening Pango and HarfBuzz) was the largest part of every process's start, and the web, worker
and command processes that print no PDF import this module through templates and views."""

from __future__ import annotations

import atexit
import functools
import logging
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import segno
from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from segno import encoder as segno_encoder

if TYPE_CHECKING:
    import weasyprint
    from weasyprint.text.fonts import FontConfiguration

logger = logging.getLogger(__name__)

FONTS_CSS = "css/pdf_fonts.css"
# Files (the project's static files, the system's fonts named by local()) and inline data only.
LOCAL_SCHEMES = ("file", "data")


@functools.cache
def _offline_fetcher_class() -> type:
    """OfflineFetcher, defined once WeasyPrint is loaded."""
    from weasyprint.urls import URLFetcher

    class OfflineFetcher(URLFetcher):
        """WeasyPrint's fetcher for everything a PDF loads, refusing anything off this machine."""

        def fetch(self, url, headers=None):
            scheme = url.split(":", 1)[0].lower()
            if scheme not in LOCAL_SCHEMES:
                logger.warning("Refused to fetch %s: PDFs are rendered without network access", url)
                raise ValueError(f"PDFs are rendered without network access: {url}")
            return super().fetch(url, headers)

    return OfflineFetcher


def _static_path(name: str) -> str:
    path = finders.find(name)
    if not path:
        raise FileNotFoundError(f"No static file {name} for a PDF")
    return path


_per_thread = threading.local()


def _fetcher():
    """This thread's fetcher, kept like the sheets: making one (urllib's opener and its nine
    handlers) took 0.4 ms of each render, and a fetch keeps nothing between two renders."""
    fetcher = getattr(_per_thread, "fetcher", None)
    if fetcher is None:
        fetcher = _per_thread.fetcher = _offline_fetcher_class()()
    return fetcher


def _stylesheets(names: tuple[str, ...]) -> tuple[FontConfiguration, list[weasyprint.CSS]]:
    """The font configuration and the parsed sheets `names`, kept per thread (not under DEBUG)."""
    kept = getattr(_per_thread, "sheets", None)
    if kept is None:
        kept = _per_thread.sheets = {}
        # Let go of the fonts while WeasyPrint is still loaded: a FontConfiguration removes its
        # temporary folder when deleted, which fails once the interpreter has unloaded WeasyPrint
        # (imported after this module, it is unloaded first).
        atexit.register(kept.clear)
    if names in kept and not settings.DEBUG:
        return kept[names]
    import weasyprint
    from weasyprint.text.fonts import FontConfiguration

    fetcher = _fetcher()
    fonts = FontConfiguration()
    sheets = [weasyprint.CSS(filename=_static_path(n), url_fetcher=fetcher, font_config=fonts) for n in names]
    kept[names] = (fonts, sheets)
    return fonts, sheets


def render_pdf(
    template: str,
    context: dict,
    *,
    css: str | Iterable[str] = (),
    extra_css: str = "",
    adjust: Callable[[weasyprint.Document], None] | None = None,
) -> bytes:
    """The template as a PDF. css: the document's stylesheet(s), static paths ("css/letter.css");
    extra_css: rules that only this PDF needs (a receipt's roll page); adjust: a last change to the
    laid-out document before it is written (the receipt is cut after its content)."""
    import weasyprint

    html = render_to_string(template, context)
    fetcher = _fetcher()
    fonts, stylesheets = _stylesheets((FONTS_CSS, *([css] if isinstance(css, str) else css)))
    stylesheets = list(stylesheets)
    if extra_css:
        stylesheets.append(weasyprint.CSS(string=extra_css, url_fetcher=fetcher, font_config=fonts))
    document = weasyprint.HTML(string=html, base_url=str(settings.BASE_DIR), url_fetcher=fetcher).render(
        stylesheets=stylesheets, font_config=fonts
    )
    if adjust:
        adjust(document)
    return document.write_pdf()


def qr_svg(text: str) -> SafeString:
    """The text as a QR code (a full QR symbol, never Micro QR, which phones and most desk
    scanners cannot read), as inline SVG that scales to the CSS width of its "qr" class."""
    qr = segno.QRCode(_qr_code(text))
    # segno writes only path data for the modules: nothing from the input is echoed as markup.
    return mark_safe(qr.svg_inline(border=4, omitsize=True, svgclass="qr", lineclass="qr-line"))  # noqa: S308


# --- The QR's data mask, chosen faster ------------------------------------------------------
# segno tries the 8 data masks a module at a time in Python: 3 ms of a letter's PDF, the largest
# part of what the service adds to WeasyPrint after the database (bench/letters.py). Here segno
# encodes once with mask 0; the mask is then chosen by ISO 18004's penalties (7.8.3) scored as
# segno scores them, on rows held as integers of one byte a module (0.3 ms for the 8), and the
# data region masked again. The symbol is segno's own, byte for byte (core/tests/test_pdf.py).

_N3_PATTERN = bytes((1, 0, 1, 1, 1, 0, 1))  # dark-light-dark-dark-dark-light-dark (1:1:3:1:1)


@functools.cache
def _qr_layout(width: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """For a symbol `width` modules wide, rows as byte-wide integers: the modules outside the
    data region as the mask search sees them (format and version areas still light), the data
    region, and the 8 data masks within it. From segno's own layout helpers and mask functions."""
    layout = segno_encoder.make_matrix(width, width)
    segno_encoder.add_finder_patterns(layout, width, width)
    segno_encoder.add_alignment_patterns(layout, width, width)
    in_data = [[value > 1 for value in row] for row in layout]  # 0x2: not a function pattern

    def row_int(values) -> int:
        return int.from_bytes(bytes(values))

    fixed = tuple(row_int(0 if value > 1 else value for value in row) for row in layout)
    regions = tuple(row_int(in_data[i]) for i in range(width))
    masks = tuple(
        tuple(row_int(in_data[i][j] and bool(mask(i, j)) for j in range(width)) for i in range(width))
        for mask in segno_encoder.get_data_mask_functions(False)
    )
    return fixed, regions, masks


def _n3_penalty(line: bytes, size: int) -> int:
    """40 for each finder-like pattern with 4 light modules on one side (segno's own reading)."""
    penalty = 0
    at = line.find(_N3_PATTERN)
    while at != -1:
        after = at + 7
        if at in (0, size - 7) or not any(line[max(at - 4, 0) : at]) or not any(line[after : after + 4]):
            penalty += 40
        else:
            after = at + 4
        at = line.find(_N3_PATTERN, after)
    return penalty


def _qr_penalty(rows: list[int], width: int) -> int:
    """ISO 18004 7.8.3's penalty (N1 runs, N2 blocks, N3 finder-like patterns, N4 balance) of
    a masked symbol given as byte-wide rows; bit tricks over whole rows and columns at once."""
    ones = int.from_bytes(b"\x01" * width)
    pairs = ones >> 8  # the width - 1 places where a module has a right-hand neighbour
    runs = blocks = finders = dark = 0
    same_below = []  # per row: which modules equal the one below
    for i, row in enumerate(rows):
        dark += row.bit_count()
        same_right = (row ^ (row >> 8) ^ ones) & pairs
        # A run of n >= 5 is n - 4 windows of five and scores n - 2: windows + 2 a run.
        five = same_right & (same_right >> 8) & (same_right >> 16) & (same_right >> 24)
        runs += five.bit_count() + 2 * (five & ((five >> 8) ^ ones)).bit_count()
        if i:
            same = rows[i - 1] ^ row ^ ones
            blocks += 3 * (same & (same >> 8) & same_right).bit_count()
            same_below.append(same)
    above = 0
    for i in range(width - 4):
        five = same_below[i] & same_below[i + 1] & same_below[i + 2] & same_below[i + 3]
        runs += five.bit_count() + 2 * (five & (above ^ ones)).bit_count()
        above = five
    lines = [row.to_bytes(width) for row in rows]
    finders = sum(_n3_penalty(line, width) for line in lines)
    finders += sum(_n3_penalty(bytes(column), width) for column in zip(*lines, strict=True))
    balance = 10 * int(abs(float(dark) / (width**2) * 100 - 50) / 5)
    return runs + blocks + finders + balance


def _qr_code(text: str) -> segno_encoder.Code:
    """segno's code of the text at error level M (raised when it fits), with the data mask of
    the lowest penalty (the first of equals), as segno.make_qr(text, error="m") makes it."""
    code = segno_encoder.encode(text, "m", mask=0, micro=False)
    width = len(code.matrix)
    fixed, regions, masks = _qr_layout(width)
    # The data modules unmasked; the function patterns as they are.
    data = [int.from_bytes(row) ^ masks[0][i] for i, row in enumerate(code.matrix)]
    best, lowest = 0, None
    for number, mask in enumerate(masks):
        penalty = _qr_penalty([fixed[i] | ((data[i] ^ mask[i]) & regions[i]) for i in range(width)], width)
        if lowest is None or penalty < lowest:
            best, lowest = number, penalty
    if best == 0:
        return code
    matrix = tuple(bytearray((data[i] ^ masks[best][i]).to_bytes(width)) for i in range(width))
    segno_encoder.add_format_info(matrix, code.version, code.error, best)
    return code._replace(matrix=matrix, mask=best)
