"""Reading a PDF back in tests (pypdf): its text and its pages, for the tests of every app."""

import io

import pypdf


def pdf_pages(pdf: bytes) -> list[pypdf.PageObject]:
    return list(pypdf.PdfReader(io.BytesIO(pdf)).pages)


def pdf_text(pdf: bytes, *, flat: bool = False) -> str:
    """The text of every page, a page a line; flat: every run of white space made one space
    (a name or a sentence the layout wrapped reads whole)."""
    text = "\n".join(page.extract_text() for page in pdf_pages(pdf))
    return " ".join(text.split()) if flat else text


def pdf_fonts(pdf: bytes) -> set[str]:
    """The fonts the pages are set in, without the subset prefix: "ABCDEF+Desk-Sans" -> "Desk-Sans"."""
    names = set()
    for page in pdf_pages(pdf):
        for font in page["/Resources"].get("/Font", {}).values():
            names.add(str(font.get_object()["/BaseFont"]).lstrip("/").split("+", 1)[-1])
    return names
