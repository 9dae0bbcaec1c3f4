"""Prize games already played, for `make run` (issue 14, item 10): one draw of each seed run
yesterday evening with its stage game, so every prize page has real lines on it.

The seeds' own dates lie in 2024-2026 and their calendars must stay as published, so each demo
draw belongs to a **demo copy** of its seed ("Demo copy: …", code `demo-<seed code>`): the seed's
rules text, the one series copied with its earning rule, tiers and winners, its prize board
copied from prizes/seed_boards.py with the blanks filled by demo amounts (the board's notes say
"demo amount") and its jackpots from prizes/seed_progressives.py. The copy runs the month up
to its draw. Everything goes through the services a manager, the eHost and the conductor use
(draw_schedule, activation_create, draw_start, pick outcomes, vault_prizes_set,
game_event_record / game_finish), so the audit log and the draw's record read as a real
evening's. Idempotent: a copy that has its completed draw is left alone.

Played here: the vault (GH), podiums (FL, TH) and card scores (DT). Royal Flush is not: its
prize cards are played in a RAPS session, which needs an uploaded list of floor players.
"""

import datetime as dt
import random
from dataclasses import dataclass, replace

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from draws.demo_runs import demo_activate
from draws.engine import draw_end_short, draw_key_serial, draw_start, pick_outcome_record
from draws.models import Draw, DrawPick, DrawStatus, PickOutcome
from draws.seeds import PromotionDef, load_promotion, seed_definitions
from draws.services import draw_close_window, draw_schedule
from members.identity import IdType
from members.models import Tier
from members.staff import staff_may_act_at
from prizes.addons import DEMO_PREFIX
from prizes.boards import boards_for_draw
from prizes.conduct import board_winners, game_event_record, game_finish
from prizes.conducting import conducted
from prizes.models import BoardGame, GamePlay, PrizeBoard, Progressive
from prizes.seed_boards import SEED_BOARDS
from prizes.seed_progressives import SEED_PROGRESSIVES
from prizes.services import SlotDef, board_create
from prizes.vault_jackpots import vault_prizes_set
from promotions.models import DrawMethod, DrawSeries, Promotion

R = 100  # cents per rand
DEMO_NOTE = "Demo copy for `make run`: the blank amounts are filled with a demo amount, not the seed's."
WITNESS = "Thandi Nkosi (Gambling Board inspector)"
DEMO_MANAGER = "manager"
OUTCOME_EVERY = dt.timedelta(seconds=90)


@dataclass(frozen=True)
class DemoGame:
    """One seed's demo draw: the series copied and the demo amounts of its board's blank slots
    (in slot order; a podium board's amounts add up to its total)."""

    seed: str
    series: str
    amounts: tuple[int, ...] = ()
    vault: tuple[int, int] | None = None  # GH r9, A4: the tier's (jackpot, consolation) for the date


DEMO_GAMES = (
    # GH r9, A2-A3: a last-Thursday vault of 3 balls, so one of the 3 Queens takes the jackpot.
    DemoGame("golden-horse-prive-powerplay", "thu-2000-queen", vault=(25_000 * R, 2_000 * R)),
    # FL r41, A8: 5 podiums adding up to the R20,000 on offer to Jacks (a manual drum, r34).
    DemoGame("grc-fast-lane-to-fortune", "thu-jack-1900", (8_000 * R, 5_000 * R, 3_500 * R, 2_000 * R, 1_500 * R)),
    # TH r55-56: 5 podiums adding up to the R40,000 for Queens.
    DemoGame("grc-turn-up-the-heat", "thu-queen-cash", (15_000 * R, 10_000 * R, 7_000 * R, 5_000 * R, 3_000 * R)),
    # DT r10.1, A21: three finalists' card scores; the seed gives R3,000, R2,000 and R1,000.
    DemoGame("emnotweni-daytime-playtime", "wed-1400-manual", ()),
)


@dataclass
class DemoPrizes:
    draws: int = 0
    lines: int = 0


def demo_code(seed_code: str) -> str:
    return f"{DEMO_PREFIX}{seed_code}"[:60]


def load_demo_prizes(*, now: dt.datetime | None = None) -> DemoPrizes:
    """Add each seed's demo copy and its draw played yesterday evening, where missing."""
    now = now or timezone.now()
    manager = get_user_model().objects.filter(username=DEMO_MANAGER).first()
    seeds = {d.code: d for d in seed_definitions()}
    added = DemoPrizes()
    for game in DEMO_GAMES:
        if Promotion.objects.filter(code=demo_code(game.seed)).exists():
            continue  # played on an earlier `make run`: its record is history
        with transaction.atomic():
            added.lines += _play(game, seeds[game.seed], manager=manager, now=now)
            added.draws += 1
    return added


def _play(game: DemoGame, seed: PromotionDef, *, manager, now: dt.datetime) -> int:
    system = Actor.system("seed_demo")
    sdef = next(s for s in seed.series if s.code == game.series)
    day = timezone.localdate(now) - dt.timedelta(days=1)
    at = timezone.make_aware(dt.datetime.combine(day, dt.time.fromisoformat(sdef.draws[0][11:16])))
    copy = replace(
        seed,
        code=demo_code(seed.code),
        name=f"Demo copy: {seed.name}",
        # A month of earning before the draw (the seeds' periods reach back up to a month).
        starts_on=str(day - dt.timedelta(days=30)),
        ends_on=str(day),
        series=[replace(sdef, draws=[], moves={}, points_per_ticket_by_time={})],
    )
    promotion, _ = load_promotion(copy, actor=system)
    series = promotion.series.select_related("property").get(code=game.series)
    # The demo manager runs the draws at their casinos; elsewhere the system does.
    actor = Actor.for_user(manager) if manager and staff_may_act_at(manager, series.property) else system
    _boards(game, seed.code, series, day, system)
    _progressives(seed.code, promotion, series, system)
    draw = draw_schedule(
        actor=actor,
        series=series,
        scheduled_at=at,
        windows=[(at - dt.timedelta(hours=10), at - dt.timedelta(minutes=15))],
        allow_past=True,
    )
    demo_activate(draw, first_at=at - dt.timedelta(hours=9))
    draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    if game.vault:
        for tier in draw.series.eligible_tiers.all():
            jackpot, consolation = game.vault
            vault_prizes_set(
                actor=actor, draw_id=draw.pk, tier_id=tier.pk, jackpot_cents=jackpot, consolation_cents=consolation
            )
    draw_start(actor=actor, draw_id=draw.pk, witness_name=WITNESS, now=at)
    moment = _run(draw, actor, at)
    return _conduct(Draw.objects.get(pk=draw.pk), actor, moment)


def _boards(game: DemoGame, seed_code: str, series: DrawSeries, day: dt.date, actor: Actor) -> None:
    """The seed's boards of the series, for the demo day, their blank amounts filled."""
    tiers = {t.code: t for t in Tier.objects.all()}
    for bdef in (b for b in SEED_BOARDS[seed_code] if b.series == series.code):
        amounts = iter(game.amounts)
        slots = [s if s.amount_cents is not None else replace(s, amount_cents=next(amounts, None)) for s in bdef.slots]
        # A vault board is per date: the demo day's, a last Thursday's 3 balls (GH r9, A2-A3).
        last = next(iter(bdef.per_date_settings.values()), {})
        for tier_code in bdef.tiers or (None,):
            board_create(
                actor=actor,
                series=series,
                game=bdef.game,
                slots=[_own_target(s, series) for s in slots],
                tier=tiers[tier_code] if tier_code else None,
                draw_date=day if bdef.dates else None,
                total_cents=bdef.total_cents,
                settings={**bdef.settings, **last},
                notes=f"{bdef.notes} {DEMO_NOTE}",
            )


def _own_target(slot: SlotDef, series: DrawSeries) -> SlotDef:
    if isinstance(slot.target_series, str):  # the copy has only its own series
        return replace(slot, target_series=series.promotion.series.get(code=slot.target_series))
    return slot


def _progressives(seed_code: str, promotion: Promotion, series: DrawSeries, actor: Actor) -> None:
    """The seed's jackpots of the series, on the copy (GH: the tier's vault jackpot)."""
    for pdef in SEED_PROGRESSIVES.get(seed_code, []):
        if pdef.series != series.code:
            continue
        progressive = Progressive.objects.create(
            promotion=promotion,
            series=series,
            code=pdef.code,
            name=pdef.name,
            base_cents=pdef.base_cents,
            increment_cents=pdef.increment_cents,
        )
        audit_log(
            actor=actor,
            action="progressive.created",
            obj=progressive,
            data={"promotion": promotion.name, "series": series.name, "base_cents": progressive.base_cents},
        )


def _run(draw: Draw, actor: Actor, at: dt.datetime) -> dt.datetime:
    """Every winner present; a manual drum's serials keyed in a reproducible shuffle."""
    moment = at
    draw.refresh_from_db()  # its tickets counted at the freeze
    serials = list(range(1, draw.tickets_total + 1))
    random.Random(draw.pk).shuffle(serials)
    while True:
        draw.refresh_from_db()
        if draw.status != DrawStatus.RUNNING:
            return moment
        moment += OUTCOME_EVERY
        pick = draw.picks.filter(outcome="").first()
        if pick is None and draw.method == DrawMethod.MANUAL and serials:
            try:
                pick = draw_key_serial(actor=actor, draw_id=draw.pk, serial=str(serials.pop()), now=moment)
            except DomainError:  # drawn already: the next ticket
                continue
            if not pick.awaits_outcome():
                continue
        if pick is None:  # nobody left who can win
            draw_end_short(actor=actor, draw_id=draw.pk, reason="No entrant left who can win.", now=moment)
            return moment
        pick_outcome_record(
            actor=actor,
            draw_id=draw.pk,
            pick_id=pick.pk,
            outcome=PickOutcome.PRESENT,
            id_type_seen=IdType.SA_ID,
            now=moment,
        )


def _conduct(draw: Draw, actor: Actor, moment: dt.datetime) -> int:
    """Each board's game played through the conductor's services, then finished: the lines."""
    lines = 0
    for board in boards_for_draw(draw):
        winners = board_winners(draw, board)
        if not winners or conducted(board.game) is None:
            continue
        for pick in winners:
            game_event_record(actor=actor, pick_id=pick.pk, event=_event(board, draw, pick))
        lines += len(game_finish(actor=actor, pick_id=winners[0].pk))
    return lines


def _event(board: PrizeBoard, draw: Draw, pick: DrawPick) -> dict:
    """What the demo winner does on stage: a slot still closed, or a ball still in the vault."""
    play = GamePlay.objects.filter(draw=draw, board=board, pick=None).first()
    controls = conducted(board.game).controls(board, play.events if play else [])
    rng = random.Random(pick.pk)
    if board.game == BoardGame.VAULT:
        left = controls["left"]
        return {"ball": rng.choice(["pink"] * left.pink + ["white"] * left.white)}
    if board.game == BoardGame.CARD_SCORE:
        return {"score": str(pick.k * 7 + rng.randint(0, 6))}  # distinct scores (A21): k apart by 7
    return {"slot": rng.choice(controls["choices"])}


__all__ = ["DEMO_GAMES", "DemoPrizes", "load_demo_prizes"]
