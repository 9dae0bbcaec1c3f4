"""core.pdf: every PDF (receipts, certificates, proxy forms, letters) is rendered from a template
in the project's fonts, with QR codes a scanner reads, and never fetches anything off the machine."""

import copy
import logging
import random
import socket
import string

import pypdfium2
import pytest
import segno
import zxingcpp

from core.pdf import _qr_code, qr_svg, render_pdf
from testing.pdf import pdf_fonts, pdf_pages, pdf_text

NAME = "Nomsa Ndlovu-Šimić"
CODE = "LTR-2026-000123"
QR_SIZE = ".qr { width: 40mm; height: 40mm; }"


@pytest.fixture(autouse=True)
def test_templates(settings):
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"].append(settings.BASE_DIR / "core" / "tests" / "templates")
    settings.TEMPLATES = templates


@pytest.fixture
def sockets(monkeypatch):
    """Every attempt to reach another machine (a name looked up, a connection), refused and listed."""
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("no network in this test")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", lambda sock, address: refuse(address))
    return attempts


def render(*, text=f"{CODE} {NAME}", images=()) -> bytes:
    context = {"name": NAME, "code": CODE, "qr": qr_svg(text), "images": images}
    return render_pdf("core_tests/pdf_check.html", context, extra_css=QR_SIZE)


def scanned(pdf: bytes) -> list[tuple[str, str]]:
    """What a scanner reads off the first page, printed at 144 dpi."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        image = document[0].render(scale=2).to_pil()
    finally:
        document.close()
    return [(barcode.format.name, barcode.text) for barcode in zxingcpp.read_barcodes(image)]


def test_a_pdf_reads_back_with_a_non_ascii_name_in_the_projects_fonts():
    pdf = render()
    assert pdf.startswith(b"%PDF-")
    assert pdf_text(pdf) == f"Winner: {NAME}\n{CODE}"
    # The @font-face families of static/css/pdf_fonts.css, not whatever the system falls back to
    # (that would be named "DejaVu-Sans" or another family).
    assert pdf_fonts(pdf) == {"Desk-Sans", "Desk-Sans-Bold", "Desk-Mono"}


def test_the_qr_code_is_drawn_as_vectors_and_a_scanner_reads_the_text_back():
    text = f"{CODE} {NAME}"
    pdf = render(text=text)
    assert scanned(pdf) == [("QRCode", text)]
    assert not pdf_pages(pdf)[0]["/Resources"].get("/XObject")  # no picture: paths that print sharp


def test_the_qr_svg_is_a_full_qr_symbol_of_the_text_and_echoes_no_markup():
    svg = qr_svg('<script>alert("x")</script>')
    assert svg.startswith("<svg") and 'class="qr"' in svg and "script" not in svg
    assert not segno.make_qr("R1", error="m").is_micro
    assert qr_svg("R1") == qr_svg("R1") != qr_svg("R2")


def test_the_qr_is_segnos_own_symbol_with_the_mask_of_the_lowest_penalty():
    """core.pdf chooses the data mask itself (faster than segno's search): the symbols must be
    exactly segno's, whichever of the 8 masks wins, small and large versions (7 and up carry
    version information), text, bytes and a prize letter's scan text."""
    chars = string.ascii_uppercase + string.digits + ":-"
    rng = random.Random(15)
    texts = ["R1", f"PL1:GRC-26-000001:{'4642A996642C60E8293F3952D8F38414' * 2}", NAME * 3]
    texts += [
        "".join(rng.choice(chars + "é#ab" * (n % 3 == 0)) for _ in range(rng.choice((9, 40, 90, 200, 500))))
        for n in range(160)
    ]
    masks, versions = set(), set()
    for text in texts:
        theirs = segno.make_qr(text, error="m")
        ours = segno.QRCode(_qr_code(text))
        assert (ours.matrix, ours.mask, ours.version, ours.error) == (
            theirs.matrix,
            theirs.mask,
            theirs.version,
            theirs.error,
        )
        masks.add(ours.mask)
        versions.add(ours.version)
    assert masks == set(range(8)) and min(versions) == 1 and max(versions) >= 10
    letter = texts[1]
    assert qr_svg(letter) == segno.make_qr(letter, error="m").svg_inline(
        border=4, omitsize=True, svgclass="qr", lineclass="qr-line"
    )


def test_nothing_is_fetched_from_the_network_and_local_files_still_load(sockets, caplog):
    caplog.set_level(logging.WARNING)
    pdf = render(images=["http://example.com/x.png", "https://example.com/y.png", "static/favicon.svg"])

    assert pdf_text(pdf).startswith(f"Winner: {NAME}")
    assert sockets == []  # not even a name looked up
    refused = [r.getMessage() for r in caplog.records if r.name == "core.pdf"]
    assert refused == [
        f"Refused to fetch {url}: PDFs are rendered without network access"
        for url in ("http://example.com/x.png", "https://example.com/y.png")
    ]
    # The project's own file (relative to BASE_DIR) loads: only the two remote ones failed.
    failed = [r.getMessage() for r in caplog.records if r.name == "weasyprint" and "Failed to load" in r.getMessage()]
    assert len(failed) == 2 and not any("favicon" in message for message in failed)


def test_a_stylesheet_that_is_not_there_is_an_error_not_a_pdf_without_it():
    with pytest.raises(FileNotFoundError, match=r"css/nope\.css"):
        render_pdf("core_tests/pdf_check.html", {"images": ()}, css="css/nope.css")


def test_the_fonts_and_sheets_are_parsed_once_per_thread_and_again_under_debug(monkeypatch, settings):
    import threading

    import weasyprint

    from core import pdf

    monkeypatch.setattr(pdf, "_per_thread", threading.local())
    parsed = []
    real_css = weasyprint.CSS

    def counted_css(*args, **kwargs):
        if "filename" in kwargs:  # a render's extra_css (the QR size here) is its own: parsed each time
            parsed.append(kwargs["filename"])
        return real_css(*args, **kwargs)

    monkeypatch.setattr(weasyprint, "CSS", counted_css)

    first, second = render(), render()
    assert len(parsed) == 1 and parsed[0].endswith("pdf_fonts.css")
    assert pdf_text(first) == pdf_text(second)  # the kept sheets give the same document

    other = threading.Thread(target=render)
    other.start()
    other.join()
    assert len(parsed) == 2  # another thread parses its own (Pango's font maps are per thread)

    settings.DEBUG = True  # an edited sheet shows at once in development
    render()
    assert len(parsed) == 3
