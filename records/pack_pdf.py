"""The record pack's PDF for reading: a cover (promotion, period, properties, the manifest's
SHA-256, the audit seal), then the rules, the draws with their certificates' facts, the winners
and what they received, and the registers. It restates the ZIP; the ZIP is the record."""

from django.utils import timezone

from core.pdf import render_pdf
from draws.certificate import masked_card, public_name
from draws.models import Draw
from draws.record import entries_summary
from draws.record_selectors import draw_picks
from promotions.models import Promotion
from records import pack_files


def _draw_facts(draw: Draw) -> dict:
    picks = list(draw_picks(draw=draw)) if pack_files.recorded(draw) else []
    return {
        "draw": draw,
        "recorded": pack_files.recorded(draw),
        "entries": entries_summary(draw),
        "seed": draw.revealed_seed(),
        "picks_count": len(picks),
        "winners": [(p, masked_card(p.card_number), public_name(p.member)) for p in picks if p.is_winner()],
    }


def pack_pdf(promotion: Promotion, *, draws: list[Draw], rules: dict, files, manifest_sha256: str, seal) -> bytes:
    context = {
        "promotion": promotion,
        "properties": ", ".join(p.name for p in promotion.properties.order_by("name")),
        "rules": rules,
        "draws": [_draw_facts(draw) for draw in draws],
        "winners": list(pack_files.winner_rows(draws)),
        "proxies": list(pack_files.proxy_rows(promotion)),
        "declines": list(pack_files.decline_rows(promotion)),
        "files": files,
        "manifest_sha256": manifest_sha256,
        "seal": seal,
        "printed_at": timezone.localtime(),
    }
    return render_pdf("records/pack_pdf.html", context, css="css/record_pack.css")
