"""The proxy form: an A4 PDF (WeasyPrint) both parties sign at the desk, reprintable later.
One form per batch: a nomination made for several draws of one day lists them all."""

import re
from functools import cache

import weasyprint
from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone

from proxies.models import ProxyNomination

_NUMBERED = re.compile(r"^\s*(\d+)\.\s")
_PROXY_WORDS = re.compile(r"\b(prox(y|ies)|nomin\w*|representatives?)\b", re.IGNORECASE)


def proxy_clauses(rules_text: str) -> list[str]:
    """The numbered paragraphs of a promotion's rules that speak of proxies, nominees,
    nominations or representatives, in order, each once (a rule's wrapped lines joined)."""
    paragraphs: list[str] = []
    for line in rules_text.splitlines():
        if _NUMBERED.match(line):
            paragraphs.append(line.strip())
        elif line.strip() and paragraphs and not line.startswith(("#", "=")):
            paragraphs[-1] += " " + line.strip()
        elif not line.strip() and paragraphs and paragraphs[-1] != "":
            paragraphs.append("")  # a blank line ends the paragraph
    seen: set[str] = set()
    clauses = []
    for paragraph in paragraphs:
        if paragraph and _PROXY_WORDS.search(paragraph) and paragraph not in seen:
            seen.add(paragraph)
            clauses.append(paragraph)
    return clauses


def masked(number: str) -> str:
    return "*" * max(len(number) - 4, 0) + number[-4:]


def form_context(nomination: ProxyNomination) -> dict:
    batch = list(
        ProxyNomination.objects.filter(batch=nomination.batch)
        .select_related("draw", "draw__property", "draw__series__promotion")
        .order_by("draw__scheduled_at")
    )
    promotion = nomination.draw.series.promotion
    return {
        "nomination": nomination,
        "participant": nomination.participant,
        "participant_id": masked(nomination.participant.id_number),
        "nominee_id": masked(nomination.nominee_id_number),
        "draws": [(n.draw, timezone.localtime(n.draw.scheduled_at), n) for n in batch],
        "promotion": promotion,
        "clauses": proxy_clauses(promotion.rules_text),
        "registered_at": timezone.localtime(nomination.registered_at),
    }


@cache
def _stylesheet() -> weasyprint.CSS:
    return weasyprint.CSS(filename=finders.find("css/proxy_form.css"))


def proxy_form_pdf(nomination: ProxyNomination) -> bytes:
    """The signed form as an A4 PDF, rendered without network access (no fonts or images fetched)."""
    html = render_to_string("proxies/form_pdf.html", form_context(nomination))
    return weasyprint.HTML(string=html, base_url=str(settings.BASE_DIR)).write_pdf(stylesheets=[_stylesheet()])
