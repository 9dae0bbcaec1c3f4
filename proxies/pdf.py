"""The proxy form: an A4 PDF (WeasyPrint) both parties sign at the desk, reprintable later.
One form per batch: a nomination made for several draws of one day lists them all. It is
printed before anything is registered (proxies.drafts), with blank signature lines and no
claim of a signature; a reprint of a registered nomination says when and by whom it was
registered, after the signed original."""

import re

from django.utils import timezone

from core.pdf import render_pdf
from draws.models import Draw
from members.identity import IdType
from members.models import Member
from proxies.models import ProxyNomination
from proxies.services import Nominee

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


def nominee_words(nominee) -> dict:
    """The proxy as the form and the signing page show them: the ID masked but its last four."""
    return {
        "name": nominee.name,
        "id_type": IdType(nominee.id_type).label,
        "id_number": masked(nominee.id_number),
        "phone": nominee.phone,
    }


def form_context(nomination: ProxyNomination) -> dict:
    """A registered nomination's form (reprinted): its batch's draws; says it was registered."""
    batch = list(
        ProxyNomination.objects.filter(batch=nomination.batch)
        .select_related("draw", "draw__property", "draw__series__promotion")
        .order_by("draw__scheduled_at")
    )
    registered_by = nomination.registered_by
    return _context(
        participant=nomination.participant,
        draws=[n.draw for n in batch],
        nominee=Nominee(
            nomination.nominee_name, nomination.nominee_id_type, nomination.nominee_id_number, nomination.nominee_phone
        ),
    ) | {
        "registered": {
            "by": registered_by.get_full_name() or registered_by.get_username(),
            "at": timezone.localtime(nomination.registered_at),
            "revoke_reason": "" if nomination.is_live else nomination.revoke_reason,
        },
        "printed_at": timezone.localtime(timezone.now()),
    }


def draft_context(*, participant: Member, draw_ids, nominee: Nominee, clerk, at) -> dict:
    """The form printed to be signed (proxies.drafts): nothing is registered yet, and it says so."""
    draws = list(
        Draw.objects.filter(pk__in=draw_ids).select_related("property", "series__promotion").order_by("scheduled_at")
    )
    return _context(participant=participant, draws=draws, nominee=nominee) | {
        "registered": None,
        "clerk": clerk.get_full_name() or clerk.get_username(),
        "printed_at": timezone.localtime(at),
    }


def _context(*, participant: Member, draws: list[Draw], nominee: Nominee) -> dict:
    promotion = draws[0].series.promotion
    return {
        "participant": participant,
        "participant_id": masked(participant.id_number),
        "nominee": nominee_words(nominee),
        "draws": [(draw, timezone.localtime(draw.scheduled_at)) for draw in draws],
        "promotion": promotion,
        "clauses": proxy_clauses(promotion.rules_text),
    }


def proxy_form_pdf(nomination: ProxyNomination) -> bytes:
    """A registered nomination's form, reprinted."""
    return _pdf(form_context(nomination))


def draft_form_pdf(*, participant: Member, draw_ids, nominee: Nominee, clerk, at) -> bytes:
    """The form to sign, before anything is registered."""
    return _pdf(draft_context(participant=participant, draw_ids=draw_ids, nominee=nominee, clerk=clerk, at=at))


def _pdf(context: dict) -> bytes:
    """An A4 PDF."""
    return render_pdf("proxies/form_pdf.html", context, css="css/proxy_form.css")
