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


@register.inclusion_tag("prizes/_member_prizes.html", takes_context=True)
def member_prizes(context, member):
    """The member's wins, letters and payouts on the member page (core.panels slot
    "member.prizes"; issue 15, items 4 and 9), with "Issue letter" where the desk may issue now.
    A fixed number of queries however many wins and letters (prizes/tests/test_letter_reports.py)."""
    from django.utils import timezone

    from members.staff import staff_may_act_at
    from prizes.letter_models import LIVE_STATUSES
    from prizes.letter_selectors import member_letters, member_payouts, member_wins
    from prizes.letter_services import letter_issue_refusal

    perms = context.get("perms")
    user = context.get("user")
    if not (perms and perms["prizes"]["view_prizeletter"]):
        return {"show": False}
    now = timezone.now()
    may_issue = bool(perms["prizes"]["add_prizeletter"])
    wins = member_wins(member)
    for win in wins:
        pick, letter = win["pick"], win["letter"]
        pick.member = member
        win["state"] = letter.state(now) if letter else None
        win["money"] = [line for line in win["lines"] if line.is_money()]
        live = letter if letter and letter.status in LIVE_STATUSES else None
        refusal = None
        if may_issue and pick.draw.is_complete() and live is None:
            refusal = letter_issue_refusal(pick, now, live=None, letterable=win["letterable"])
            if refusal is None and not staff_may_act_at(user, pick.draw.property_id):
                refusal = f"Issued by the desk at {pick.draw.property.name}."
        win["may_issue"] = may_issue and pick.draw.is_complete() and live is None and refusal is None
        win["refusal"] = refusal
    letters = member_letters(member)
    for letter in letters:
        letter.now_state = letter.state(now)
        letter.paid_by_names = sorted({payout.paid_by for payout in letter.payouts.all()})
    return {"show": True, "member": member, "wins": wins, "letters": letters, "payouts": member_payouts(member)}
