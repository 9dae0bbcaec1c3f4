"""{% panel "slot" obj %}: a higher app's piece on a lower app's page (core.panels)."""

from django import template
from django.utils.safestring import mark_safe

from core import panels

register = template.Library()


@register.simple_tag(takes_context=True)
def panel(context, slot: str, obj):
    return mark_safe(panels.render(slot, context, obj))  # noqa: S308 (rendered by the template engine)
