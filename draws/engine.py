"""Running a draw: start, picks in order with their outcomes, completion (DRAWS.md §2-§5).

Every change happens under the draw's row lock, so the tick and any number of managers see one
run: a second Start finds the draw running, a second "next pick" finds a pick awaiting its
outcome (and the database allows only one, constraint one_pick_awaiting_outcome). Each pick is
its own transaction: a worker killed between two picks leaves whole picks only, and the next
call carries on from the last recorded k.
"""

import datetime as dt
import logging
import re

from django.db import connection, transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import local_datetime
from core.swipe import CARD_SWIPE, looks_like_swipe
from draws import entry_sources, registers, winner_counts
from draws.models import (
    AUTOMATIC_OUTCOMES,
    WINNING_OUTCOMES,
    Activation,
    Draw,
    DrawPick,
    DrawStatus,
    PickOutcome,
    RapsEntry,
    RapsPool,
)
from draws.selection import electronic_serial, raps_row
from draws.services import freeze_entries
from draws.version import software_version
from members.eligibility import person_standing
from members.identity import IdType
from members.models import Member
from members.staff import check_staff_property
from promotions.models import DrawMethod, WinOnceScope

logger = logging.getLogger(__name__)

# The outcomes the conductor records on the stage (DRAWS.md §3), in the order of the buttons.
MANAGER_OUTCOMES = (
    PickOutcome.PRESENT,
    PickOutcome.PROXY_PRESENT,
    PickOutcome.DECLINED,
    PickOutcome.NO_SHOW,
    PickOutcome.DISQUALIFIED,
)
REDRAW_AFTER = frozenset({PickOutcome.NO_SHOW, PickOutcome.DISQUALIFIED})
# Automatic redraws made by one call before it yields (the tick carries on): a draw whose
# entries are nearly all barred must not hold a worker for long.
AUTOMATIC_PICKS_PER_CALL = 500
# The tick starts an electronic draw whose time came within this span (a worker down for a while
# catches up); an older one, e.g. a seed promotion's past season loaded today, is left to a
# manager's Start.
TICK_STARTS_WITHIN = dt.timedelta(hours=6)


def _locked(draw_id: int, actor: Actor) -> Draw:
    """The draw, row-locked, once `actor` is known to work at its property (the tick, with no
    user, runs every property's draws)."""
    draw = Draw.objects.select_for_update(of=("self",)).select_related("series", "property").get(pk=draw_id)
    check_staff_property(actor, draw.property)
    return draw


def _winners(draw: Draw) -> int:
    return draw.picks.filter(outcome__in=WINNING_OUTCOMES).count()


def _awaiting(draw: Draw) -> DrawPick | None:
    return draw.picks.filter(outcome="").first()


def serial_owner(draw: Draw, serial: int) -> Activation | None:
    """The activation holding `serial`: one range lookup on the (draw, first_serial) index."""
    activation = (
        Activation.objects.filter(draw=draw, first_serial__lte=serial)
        .select_related("member")
        .order_by("-first_serial")
        .first()
    )
    return activation if activation is not None and serial <= activation.last_serial else None


# --- Start ---------------------------------------------------------------------------------


def draw_start_refusal(draw: Draw, now: dt.datetime) -> str | None:
    """Why this draw cannot be started now, or None (also for the page's Start button)."""
    return draw.state(now).start_refusal


def early_start_warning(draw: Draw, now: dt.datetime) -> str | None:
    """What starting before the draw time does (issue 8: the tick at its time or Start, whichever
    comes first): the proxy and decline registers close with the start."""
    registers_close = max(draw.proxies_close_at, draw.declines_close_at)
    if now < registers_close:
        return (
            f"Starting now, before {local_datetime(draw.scheduled_at)}, closes the proxy and decline "
            f"registers early (they are open until {local_datetime(registers_close)})."
        )
    return None


def starts_early(draw: Draw, now: dt.datetime) -> bool:
    """Whether starting now is starting before the draw time (a reason is then required)."""
    return draw.state(now).starts_early


EARLY_START_REASON_NEEDED = "Starting before the draw time needs a reason: it is kept on the draw record."


def draw_start(
    *,
    actor: Actor,
    draw_id: int,
    witness_name: str = "",
    early_start_reason: str = "",
    now: dt.datetime | None = None,
) -> bool:
    """Start the draw: True if this call started it, False if it was already started (by the
    tick or another manager). Electronic and RAPS draws then make their first pick. Once started,
    no proxy or decline is registered for it (proxies.services). Starting before the draw time
    needs a reason, kept on the draw (the tick never starts a draw early)."""
    now = now or timezone.now()
    early_start_reason = early_start_reason.strip()
    with transaction.atomic():
        draw = _locked(draw_id, actor)
        state = draw.state(now)
        if state.has_started:
            return False
        if state.start_refusal:
            raise DomainError(state.start_refusal, code="cannot_start")
        early = state.starts_early
        if early and not early_start_reason:
            raise DomainError(EARLY_START_REASON_NEEDED, code="early_start_reason_required")
        if not state.entries_frozen:
            freeze_entries(draw, now=now)  # Start came before the tick froze them, under this lock
        draw.status = DrawStatus.RUNNING
        draw.started_at = now
        draw.started_by = actor.label
        draw.witness_name = witness_name.strip()
        # A RAPS session's winners are its quotas, as uploaded (the series may change later).
        raps = getattr(draw, "raps_list", None) if draw.method == DrawMethod.RAPS else None
        counted = None if raps else winner_counts.winners_wanted(draw)  # e.g. TH r69's 6 - places held
        if counted is not None and counted < 1:
            raise DomainError("This draw has no winner left to pick.", code="no_winner_left")
        draw.winners_wanted = raps.slot_quota + raps.table_quota if raps else counted or draw.series.winners_per_draw
        # A finalist draw's entrants all won the draws that carried them there (often the same
        # day): its win-once scope is the draw itself, or it could never have a winner.
        carried_only = entry_sources.takes_carried_only(draw)
        draw.win_once = WinOnceScope.DRAW if carried_only else draw.series.win_once_scope
        draw.presentation_seconds = draw.series.presentation_seconds
        draw.one_selection_per_draw = draw.series.one_selection_per_draw
        draw.early_start_reason = early_start_reason if early else ""
        draw.software_version = software_version()  # DRAWS.md §6: the software that ran the draw
        draw.save()
        audit_log(
            actor=actor,
            action="draw.started",
            obj=draw,
            data={
                "method": draw.method,
                "winners_wanted": draw.winners_wanted,
                "win_once": draw.win_once,
                "entries_sha256": draw.entries_sha256,
                "seed_sha256": draw.seed_sha256,
                "witness": draw.witness_name,
                "presentation_seconds": draw.presentation_seconds,
                "one_selection_per_draw": draw.one_selection_per_draw,
                "early_start_reason": draw.early_start_reason,
                "software_version": draw.software_version,
            },
        )
        if draw.tickets_total == 0:
            _complete(draw, actor=actor, now=now, short="No entries: nobody activated tickets for this draw.")
            return True
    draw_advance(actor=actor, draw_id=draw_id, now=now)
    return True


def draw_witness_record(*, actor: Actor, draw_id: int, witness_name: str) -> Draw:
    """Name the witness of a draw the tick started (or correct a blank one) before it completes."""
    name = witness_name.strip()
    if not name:
        raise DomainError("Type the witness's name.", code="witness_required")
    with transaction.atomic():
        draw = _locked(draw_id, actor)
        state = draw.state(timezone.now())
        if state.witness_refusal:
            raise DomainError(state.witness_refusal, code="witness_recorded" if state.is_running else "not_running")
        draw.witness_name = name
        draw.save(update_fields=["witness_name"])
        audit_log(actor=actor, action="draw.witness_recorded", obj=draw, data={"witness": name})
    return draw


# --- Picks ---------------------------------------------------------------------------------


def _automatic_outcome(draw: Draw, member: Member, now: dt.datetime) -> tuple[str, str]:
    """DRAWS.md §3's automatic redraws, decided the moment the pick is made: (outcome, reason),
    or ("", "") when the pick goes to the stage for its outcome."""
    earlier = draw.picks.filter(member=member, outcome__in=WINNING_OUTCOMES).first()
    if earlier:
        return PickOutcome.REDRAW_ALREADY_WINNER, f"Card {earlier.card_number} already won pick {earlier.k}."
    if draw.one_selection_per_draw:
        drawn = draw.picks.filter(member=member).order_by("seq").first()
        if drawn:
            return PickOutcome.REDRAW_ALREADY_DRAWN, (
                f"Card {drawn.card_number} was already picked in this draw (pick {drawn.k}): one selection per draw."
            )
    won = _win_in_scope(draw, member)
    if won:
        return PickOutcome.REDRAW_WON_IN_SCOPE, (
            f"Already won {won.draw.name} (pick {won.k}): {WinOnceScope(draw.win_once).label.lower()}."
        )
    standing = person_standing(id_number=member.id_number, date_of_birth=member.date_of_birth, at=now)
    # The record goes to outside auditors and is never edited: the category only; the
    # exclusion's details stay in the exclusion register.
    if standing.under_age:
        return PickOutcome.REDRAW_INELIGIBLE, "Under 18 at the moment of the pick."
    if standing.exclusions:
        return PickOutcome.REDRAW_INELIGIBLE, "On the exclusion register at the moment of the pick."
    # proxies sits above draws: its register is asked through draws.registers.
    proxy = registers.proxy_of(draw, member)
    if proxy:
        return PickOutcome.REDRAW_IS_PROXY, f"Registered as the proxy of card {proxy.participant_card} for this draw."
    return "", ""


def _win_in_scope(draw: Draw, member: Member) -> DrawPick | None:
    """A win of this member in another draw within the series' win-once scope. "day" and
    "period" reach across the promotion's draws (Turn Up the Heat rule 12: once per promotional
    day, the 3pm and 7pm draws alike); "draw", "session" and "bin" mean this draw only. A win in a
    RAPS bonus session never counts: Royal Flush rule 36's once per day is the cash draws' (A13),
    or rule 34.1's entries for that week's bonus winners would be void at the Saturday cash draw."""
    wins = DrawPick.objects.filter(member=member, outcome__in=WINNING_OUTCOMES).exclude(draw=draw)
    wins = wins.exclude(draw__method=DrawMethod.RAPS)
    wins = wins.filter(draw__series__promotion_id=draw.series.promotion_id)
    if draw.win_once == WinOnceScope.DAY:
        day = timezone.localdate(draw.scheduled_at)
        start = timezone.make_aware(dt.datetime.combine(day, dt.time.min))
        wins = wins.filter(draw__scheduled_at__gte=start, draw__scheduled_at__lt=start + dt.timedelta(days=1))
    elif draw.win_once != WinOnceScope.PERIOD:
        return None
    return wins.select_related("draw").order_by("picked_at").first()


def win_scope_lock_key(draw: Draw) -> str | None:
    """The advisory lock's name for the draw's win-once scope when it reaches across draws
    ("day": the promotion and the Johannesburg date of the draw; "period": the promotion), or None."""
    promotion_id = draw.series.promotion_id
    if draw.win_once == WinOnceScope.DAY:
        return f"draws.win_scope.{promotion_id}.{timezone.localdate(draw.scheduled_at).isoformat()}"
    if draw.win_once == WinOnceScope.PERIOD:
        return f"draws.win_scope.{promotion_id}"
    return None


def _lock_win_scope(draw: Draw) -> None:
    """Take turns with the promotion's other draws in the same win-once scope until this
    transaction ends (issue 13, item 11): two draws running at once each check "already won
    today?" and then record a win; without the turn both checks miss the other's uncommitted
    win. Under READ COMMITTED the check made after the lock sees the other's committed win."""
    key = win_scope_lock_key(draw)
    # SQLite (make run's zero-setup database) has one writer at a time: nothing to take turns on.
    if key is not None and connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [key])


def _won_in_scope_refusal(draw: Draw, pick: DrawPick) -> str | None:
    """Why this pick cannot win: the member won another draw of the scope since the pick was made
    (the two draws ran at once), in words for the conductor; None if not."""
    won = _win_in_scope(draw, pick.member)
    if won is None:
        return None
    return (
        f"Card {pick.card_number} has just won {won.draw.name} (pick {won.k}): "
        f"{WinOnceScope(draw.win_once).label.lower()}. Record Disqualified with that reason."
    )


def _record_pick(
    draw: Draw, *, actor: Actor, now: dt.datetime, pool: str, k: int, serial: int, member: Member, card: str
) -> DrawPick:
    _lock_win_scope(draw)
    outcome, reason = _automatic_outcome(draw, member, now)
    last = draw.picks.order_by("-seq").values_list("seq", flat=True).first() or 0
    pick = DrawPick.objects.create(
        draw=draw,
        seq=last + 1,
        pool=pool,
        k=k,
        serial=serial,
        member=member,
        card_number=card,
        picked_at=now,
        picked_by=actor.label,
        outcome=outcome,
        reason=reason,
        outcome_at=now if outcome else None,
        outcome_by=actor.label if outcome else "",
    )
    audit_log(
        actor=actor,
        action="draw.picked",
        obj=draw,
        data={"seq": pick.seq, "pool": pool, "k": k, "serial": serial, "card_number": card, "outcome": outcome},
    )
    return pick


def _barred_members(picks, *, one_selection: bool = False) -> set[int]:
    """Members who cannot win any more of this draw: its winners and its automatic redraws (and,
    with one selection per draw, everyone picked)."""
    if one_selection:
        return {p.member_id for p in picks}
    return {p.member_id for p in picks if p.outcome in WINNING_OUTCOMES or p.outcome in AUTOMATIC_OUTCOMES}


def _next_electronic(draw: Draw, *, actor: Actor, now: dt.datetime) -> DrawPick | None:
    picks = list(draw.picks.all())
    if len(_barred_members(picks, one_selection=draw.one_selection_per_draw)) >= draw.entries_count:
        return None  # every entrant has won or been ruled out: the manager ends the draw short
    k = len(picks) + 1
    serial = electronic_serial(
        seed=bytes.fromhex(draw.seed_hex), entries_sha256=draw.entries_sha256, k=k, tickets_total=draw.tickets_total
    )
    owner = serial_owner(draw, serial)
    if owner is None:
        raise RuntimeError(f"Serial {serial} of draw {draw.pk} has no owner: its entries are not 1..N.")
    return _record_pick(
        draw, actor=actor, now=now, pool="", k=k, serial=serial, member=owner.member, card=owner.member.card_number
    )


def raps_next_pool(draw: Draw, picks: list[DrawPick]) -> str | None:
    """The pool the next RAPS pick comes from: slots until their quota is met, then tables;
    a pool whose players have all won or been ruled out is passed over."""
    raps = draw.raps_list
    for pool in (RapsPool.SLOT, RapsPool.TABLE):
        pool_picks = [p for p in picks if p.pool == pool]
        if sum(p.outcome in WINNING_OUTCOMES for p in pool_picks) >= raps.quota(pool):
            continue
        # One query, not the pool's rows: a list may hold 100,000 players.
        barred = _barred_members(picks, one_selection=draw.one_selection_per_draw)
        if raps.entries.filter(pool=pool).exclude(member_id__in=barred).exists():
            return pool
    return None


def _next_raps(draw: Draw, *, actor: Actor, now: dt.datetime) -> DrawPick | None:
    picks = list(draw.picks.all())
    pool = raps_next_pool(draw, picks)
    if pool is None:
        return None
    raps = draw.raps_list
    k = sum(p.pool == pool for p in picks) + 1
    size = raps.entries.filter(pool=pool).count()
    row = raps_row(seed=bytes.fromhex(draw.seed_hex), list_sha256=raps.list_sha256, pool=pool, k=k, pool_size=size)
    entry = RapsEntry.objects.select_related("member").get(raps_list=raps, pool=pool, row=row)
    return _record_pick(
        draw, actor=actor, now=now, pool=pool, k=k, serial=row, member=entry.member, card=entry.card_number
    )


def draw_advance(*, actor: Actor, draw_id: int, now: dt.datetime | None = None) -> DrawPick | None:
    """Make the next picks of a running electronic or RAPS draw, one transaction each, until one
    awaits its outcome (returned), the draw has its winners, or no entrant can win any more."""
    for _ in range(AUTOMATIC_PICKS_PER_CALL):
        with transaction.atomic():
            draw = _locked(draw_id, actor)
            if not draw.state(now or timezone.now()).may_pick:
                return None
            awaiting = _awaiting(draw)
            if awaiting is not None:
                return awaiting
            if _winners(draw) >= draw.winners_wanted:
                return None
            moment = now or timezone.now()
            pick = (_next_raps if draw.method == DrawMethod.RAPS else _next_electronic)(draw, actor=actor, now=moment)
            if pick is None:
                return None
            if pick.awaits_outcome():
                return pick
    return None


SERIAL_SWIPED = "That was a card swipe: type the serial printed on the ticket."


def manual_serial_refusal(draw: Draw, text: str) -> tuple[int | None, str | None]:
    """The serial keyed (or scanned) for a manual draw, or why it is refused."""
    if looks_like_swipe(text):
        return None, SERIAL_SWIPED
    digits = text.strip()
    if not re.fullmatch(r"[0-9]{1,19}", digits):
        return None, f"“{text.strip()[:20]}” is not a ticket serial: type the number printed on the ticket."
    serial = int(digits)
    if not 1 <= serial <= draw.tickets_total:
        return None, f"Serial {serial} is not a ticket of this draw: its tickets run from 1 to {draw.tickets_total}."
    earlier = draw.picks.filter(serial=serial).first()
    if earlier:
        return None, f"Serial {serial} was already drawn (pick {earlier.k}, card {earlier.card_number})."
    return serial, None


def draw_key_serial(*, actor: Actor, draw_id: int, serial: str, now: dt.datetime | None = None) -> DrawPick:
    """Record the paper ticket drawn from a manual bin (DRAWS.md §4). A refused serial is kept
    as a refused key entry in the audit log, not as a pick."""
    now = now or timezone.now()
    with transaction.atomic():
        draw = _locked(draw_id, actor)
        refusal = draw.state(now).key_serial_refusal
        if refusal:
            raise DomainError(refusal, code="not_manual" if draw.method != DrawMethod.MANUAL else "not_running")
        awaiting = _awaiting(draw)
        if awaiting is not None:
            raise DomainError(f"Record the outcome of pick {awaiting.k} first.", code="pick_awaiting")
        number, refusal = manual_serial_refusal(draw, serial)
        if refusal is None:
            owner = serial_owner(draw, number)
            return _record_pick(
                draw,
                actor=actor,
                now=now,
                pool="",
                k=draw.picks.count() + 1,
                serial=number,
                member=owner.member,
                card=owner.member.card_number,
            )
    with transaction.atomic():
        # A card swipe keyed by mistake is kept as "(card swipe)": its stripe holds a member's name.
        keyed = CARD_SWIPE if looks_like_swipe(serial) else serial[:40]
        audit_log(actor=actor, action="draw.serial_refused", obj=draw, data={"keyed": keyed, "reason": refusal})
    raise DomainError(refusal, code="serial_refused")


# --- Outcomes and completion ---------------------------------------------------------------


def _clock(moment: dt.datetime) -> str:
    return timezone.localtime(moment).strftime("%H:%M:%S")


def outcome_refusal(draw: Draw, pick: DrawPick, outcome: str, now: dt.datetime) -> str | None:
    """Why `outcome` cannot be recorded for the awaiting `pick` now (DRAWS.md §3), or None. The
    page offers only the outcomes this accepts; the service asks it again under the draw's lock."""
    if outcome == PickOutcome.PROXY_PRESENT:
        if not draw.series.proxies_allowed:
            return "This draw takes no proxies."
        if registers.live_nomination(draw, pick.member) is None:
            return f"{pick.member.full_name} has no live proxy nomination for this draw: nobody may stand in."
    elif outcome == PickOutcome.DECLINED:
        if not registers.live_decline(draw, pick.member):
            return f"{pick.member.full_name} is not on the decline register for this draw."
    elif outcome == PickOutcome.NO_SHOW:
        if registers.live_decline(draw, pick.member):
            return (
                f"{pick.member.full_name} registered that they decline to be present: "
                "they are a winner. Record Declined."
            )
        if now < pick.window_ends_at():
            return f"The winner has until {_clock(pick.window_ends_at())} to come forward."
    return None


PRESENT_NEEDS_ID_TYPE = "Choose the ID document the winner showed: SA ID, driving licence or passport."


def pick_outcome_record(
    *,
    actor: Actor,
    draw_id: int,
    pick_id: int,
    outcome: str,
    reason: str = "",
    id_type_seen: str = "",
    receipt_seen: bool = False,
    stand_in_name: str = "",
    now: dt.datetime | None = None,
) -> DrawPick:
    """Record what happened to the pick awaiting its outcome (DRAWS.md §3). Present keeps the ID
    type seen and whether the receipt was seen; Proxy present needs a live nomination of this
    winner for this draw and keeps its nominee; Declined needs the winner on the decline register
    (the winner stands, to be contacted; a DayTime PlayTime finalist's audience stand-in is kept
    by name and wins nothing); No-show waits for the end of the presentation window and is
    refused for a decliner; Disqualified needs a reason. A winner completes the draw when it has
    its number; a no-show or disqualification is followed by the next pick at once (electronic
    and RAPS; a manual draw waits for the next serial)."""
    now = now or timezone.now()
    reason = reason.strip()
    stand_in_name = stand_in_name.strip()
    if outcome not in MANAGER_OUTCOMES:
        raise DomainError("Choose present, proxy present, declined, no-show or disqualified.", code="bad_outcome")
    if outcome == PickOutcome.DISQUALIFIED and not reason:
        raise DomainError("Say why the winner is disqualified.", code="no_reason")
    if outcome == PickOutcome.PRESENT and not id_type_seen:
        # The conductor checks the winner's ID against the card before the win stands.
        raise DomainError(PRESENT_NEEDS_ID_TYPE, code="id_type_required")
    if id_type_seen and id_type_seen not in IdType.values:
        raise DomainError("Choose the ID document seen: SA ID, driving licence or passport.", code="bad_id_type")
    if stand_in_name and outcome != PickOutcome.DECLINED:
        raise DomainError("An audience stand-in is named only for a declined winner.", code="stand_in_not_declined")
    with transaction.atomic():
        draw = _locked(draw_id, actor)
        pick = draw.picks.select_related("member").filter(pk=pick_id).first()
        if pick is None or not draw.state(now).may_record_outcome:
            raise DomainError("This pick is not part of a running draw.", code="not_running")
        if not pick.awaits_outcome():
            raise DomainError(
                f"Pick {pick.k} already has its outcome: {pick.get_outcome_display()}.", code="outcome_recorded"
            )
        pick.draw = draw
        refusal = outcome_refusal(draw, pick, outcome, now)
        if refusal:
            raise DomainError(refusal, code="outcome_refused")
        if outcome in WINNING_OUTCOMES:
            _lock_win_scope(draw)
            refusal = _won_in_scope_refusal(draw, pick)
            if refusal:
                raise DomainError(refusal, code="won_in_scope")
        nomination = registers.live_nomination(draw, pick.member) if outcome == PickOutcome.PROXY_PRESENT else None
        recorded = {
            "outcome": outcome,
            "reason": reason,
            "outcome_at": now,
            "outcome_by": actor.label,
            "id_type_seen": id_type_seen if outcome in (PickOutcome.PRESENT, PickOutcome.PROXY_PRESENT) else "",
            "receipt_seen": bool(receipt_seen) and outcome in (PickOutcome.PRESENT, PickOutcome.PROXY_PRESENT),
            "nominee_name": nomination.nominee_name if nomination else "",
            "nomination_id": nomination.nomination_id if nomination else None,
            "stand_in_name": stand_in_name,
        }
        DrawPick.objects.filter(pk=pick.pk, outcome="").update(**recorded)
        pick.refresh_from_db()
        audit_log(
            actor=actor,
            action="draw.pick_outcome",
            obj=draw,
            data={
                "seq": pick.seq,
                "k": pick.k,
                "pool": pick.pool,
                "card_number": pick.card_number,
                "outcome": outcome,
                "reason": reason,
                "id_type_seen": pick.id_type_seen,
                "receipt_seen": pick.receipt_seen,
                "nominee_name": pick.nominee_name,
                "nomination_id": pick.nomination_id,
                "stand_in_name": pick.stand_in_name,
                "window_ends_at": pick.window_ends_at().isoformat(),
            },
        )
        _winners_wanted_raise(draw, actor=actor)
        if _winners(draw) >= draw.winners_wanted:
            _complete(draw, actor=actor, now=now)
            return pick
    draw_advance(actor=actor, draw_id=draw_id, now=now)
    return pick


def _winners_wanted_raise(draw: Draw, *, actor: Actor) -> None:
    """A registered count may want more winners now this outcome is recorded (TH r69: a 9pm
    winner who already held a car draw place is paid R5,000 instead, and the draw picks one more
    finalist). Raised under the draw's row lock, never lowered, audited; the record's final
    count is what the verifier checks the winners against."""
    if draw.method == DrawMethod.RAPS:
        return
    wanted = winner_counts.winners_wanted(draw)
    if wanted is None or wanted <= draw.winners_wanted:
        return
    before = draw.winners_wanted
    draw.winners_wanted = wanted
    draw.save(update_fields=["winners_wanted"])
    audit_log(actor=actor, action="draw.winners_wanted_raised", obj=draw, data={"from": before, "to": wanted})


def _complete(draw: Draw, *, actor: Actor, now: dt.datetime, short: str = "") -> None:
    """The draw has its winners (or ends short): the seed is revealed (DRAWS.md §1)."""
    draw.status = DrawStatus.DRAWN
    draw.completed_at = now
    draw.ended_short_reason = short
    draw.save(update_fields=["status", "completed_at", "ended_short_reason"])
    winners = list(draw.picks.filter(outcome__in=WINNING_OUTCOMES).values_list("card_number", flat=True))
    audit_log(
        actor=actor,
        action="draw.completed",
        obj=draw,
        data={"winners": winners, "seed_hex": draw.seed_hex, "ended_short": short},
    )


def draw_end_short(*, actor: Actor, draw_id: int, reason: str, now: dt.datetime | None = None) -> Draw:
    """End a running draw with fewer winners than wanted (no entrant left who can win, a bin
    emptied), with the reason kept on the record."""
    now = now or timezone.now()
    reason = reason.strip()
    if not reason:
        raise DomainError("Say why the draw ends before it has all its winners.", code="no_reason")
    with transaction.atomic():
        draw = _locked(draw_id, actor)
        refusal = draw.state(now).end_short_refusal
        if refusal:
            raise DomainError(refusal, code="not_running")
        awaiting = _awaiting(draw)
        if awaiting is not None:
            raise DomainError(f"Record the outcome of pick {awaiting.k} first.", code="pick_awaiting")
        _complete(draw, actor=actor, now=now, short=reason)
    return draw


# --- The tick ------------------------------------------------------------------------------


def draws_start_due(*, now: dt.datetime | None = None) -> int:
    """Start every electronic draw whose time has come (the same service as the Start button),
    and carry on any running draw a lost worker left between two picks. The number started."""
    now = now or timezone.now()
    tick = Actor.system("tick")
    due = Draw.objects.filter(
        status__in=(DrawStatus.SCHEDULED, DrawStatus.CLOSED),
        method=DrawMethod.ELECTRONIC,
        scheduled_at__lte=now,
        scheduled_at__gt=now - TICK_STARTS_WITHIN,
        tickets_close_at__lte=now,
    ).values_list("pk", flat=True)
    started = 0
    for draw_id in list(due[:100]):
        try:
            started += draw_start(actor=tick, draw_id=draw_id, now=now)
        except DomainError as error:  # e.g. cancelled meanwhile: the others still start
            logger.warning("Draw %s not started by the tick: %s", draw_id, error.message)
        except Exception:
            logger.exception("Draw %s could not be started by the tick; the next tick tries again.", draw_id)
    stalled = (
        Draw.objects.filter(status=DrawStatus.RUNNING, method__in=(DrawMethod.ELECTRONIC, DrawMethod.RAPS))
        .exclude(picks__outcome="")
        .values_list("pk", flat=True)
    )
    for draw_id in list(stalled[:100]):
        try:
            draw_advance(actor=tick, draw_id=draw_id)
        except Exception:
            logger.exception("Draw %s could not make its next pick; the next tick tries again.", draw_id)
    return started
