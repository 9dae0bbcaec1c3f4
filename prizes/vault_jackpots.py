"""Golden Horse's vault prizes for one draw (GH r9, PRIZES.md A4): per tier, the jackpot the
pink ball wins and the consolation a white ball wins, "set on that day" by a promotions manager.

The jackpot is a progressive of its own per tier (prizes.progressives: a `set` entry naming the
draw, audited, paid by progressive_win when the pink ball comes out). The tier's board for the
date carries both amounts too (its "pink" and "white" slots), so the board, the stage game and
the jackpot read one number: vault_prizes_set writes both in one transaction, and the Start
refuses a draw whose jackpot was not set for it or differs from its board (vault_start_refusal).
"""

from django.db import transaction

from core.audit import Actor
from core.errors import DomainError
from core.formats import local_date, rand_cents
from draws.models import Draw, DrawStatus
from members.models import Tier
from members.staff import check_staff_property
from prizes.boards import board_for, draw_local_date
from prizes.models import BoardGame, PrizeBoard, Progressive, ProgressiveEntryKind
from prizes.progressives import MANAGE_PERMISSION, progressive_set
from prizes.services import board_save

# The vault series of the Golden Horse seed and their tiers (GH r9, A1: three winners a tier).
VAULT_SERIES = {
    "thu-1900-ten-jack": ("TEN", "JACK"),
    "thu-2000-queen": ("QUEEN",),
    "thu-2100-king-ace": ("KING", "ACE"),
}
PINK, WHITE = "pink", "white"  # the vault board's slot groups (prizes.seed_boards)
VAULT_PREFIX = "gh-vault-"


def vault_code(tier_code: str) -> str:
    return f"{VAULT_PREFIX}{tier_code.lower()}"


def vault_name(tier_code: str) -> str:
    return f"{tier_code.title()} vault jackpot"


def vault_tiers(draw: Draw) -> list[tuple[Tier, Progressive]]:
    """The draw's tiers that draw from a vault, each with its jackpot (empty for other draws).
    Kept on the draw object: its page asks for the Start button and for the prize panel."""
    if not hasattr(draw, "_vault_tiers"):
        draw._vault_tiers = _vault_tiers(draw)
    return draw._vault_tiers


def _vault_tiers(draw: Draw) -> list[tuple[Tier, Progressive]]:
    progressives = list(Progressive.objects.filter(series_id=draw.series_id, code__startswith=VAULT_PREFIX))
    if not progressives:  # most draws: one query
        return []
    tiers = {vault_code(t.code): t for t in draw.series.eligible_tiers.all()}
    return sorted(((tiers[p.code], p) for p in progressives if p.code in tiers), key=lambda pair: pair[0].rank)


def vault_progressive(draw: Draw, tier: Tier) -> Progressive | None:
    """The jackpot the pink ball wins for a winner of `tier` in `draw` (the stage game's)."""
    return Progressive.objects.filter(series_id=draw.series_id, code=vault_code(tier.code)).first()


def vault_progressive_draws(progressive: Progressive, count: int = 3) -> list[Draw]:
    """A vault jackpot's next draws, whose amounts a manager sets (none for other jackpots)."""
    if not progressive.code.startswith(VAULT_PREFIX):
        return []
    draws = Draw.objects.filter(series_id=progressive.series_id, status__in=(DrawStatus.SCHEDULED, DrawStatus.CLOSED))
    return list(draws.order_by("scheduled_at")[:count])


def _vault_board(draw: Draw, tier: Tier) -> PrizeBoard:
    board = board_for(draw, tier)
    if board is None or board.game != BoardGame.VAULT:
        raise DomainError(
            f"There is no vault prize board for the {tier.name} tier on {local_date(draw_local_date(draw))}: "
            "the promotions team adds it first.",
            code="no_vault_board",
        )
    return board


def _slots(board: PrizeBoard) -> dict[str, int]:
    """The board's pink and white slots' ids."""
    slots = {slot.group: slot.pk for slot in board.slots.all() if slot.group in (PINK, WHITE)}
    if len(slots) != 2:
        raise DomainError(f"The prize board of {board} has no pink and white ball prizes.", code="no_vault_board")
    return slots


def vault_prizes_set(
    *, actor: Actor, draw_id: int, tier_id: int, jackpot_cents: int, consolation_cents: int
) -> Progressive:
    """Set the tier's jackpot and consolation for the draw, before it starts: the board of the
    tier and date, and a `set` entry of the tier's jackpot naming the draw (both audited)."""
    if consolation_cents is None or consolation_cents <= 0:
        raise DomainError("Type the consolation in rand, above R0: every white ball wins it.", code="invalid_amount")
    if jackpot_cents is None or jackpot_cents <= consolation_cents:
        raise DomainError(
            f"The jackpot must be more than the consolation of {rand_cents(consolation_cents)}: check the amounts.",
            code="invalid_amount",
        )
    if actor.user is not None and not actor.user.has_perm(MANAGE_PERMISSION):
        raise DomainError("Only a promotions manager sets the vault's prizes.", code="not_allowed")
    with transaction.atomic():
        draw = Draw.objects.select_for_update(of=("self",)).select_related("series", "property").get(pk=draw_id)
        check_staff_property(actor, draw.property, what="jackpots", done="set")
        if draw.status not in (DrawStatus.SCHEDULED, DrawStatus.CLOSED):
            raise DomainError(f"{draw.name} has started: its vault prizes are set before the draw.", code="too_late")
        tier = Tier.objects.get(pk=tier_id)
        progressive = vault_progressive(draw, tier)
        if progressive is None:
            raise DomainError(f"{draw.name} has no vault jackpot for the {tier.name} tier.", code="no_vault")
        board = _vault_board(draw, tier)
        slots = _slots(board)
        board_save(
            actor=actor,
            board_id=board.pk,
            slots={slots[PINK]: {"amount_cents": jackpot_cents}, slots[WHITE]: {"amount_cents": consolation_cents}},
        )
        progressive_set(actor=actor, progressive_id=progressive.pk, draw_id=draw.pk, amount_cents=jackpot_cents)
    return progressive


def vault_missing(draw: Draw) -> list[str]:
    """What still keeps the draw's vault jackpots from being right for it, in words."""
    missing = []
    for tier, progressive in vault_tiers(draw):
        last = progressive.entries.order_by("-pk").first()
        # The last change must be this draw's `set`: a later date's amount set meanwhile, a reset
        # or an earlier win leaves the jackpot at someone else's number.
        if last is None or last.kind != ProgressiveEntryKind.SET or last.draw_id != draw.pk:
            missing.append(f"the {progressive.name} for this draw")
            continue
        board = board_for(draw, tier)
        pink = next((s for s in board.slots.all() if s.group == PINK), None) if board else None
        if pink is not None and pink.amount_cents is not None and pink.amount_cents != last.balance_cents:
            missing.append(
                f"the {progressive.name} again (the board says {rand_cents(pink.amount_cents)}, "
                f"the jackpot {rand_cents(last.balance_cents)})"
            )
    return missing


def vault_start_refusal(draw: Draw) -> str | None:
    """The Start refusal of a vault draw whose jackpots are not set for it (draws.start_checks)."""
    missing = vault_missing(draw)
    if not missing:
        return None
    listed = missing[0] if len(missing) == 1 else f"{', '.join(missing[:-1])} and {missing[-1]}"
    return (
        f"The draw cannot start until its vault prizes are set: set {listed}. "
        "A promotions manager sets them on the draw's vault prizes page."
    )
