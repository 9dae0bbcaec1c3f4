"""The prizes' piece of the draw page and of Tonight (core.panels slot "draw.prizes")."""

from django import template

from prizes.boards import board_missing_settings
from prizes.models import PrizeBoard
from prizes.vault_jackpots import vault_missing, vault_tiers
from prizes.wild_card import wild_card_panel

register = template.Library()


@register.inclusion_tag("prizes/_draw_prize_settings.html", takes_context=True)
def draw_prize_settings(context, draw):
    """What a manager must still fill in before the draw starts (nothing once it has started:
    the prize record shows its prizes then), with links to the boards and the prizes won."""
    state = draw.state()
    vault = state.before_start and bool(vault_tiers(draw))  # GH r9, A4: jackpots set per draw
    return {
        "draw": draw,
        "missing": [*board_missing_settings(draw), *_vault_words(draw, vault)] if state.before_start else [],
        "vault": vault,
        "has_boards": PrizeBoard.objects.filter(series_id=draw.series_id).exists(),
        "started": state.has_started,
        "perms": context.get("perms"),
        "wild_card": wild_card_panel(draw),
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("prizes/_conduct.html", takes_context=True)
def draw_game(context, draw):
    """The conductor's controls for each winner's game on the draw's run page (core.panels slot
    "draw.game"): record the slot opened or the ball drawn, then Finish to compute the prizes."""
    from prizes.conduct import conduct_panel

    perms = context.get("perms")
    return {
        "draw": draw,
        "panels": conduct_panel(draw),
        "may_conduct": bool(perms and "draws.add_drawpick" in perms),
        "complete": draw.state().is_complete,
        "csrf_token": context.get("csrf_token"),
    }


def _vault_words(draw, vault: bool) -> list[str]:
    missing = vault_missing(draw) if vault else []
    return [f"Vault prizes: set {', '.join(missing)}."] if missing else []
