"""Pieces of a higher app shown on a lower app's page (the member page shows the member's draws
and registers; the draw page, the proxies and declines; the promotion page, its calendar).

A lower app's template names a slot, `{% load panels %}{% panel "member.draws" member %}`, and
the app above fills it in its AppConfig.ready() with `register(slot, "app_tags", "tag_name")`:
its inclusion tag renders there, in the page's context. So a template never loads a higher
app's tag library (config/tests/test_layers.py), and an empty slot renders nothing.
"""

from django.template import Context, Template

_slots: dict[str, Template] = {}


def register(slot: str, library: str, tag: str) -> None:
    """Fill `slot` with `{% tag obj %}` of the tag library `library`."""
    _slots[slot] = Template(f"{{% load {library} %}}{{% {tag} panel_object %}}")


def render(slot: str, context: Context, obj) -> str:
    template = _slots.get(slot)
    if template is None:
        return ""
    with context.push(panel_object=obj):
        return template.render(context)
