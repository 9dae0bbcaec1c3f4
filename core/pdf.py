"""PDFs from templates: receipts, the draw certificate, proxy forms and prize letters.

    render_pdf("prizes/letter.html", context, css="css/letter.css")

WeasyPrint renders the template with the project's fonts (static/css/pdf_fonts.css, first under
the document's own sheets) and without network access: a PDF is printed at the desk, and a slow
or hostile address in a template must never stall or leak from the render.

The fonts and the named stylesheets are parsed once per thread and kept (outside DEBUG, where an
edited sheet must show at once): parsing them was a third of a letter's render (bench/letters.py),
and Pango's font maps are not shared between threads, so each thread keeps its own."""

import logging
import threading
from collections.abc import Callable, Iterable

import segno
import weasyprint
from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher

logger = logging.getLogger(__name__)

FONTS_CSS = "css/pdf_fonts.css"
# Files (the project's static files, the system's fonts named by local()) and inline data only.
LOCAL_SCHEMES = ("file", "data")


class OfflineFetcher(URLFetcher):
    """WeasyPrint's fetcher for everything a PDF loads, refusing anything off this machine."""

    def fetch(self, url, headers=None):
        scheme = url.split(":", 1)[0].lower()
        if scheme not in LOCAL_SCHEMES:
            logger.warning("Refused to fetch %s: PDFs are rendered without network access", url)
            raise ValueError(f"PDFs are rendered without network access: {url}")
        return super().fetch(url, headers)


def _static_path(name: str) -> str:
    path = finders.find(name)
    if not path:
        raise FileNotFoundError(f"No static file {name} for a PDF")
    return path


_per_thread = threading.local()


def _stylesheets(names: tuple[str, ...]) -> tuple[FontConfiguration, list[weasyprint.CSS]]:
    """The font configuration and the parsed sheets `names`, kept per thread (not under DEBUG)."""
    kept = getattr(_per_thread, "sheets", None)
    if kept is None:
        kept = _per_thread.sheets = {}
    if names in kept and not settings.DEBUG:
        return kept[names]
    fetcher = OfflineFetcher()
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
    html = render_to_string(template, context)
    fetcher = OfflineFetcher()
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
    qr = segno.make_qr(text, error="m")
    # segno writes only path data for the modules: nothing from the input is echoed as markup.
    return mark_safe(qr.svg_inline(border=4, omitsize=True, svgclass="qr", lineclass="qr-line"))  # noqa: S308
