"""Golden Horse's vault (GH r9, A1-A4): in pick order each winner of the tier draws a ball
without replacement; pink takes the tier's jackpot of the date, white its consolation
(prizes/games/vault.py refuses a sequence that cannot happen)."""

from core.errors import DomainError
from prizes.boards import draw_local_date
from prizes.conducting import Conducted, first_without_turn, one_turn_each
from prizes.games import vault
from prizes.lines import LineSpec
from prizes.models import BoardGame, PrizeBoard
from prizes.vault_jackpots import vault_progressive


def _last_thursday(board: PrizeBoard) -> bool:
    return board.setting("balls") == vault.LAST_THURSDAY_VAULT.balls


def event_clean(board: PrizeBoard, raw: dict, pick) -> dict:
    ball = str(raw.get("ball") or "").strip()
    if not ball:
        raise DomainError("Choose the ball drawn.", code="event_blank")
    return {"ball": ball}


def lines(draw, board: PrizeBoard, events: list[dict], winners: list, final: bool) -> dict[int, list[LineSpec]]:
    slots = [s for s in board.slots.all() if not s.every_winner]
    pink = next(s for s in slots if "pink" in s.label.lower())
    white = next(s for s in slots if "pink" not in s.label.lower())
    by_pick = {e["pick"]: e for e in events}
    drawn = [p for p in winners if p.pk in by_pick]
    specs = vault.vault_lines(
        last_thursday=_last_thursday(board),
        balls=[by_pick[p.pk]["ball"] for p in drawn],
        jackpot_cents=pink.amount_cents or 0,
        consolation_cents=white.amount_cents or 0,
        tier=board.tier.name if board.tier_id else "",
        draw_date=draw_local_date(draw),
    )
    return {p.pk: [spec] for p, spec in zip(drawn, specs, strict=True)}


def controls(board: PrizeBoard, events: list[dict]) -> dict:
    left = vault.vault_left(last_thursday=_last_thursday(board), drawn=[e["ball"] for e in events])
    return {"left": left}


def progressive(draw, pick):
    """The winner's tier's vault jackpot (GH r9, A4: set per tier per date before the draw)."""
    return vault_progressive(draw, pick.member.tier)


def turn_words(event: dict) -> str:
    return f"{event['ball']} ball"


CONDUCTED = Conducted(
    games=frozenset({BoardGame.VAULT}),
    template="prizes/conducting/_vault.html",
    event_clean=event_clean,
    turn_refusal=one_turn_each,
    waiting=first_without_turn,
    lines=lines,
    controls=controls,
    turn_words=turn_words,
    progressive=progressive,
)
