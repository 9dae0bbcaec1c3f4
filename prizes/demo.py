"""Prize games already played, for `make run` (issue 14, item 10): one draw of each seed run
yesterday evening with its stage game, so every prize page has real lines on it.

The seeds' own dates lie in 2024-2026 and their calendars must stay as published, so each demo
draw belongs to a **demo copy** of its seed ("Demo copy: …", code `demo-<seed code>`): the seed's
rules text, the series played copied with their earning rules, tiers and winners, their prize
boards copied from prizes/seed_boards.py with the blanks filled by demo amounts (the board's
notes say "demo amount") and their jackpots from prizes/seed_progressives.py. The copy runs the
month up to its draws. Everything goes through the services a manager, the eHost, the tick and
the conductor use (draw_schedule, activation_create, draw_close_window, raps_list_upload,
draw_start, pick outcomes, vault_prizes_set, game_event_record / game_finish), so the audit log
and the draws' records read as a real evening's. Idempotent: a copy that exists is left alone.

Played here: the vault (GH), podiums (FL, TH), TH's 9pm digit safe (the first winner tries it
and fails, so the safe grows by R20,000 on the progressives page), card scores (DT) and Royal
Flush's Saturday Bonus Jackpot RAPS session: a demo active-player list of floor players is
uploaded, its 15 winners pick prize cards and each gets the demo count of entries into the
copy's Saturday Night Cash draw at 21h30, which runs after it with those entries carried in
(RF r34.1, A13). That cash draw's board is "by the order of the picks": nothing is played on
stage and Finish gives each winner the prize of their place.
"""

import datetime as dt
import random
from dataclasses import dataclass, replace
from itertools import groupby

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from draws.demo_runs import ENTRANTS, demo_activate
from draws.engine import draw_end_short, draw_key_serial, draw_start, pick_outcome_record
from draws.models import Draw, DrawPick, DrawStatus, PickOutcome
from draws.raps import default_quotas, raps_list_upload
from draws.seeds import PromotionDef, load_promotion, seed_definitions
from draws.services import draw_close_window, draw_schedule
from members.identity import IdType
from members.models import Member, Tier
from members.staff import staff_may_act_at
from prizes.addons import DEMO_PREFIX
from prizes.boards import boards_for_draw
from prizes.conduct import board_winners, game_event_record, game_finish
from prizes.conducting import conducted
from prizes.lines import LineKind
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
FLOOR_PLAYERS = 45  # rows of the RAPS session's demo active-player list
FLOOR_MIN_SPEND = 500 * R  # the session's demo minimum spend (RF r25: the seed's table is missing)


@dataclass(frozen=True)
class DemoGame:
    """One demo draw: the seed, the series copied and the demo amounts of its board's blank
    slots (in slot order; a podium board's amounts add up to its total). A seed's draws share
    one copy and are played in the order of their times."""

    seed: str
    series: str
    amounts: tuple[int, ...] = ()
    vault: tuple[int, int] | None = None  # GH r9, A4: the tier's (jackpot, consolation) for the date
    entries: int | None = None  # RF r34.1, A13: the demo count of an entries slot (the seed's is missing)


RF_CARDS = (  # RF r28-r29: 15 prize cards paid at the device, amounts not given
    (10_000 * R, 5_000 * R, 5_000 * R) + (2_500 * R,) * 4 + (2_000 * R,) * 4 + (1_000 * R,) * 4
)

DEMO_GAMES = (
    # GH r9, A2-A3: a last-Thursday vault of 3 balls, so one of the 3 Queens takes the jackpot.
    DemoGame("golden-horse-prive-powerplay", "thu-2000-queen", vault=(25_000 * R, 2_000 * R)),
    # FL r41, A8: 5 podiums adding up to the R20,000 on offer to Jacks (a manual drum, r34).
    DemoGame("grc-fast-lane-to-fortune", "thu-jack-1900", (8_000 * R, 5_000 * R, 3_500 * R, 2_000 * R, 1_500 * R)),
    # TH r55-56: 5 podiums adding up to the R40,000 for Queens.
    DemoGame("grc-turn-up-the-heat", "thu-queen-cash", (15_000 * R, 10_000 * R, 7_000 * R, 5_000 * R, 3_000 * R)),
    # TH r120-r126, A17: the 9pm podiums of R5,000 to R10,000, then the digit safe (a money game).
    DemoGame("grc-turn-up-the-heat", "sat-cash-2100", (10_000 * R, 8_500 * R, 7_000 * R, 6_000 * R, 5_000 * R)),
    # DT r10.1, A21: three finalists' card scores; the seed gives R3,000, R2,000 and R1,000.
    DemoGame("emnotweni-daytime-playtime", "wed-1400-manual", ()),
    # RF r19-r29: a Saturday 20h00 RAPS session, 15 prize cards and 3 entries each (A13) into
    # the Saturday Night Cash draw at 21h30 (r35: 5 winners, amounts not given).
    DemoGame("grc-royal-flush", "sat-bonus-jackpot-raps", RF_CARDS, entries=3),
    DemoGame("grc-royal-flush", "sat-cash-2130", (5_000 * R, 3_000 * R, 2_000 * R, 1_500 * R, 1_000 * R)),
)


@dataclass
class DemoPrizes:
    draws: int = 0
    lines: int = 0


def demo_code(seed_code: str) -> str:
    return f"{DEMO_PREFIX}{seed_code}"[:60]


def load_demo_prizes(*, now: dt.datetime | None = None) -> DemoPrizes:
    """Add each seed's demo copy and its draws played yesterday evening, where missing."""
    now = now or timezone.now()
    manager = get_user_model().objects.filter(username=DEMO_MANAGER).first()
    seeds = {d.code: d for d in seed_definitions()}
    added = DemoPrizes()
    for seed_code, group in groupby(sorted(DEMO_GAMES, key=lambda g: g.seed), key=lambda g: g.seed):
        if Promotion.objects.filter(code=demo_code(seed_code)).exists():
            continue  # played on an earlier `make run`: its record is history
        games = list(group)
        with transaction.atomic():
            added.lines += _play(games, seeds[seed_code], manager=manager, now=now)
            added.draws += len(games)
    return added


def _play(games: list[DemoGame], seed: PromotionDef, *, manager, now: dt.datetime) -> int:
    """The copy with its boards and jackpots; its draws scheduled, entered in the day, then run
    in the order of their times (a RAPS session's entries reach the cash draw after it)."""
    system = Actor.system("seed_demo")
    sdefs = {s.code: s for s in seed.series}
    day = timezone.localdate(now) - dt.timedelta(days=1)
    copy = replace(
        seed,
        code=demo_code(seed.code),
        name=f"Demo copy: {seed.name}",
        # A month of earning before the draw (the seeds' periods reach back up to a month).
        starts_on=str(day - dt.timedelta(days=30)),
        ends_on=str(day),
        series=[replace(sdefs[g.series], draws=[], moves={}, points_per_ticket_by_time={}) for g in games],
    )
    promotion, _ = load_promotion(copy, actor=system)
    series = {s.code: s for s in promotion.series.select_related("property")}
    for game in games:
        _boards(game, seed.code, series[game.series], day, system)
        _progressives(seed.code, promotion, series[game.series], system)
    played = []
    for game in games:
        at = timezone.make_aware(dt.datetime.combine(day, dt.time.fromisoformat(sdefs[game.series].draws[0][11:16])))
        owner = series[game.series]
        # The demo manager runs the draws at their casinos; elsewhere the system does.
        actor = Actor.for_user(manager) if manager and staff_may_act_at(manager, owner.property) else system
        draw = draw_schedule(
            actor=actor,
            series=owner,
            scheduled_at=at,
            windows=[(at - dt.timedelta(hours=10), at - dt.timedelta(minutes=15))],
            allow_past=True,
        )
        if draw.method != DrawMethod.RAPS:  # a RAPS session's entrants are its uploaded floor list
            # Each draw of the copy its own entrants: a winner of one is not redrawn in the next.
            demo_activate(draw, first_at=at - dt.timedelta(hours=9), skip=len(played) * ENTRANTS)
        played.append((game, draw, actor))
    return sum(_evening(game, draw, actor) for game, draw, actor in sorted(played, key=lambda p: p[1].scheduled_at))


def _evening(game: DemoGame, draw: Draw, actor: Actor) -> int:
    """One draw closed, started at its time, run and its game conducted: its prize lines."""
    at = draw.scheduled_at
    draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    if draw.method == DrawMethod.RAPS:
        _floor_list(draw, actor, now=draw.tickets_close_at + dt.timedelta(minutes=5))
    if game.vault:
        for tier in draw.series.eligible_tiers.all():
            jackpot, consolation = game.vault
            vault_prizes_set(
                actor=actor, draw_id=draw.pk, tier_id=tier.pk, jackpot_cents=jackpot, consolation_cents=consolation
            )
    draw_start(actor=actor, draw_id=draw.pk, witness_name=WITNESS, now=at)
    moment = _run(draw, actor, at)
    return _conduct(Draw.objects.get(pk=draw.pk), actor, moment)


def _floor_list(draw: Draw, actor: Actor, *, now: dt.datetime) -> None:
    """The RAPS session's active-player list, as exported from the gaming system: the first
    demo members of its tiers (by id, so every load lists the same), a third of them at
    tables, spends around the minimum so that some are left out."""
    members = Member.objects.filter(tier__in=draw.series.eligible_tiers.all()).order_by("pk")[:FLOOR_PLAYERS]
    rng = random.Random(draw.pk)
    rows = ["card_number,device_type,device_id,spend"]
    for n, member in enumerate(members, start=1):
        device = f"table,BJ{n % 6 + 1}" if n % 3 == 0 else f"slot,S{n:03d}"
        # Every seventh spent under the minimum (R500): left out, as a real floor list has some.
        spend = rng.randint(100, 499) if n % 7 == 0 else rng.randint(500, 6_000)
        rows.append(f"{member.card_number},{device},{spend}.00")
    slot_quota, table_quota = default_quotas(draw.series)
    raps_list_upload(
        actor=actor,
        draw_id=draw.pk,
        file_name="active-players.csv",
        text="\n".join(rows) + "\n",
        min_spend_cents=FLOOR_MIN_SPEND,
        excluded_devices=[],
        slot_quota=slot_quota,
        table_quota=table_quota,
        now=now,
    )


def _boards(game: DemoGame, seed_code: str, series: DrawSeries, day: dt.date, actor: Actor) -> None:
    """The seed's boards of the series, for the demo day, their blank amounts filled."""
    tiers = {t.code: t for t in Tier.objects.all()}
    for bdef in (b for b in SEED_BOARDS[seed_code] if b.series == series.code):
        amounts = iter(game.amounts)
        slots = [_filled(s, amounts, game.entries) for s in bdef.slots]
        # A vault board is per date: the demo day's, a last Thursday's 3 balls (GH r9, A2-A3).
        last = next(iter(bdef.per_date_settings.values()), {})
        # A place or entries slot whose later draw the copy does not have is left out (TH's car
        # draw qualifier place: the copy has no car draw, so it qualifies nobody).
        own = set(series.promotion.series.values_list("code", flat=True))
        slots = [s for s in slots if not isinstance(s.target_series, str) or s.target_series in own]
        settings = {**bdef.settings, **last}
        if "car_draw_qualifiers" in settings and not any(s.kind == LineKind.PLACE for s in slots):
            settings["car_draw_qualifiers"] = 0
        for tier_code in bdef.tiers or (None,):
            board_create(
                actor=actor,
                series=series,
                game=bdef.game,
                slots=[_own_target(s, series) for s in slots],
                tier=tiers[tier_code] if tier_code else None,
                draw_date=day if bdef.dates else None,
                total_cents=bdef.total_cents,
                settings=settings,
                notes=f"{bdef.notes} {DEMO_NOTE}",
            )


def _filled(slot: SlotDef, amounts, entries: int | None) -> SlotDef:
    """A blank slot with its demo value: an entries slot's count, else the next demo amount."""
    if slot.kind == LineKind.ENTRIES:
        return slot if slot.count is not None else replace(slot, count=entries)
    return slot if slot.amount_cents is not None else replace(slot, amount_cents=next(amounts, None))


def _own_target(slot: SlotDef, series: DrawSeries) -> SlotDef:
    if isinstance(slot.target_series, str):  # the copy's series of that code
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
            if board.game == BoardGame.PLACE:  # nothing played on stage: prizes by the order of the picks
                break
            game_event_record(actor=actor, pick_id=pick.pk, event=_event(board, draw, pick))
            if board.game == BoardGame.SAFE and pick.outcome == PickOutcome.PRESENT:
                game_event_record(actor=actor, pick_id=pick.pk, event={"safe": _safe_try(pick == winners[0])})
        lines += len(game_finish(actor=actor, pick_id=winners[0].pk))
    return lines


def _safe_try(first: bool) -> str:
    """TH r125: the first winner forfeits R2,000 to try the safe and fails (the safe then grows
    by R20,000 at Finish, A17); the others keep their podiums."""
    return "not_cracked" if first else "kept"


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


__all__ = ["DEMO_GAMES", "RF_CARDS", "DemoPrizes", "load_demo_prizes"]
