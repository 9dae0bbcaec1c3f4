"""The record pack's panel on the promotion page (promotions never imports records: its template
names the slot "promotion.records", filled from RecordsConfig.ready())."""

from django import template

from records import packs
from records.models import RecordPack

register = template.Library()
SHOWN = 5  # the latest packs listed; older ones stay stored


@register.inclusion_tag("records/_promotion_packs.html", takes_context=True)
def promotion_packs(context, promotion):
    perms = context.get("perms")
    may_view = bool(perms and perms["records"]["view_recordpack"])
    if not may_view:
        return {"may_view": False}
    latest = list(RecordPack.objects.filter(promotion=promotion).order_by("-requested_at", "-pk")[:SHOWN])
    finished = packs.is_finished(promotion)
    return {
        "may_view": True,
        "may_build": bool(perms["records"]["add_recordpack"]) and not any(p.in_flight for p in latest),
        "promotion": promotion,
        "packs": latest,
        "finished": finished,
        "stored": packs.stored_pack(promotion) if finished else None,
        "csrf_token": context.get("csrf_token"),
    }
