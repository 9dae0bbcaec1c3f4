"""Ticket allocation: each eligible member's tickets for a draw, from the points ledger.

One set-based statement for the whole draw (or for one member, with the same statement):
the points earned at the draw's property in the earning period are summed per member, then
the series' earning rule turns them into earned, free and bonus tickets and applies the cap.

Who is counted: members of an eligible tier, whose home property is the draw's property or
who earned points there in the period, 18 or older on the draw day and not excluded (self-
exclusion, Refusal of Entry, connected person) at the draw's time.
"""

import datetime as dt
import functools
import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple
from zoneinfo import ZoneInfo

from django.db import connection, transaction
from django.utils import timezone

from core.prepared import prepared_cursor
from draws.models import Draw
from members.eligibility import eligible_params, eligible_sql, person_refusals
from members.models import Member
from promotions.models import EarningRule, PeriodKind
from promotions.rules import RuleUnreadable


class Allocation(NamedTuple):
    """One member's tickets. A NamedTuple (immutable, like the frozen dataclass it was) because
    a draw builds one per member: about a third of a frozen dataclass's cost a row."""

    member_id: int
    points: int
    earned: int
    free: int
    bonus: int
    capped: int  # tickets removed by the cap
    tickets: int

    def as_dict(self) -> dict:
        return {
            "points": self.points,
            "earned": self.earned,
            "free": self.free,
            "bonus": self.bonus,
            "capped": self.capped,
            "tickets": self.tickets,
        }


def earning_period(draw: Draw) -> tuple[dt.datetime, dt.datetime] | None:
    """[start, end) of the points that count; it always ends just before the draw starts."""
    rule: EarningRule = draw.series.rule
    end = draw.scheduled_at
    if rule.period_kind == PeriodKind.NONE:
        return None
    if rule.period_kind == PeriodKind.DAYS_BEFORE:
        return end - dt.timedelta(days=rule.period_days), end
    if rule.period_kind == PeriodKind.MONTH_TO_DATE:
        local = timezone.localtime(end)
        start = dt.datetime.combine(local.date().replace(day=1), rule.period_start_time)
        return timezone.make_aware(start), end
    return rule.fixed_start, min(rule.fixed_end, end) if rule.fixed_end else end


def eligibility_span(draw: Draw, at: dt.datetime) -> dict[str, dt.datetime]:
    """The span a person must be eligible throughout to take part in the draw, asked at `at`:
    from then (never later than the draw) until the draw (members.eligibility's `at`, `until`)."""
    return {"at": min(at, draw.scheduled_at), "until": draw.scheduled_at}


def _years_before(day: dt.date, years: int) -> dt.date:
    try:
        return day.replace(year=day.year - years)
    except ValueError:  # 29 February
        return day.replace(year=day.year - years, day=28)


def _tier_numbers(rule: EarningRule, values, draw: Draw, tiers, at: dt.datetime) -> list[tuple]:
    """(tier id, points per ticket, free tickets, cap) of each eligible tier, by code. Tier id 0,
    which matches no member, stands alone when there is no eligible tier: the series then
    allocates to no one."""
    codes = {t.code: t.pk for t in tiers}
    if rule.equal_opportunity_tickets is not None:
        per_ticket, free, caps, default_cap = {}, {}, {}, None
        default_free, default_ppt = rule.equal_opportunity_tickets, 0
    else:
        default_ppt = draw.points_per_ticket or rule.points_per_ticket or 0
        per_ticket = {} if draw.points_per_ticket else values.points_per_ticket_by_tier
        free, default_free = values.free_tickets_on(timezone.localtime(at).weekday()), 0
        caps, default_cap = values.cap_by_tier, rule.cap
    return [
        (tier_id, per_ticket.get(code, default_ppt), free.get(code, default_free), caps.get(code, default_cap))
        for code, tier_id in sorted(codes.items()) or [("", 0)]
    ]


def _tier_constants(numbers: list[tuple], params: dict) -> str:
    """A VALUES list of _tier_numbers: the member's row joins its tier's numbers once, instead of
    a CASE chain per number and row. Only eligible tiers are listed, so the join also keeps out
    every other tier."""
    rows = []
    for index, row in enumerate(numbers):
        names = (f"tier{index}", f"ppt{index}", f"free{index}", f"cap{index}")
        params.update(zip(names, row, strict=True))
        rows.append("(" + ", ".join(f"CAST(%({name})s AS BIGINT)" for name in names) + ")")
    # A CTE with a column list, not `(VALUES ...) AS t (...)`, which SQLite (make run) cannot read.
    return f"t (tier_id, ppt, free, cap) AS (VALUES {', '.join(rows)})"


def _tier_arrays(numbers: list[tuple], params: dict) -> tuple[str, dict[str, str]]:
    """_tier_numbers as arrays indexed by tier id (a handful of tiers, small ids), for the
    statement over every member, where a join to a VALUES list would be a nested loop (hash
    joins are off there): (the condition that the member of alias m is in an eligible tier, the
    expression of each number of m's tier, by name). A tier that is not eligible has no points
    per ticket (NULL); every eligible one has a number there, 0 at least."""
    size = max(row[0] for row in numbers)
    for index, name in enumerate(("ppt", "free", "cap"), start=1):
        column = [None] * size
        for row in numbers:
            if row[0]:
                column[row[0] - 1] = row[index]
        params[f"tier_{name}"] = column
    numbers_sql = {name: f"(CAST(%(tier_{name})s AS BIGINT[]))[m.tier_id]" for name in ("ppt", "free", "cap")}
    return f"{numbers_sql['ppt']} IS NOT NULL", numbers_sql


@functools.lru_cache(maxsize=256)
def _local_midnights(first: dt.date, days: int, zone: str) -> tuple[dt.datetime, ...]:
    """The moments the local days from `first` begin, `days` + 1 of them (the last one ends the
    period's last day), in the time zone `zone`: a day the clocks change is still one day. Cached:
    the desk builds the statement on every lookup."""
    tz = ZoneInfo(zone)
    return tuple(dt.datetime.combine(first + dt.timedelta(days=n), dt.time(), tzinfo=tz) for n in range(days + 1))


def _visits(params: dict, start: dt.datetime, end: dt.datetime) -> tuple[str, str]:
    """(aggregate columns, visits expression): the number of distinct local days with points.

    COUNT(DISTINCT day) cannot be hashed: PostgreSQL would sort every points row of the period.
    Instead each day of the period is one bit of a BIGINT bitmap (64 days a word), OR-ed per
    member in the same aggregate as the SUM (combinable, so parallel workers share it), and the
    days are the bits set. A row's bit is found by width_bucket among its word's local midnights
    (a binary search over moments), once a row: cheaper than interval arithmetic repeated for each
    word (1.46x -> 1.24x the bare GROUP BY, bench/allocation.py --rule visits), and correct where
    the clocks change."""
    if connection.vendor != "postgresql":
        # SQLite (make run): Johannesburg's local date, as it has no daylight saving.
        return "COUNT(DISTINCT date(p.earned_at, '+2 hours')) AS visits", "COALESCE(pts.visits, 0)"
    first = timezone.localtime(start).date()
    # At least one day: a fixed earning period may start after a draw (it then counts no row).
    days = max(1, (timezone.localtime(end).date() - first).days + 1)
    midnights = _local_midnights(first, days, timezone.get_current_timezone_name())
    last = (days - 1) // 64
    words = []
    for word in range(last + 1):
        # Word w holds days 64w to 64w + 63: the bit is the number of the word's later midnights
        # (at most 63) that the row's moment has passed.
        params[f"midnights{word}"] = list(midnights[64 * word + 1 : 64 * word + 64])
        bit = f"CAST(1 AS BIGINT) << width_bucket(p.earned_at, %(midnights{word})s)"
        in_word = []
        if word > 0:
            params[f"word{word}"] = midnights[64 * word]
            in_word.append(f"p.earned_at >= %(word{word})s")
        if word < last:
            in_word.append(f"p.earned_at < %(word{word + 1})s")
        bits = f"CASE WHEN {' AND '.join(in_word)} THEN {bit} END" if in_word else bit
        words.append(f"BIT_OR({bits}) AS days{word}")
    counted = " + ".join(f"COALESCE(BIT_COUNT(CAST(pts.days{word} AS BIT(64))), 0)" for word in range(len(words)))
    return ", ".join(words), f"({counted})"


def allocation_sql(
    draw: Draw, *, at: dt.datetime, member_id: int | None = None, tiers=None, member_ref: str | None = None
) -> tuple[str, dict]:
    """The statement for the draw (or one member). Raises promotions.rules.RuleUnreadable when the
    series' stored rule cannot be read, before any SQL is built from it. `tiers`: the series'
    eligible tiers when the caller already has them (else read, or taken from a prefetch).
    `member_ref`: one member named by a column of an enclosing statement instead of `member_id`
    (a LATERAL subquery of the activation's first statement, draws.services._first_look).

    A draw from draws.activation_cache (never changed once loaded) keeps what it built in its
    `allocation_sql_memo`: the statement depends on `at` only through the weekday's free tickets
    and the eligibility span's start, which is set again on each call."""
    memo = getattr(draw, "allocation_sql_memo", None)
    if memo is None:
        return _allocation_sql(draw, at=at, member_id=member_id, tiers=tiers, member_ref=member_ref)
    tier_ids = tuple(t.pk for t in tiers) if tiers is not None else None
    key = (member_ref or member_id is not None, timezone.localtime(at).weekday(), tier_ids)
    if key not in memo:
        memo[key] = _allocation_sql(draw, at=at, member_id=member_id, tiers=tiers, member_ref=member_ref)
    sql, params = memo[key]
    return sql, {**params, **eligible_params(**eligibility_span(draw, at)), "member": member_id}


def _allocation_sql(
    draw: Draw, *, at: dt.datetime, member_id: int | None, tiers, member_ref: str | None = None
) -> tuple[str, dict]:
    rule: EarningRule = draw.series.rule
    values = rule.values()  # whole numbers within bounds, or RuleUnreadable naming the series
    day = timezone.localtime(draw.scheduled_at).date()
    params: dict = {
        "property": draw.property_id,
        "fifty_born_by": _years_before(day, 50),
        "draw_day": day,
        "member": member_id,
    }
    member = member_ref or ("%(member)s" if member_id else None)
    # Every member at once (PostgreSQL): shaped for merge joins in member id order (see
    # WHOLE_DRAW_SETTINGS). One member, or SQLite: hash joins and a probe per member.
    whole_table = member is None and connection.vendor == "postgresql"
    # Who may take part: members.eligibility's rule, in SQL, over the same span as the desk's.
    eligible, eligible_params = eligible_sql("m", every_member=whole_table, **eligibility_span(draw, at))
    params.update(eligible_params)
    period = earning_period(draw)
    start, end = params["start"], params["end"] = period or (draw.scheduled_at, draw.scheduled_at)
    if tiers is None:
        tiers = draw.series.eligible_tiers.all()  # uses a prefetch when there is one
    numbers = _tier_numbers(rule, values, draw, tiers, at)
    if whole_table:
        in_tier, tier = _tier_arrays(numbers, params)
        tier_values, tier_join, members_kept = "", "", f"AND {in_tier}"
    else:
        tier = {"ppt": "t.ppt", "free": "t.free", "cap": "t.cap"}
        tier_values, tier_join = f",\n{_tier_constants(numbers, params)}", "JOIN t ON t.tier_id = m.tier_id"
        members_kept = f"AND m.id = {member}" if member else ""
    one_member = f"AND p.member_id = {member}" if member else ""

    # Days with points are counted only when the rule pays per visit; "active at the property"
    # needs only some points in the period, which is a row in pts (points are never zero).
    per_visit = rule.equal_opportunity_tickets is None and (rule.bonus_per_visit or rule.bonus_per_visit_app)
    visit_columns, visits = _visits(params, start, end) if per_visit else ("", "0")
    points = "COALESCE(pts.points, 0)"
    if rule.equal_opportunity_tickets is not None:
        earned, bonus, cap = "0", "0", "CAST(NULL AS BIGINT)"
    else:
        params.update(
            minimum=rule.minimum_points,
            bonus_app=rule.bonus_app_registered,
            bonus_50=rule.bonus_age_50_plus,
            bonus_active=rule.bonus_active_at_property,
            bonus_visit=rule.bonus_per_visit,
            bonus_visit_app=rule.bonus_per_visit_app,
        )
        earned = f"CASE WHEN {points} >= %(minimum)s AND {tier['ppt']} > 0 THEN {points} / {tier['ppt']} ELSE 0 END"
        app = "(m.app_registered_on IS NOT NULL AND m.app_registered_on <= %(draw_day)s)"
        bonus = (
            f"CASE WHEN {app} THEN %(bonus_app)s ELSE 0 END"
            " + CASE WHEN m.date_of_birth <= %(fifty_born_by)s THEN %(bonus_50)s ELSE 0 END"
            " + CASE WHEN pts.member_id IS NOT NULL THEN %(bonus_active)s ELSE 0 END"
        )
        if per_visit:
            bonus += f" + {visits} * (%(bonus_visit)s + CASE WHEN {app} THEN %(bonus_visit_app)s ELSE 0 END)"
        cap = tier["cap"]

    # One member: MATERIALIZED, the member's sums computed once, then joined. Every member: NOT
    # MATERIALIZED, so that PostgreSQL can sum in parallel, sorted by member (partial and final
    # GroupAggregate) and merge the sums with the members read in id order, with no hash table
    # of either (WHOLE_DRAW_SETTINGS). Materialized there, the sums were hashed and then a
    # million members hashed (both spilling to disk): 1.6-1.8x the bare GROUP BY, not 1.1-1.3x.
    # (Inlined with hash joins on, PostgreSQL picks a parallel join whose inner side, not
    # parallel-aware, recomputes the whole aggregate in the leader and in each worker.)
    sql = f"""
        WITH pts AS {"NOT MATERIALIZED" if whole_table else "MATERIALIZED"} (
            SELECT p.member_id, SUM(p.points) AS points{", " + visit_columns if visit_columns else ""}
            FROM members_pointsentry p
            WHERE p.property_id = %(property)s AND p.earned_at >= %(start)s AND p.earned_at < %(end)s {one_member}
            GROUP BY p.member_id
        ){tier_values}
        SELECT member_id, points, earned, free, bonus,
               CASE WHEN cap IS NOT NULL AND earned + free + bonus > cap THEN cap ELSE earned + free + bonus END
        FROM (
            SELECT m.id AS member_id, {points} AS points, ({earned}) AS earned, {tier["free"]} AS free,
                   ({bonus}) AS bonus, {cap} AS cap
            FROM members_member m
            {tier_join}
            LEFT JOIN pts ON pts.member_id = m.id
            WHERE (m.home_property_id = %(property)s OR pts.member_id IS NOT NULL)
              AND {eligible}
              {members_kept}
        ) AS scored
    """  # noqa: S608 (only placeholders and fixed SQL are formatted in)
    return sql, params


def allocation_from_row(row) -> Allocation:
    member_id, points, earned, free, bonus, tickets = (int(v) for v in row)
    return Allocation(member_id, points, earned, free, bonus, earned + free + bonus - tickets, tickets)


# PostgreSQL settings for the statement over a whole draw (SET LOCAL, put back when it is done:
# inside a caller's transaction they would otherwise last until that one ends, and a statement
# prepared meanwhile would keep a plan made without hash joins). JIT off: the statement's
# estimated cost is far above jit_above_cost, and compiling it took about a second (in each
# parallel worker), for a plan bound by reading and hashing rows, not by evaluating expressions.
# Hash joins off: the statement is written for merge joins in member id order (_allocation_sql),
# which PostgreSQL's estimates do not find by themselves; with both sides hashed it took 1.6-1.8x
# the bare GROUP BY.
WHOLE_DRAW_SETTINGS = {"jit": "off", "enable_hashjoin": "off"}


def set_locally(cursor, settings: dict[str, str] | None) -> None:
    """SET LOCAL each of `settings` (name: value) in the cursor's transaction, in one statement."""
    if not settings:
        return
    names = list(settings)
    calls = ", ".join("set_config(%s, %s, true)" for _ in names)
    cursor.execute(f"SELECT {calls}", [v for name in names for v in (name, settings[name])])


@contextmanager
def whole_draw_cursor() -> Iterator:
    """A cursor in a transaction with WHOLE_DRAW_SETTINGS: every statement over a whole draw's
    allocation_sql runs in one (the statement is written for them). The settings are put back
    as they were when the block ends (after an error, the savepoint's rollback undoes them)."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            yield cursor
            return
        names = list(WHOLE_DRAW_SETTINGS)
        cursor.execute("SELECT " + ", ".join("current_setting(%s)" for _ in names), names)
        before = dict(zip(names, cursor.fetchone(), strict=True))
        set_locally(cursor, WHOLE_DRAW_SETTINGS)
        yield cursor
        set_locally(cursor, before)


def draw_allocations(draw: Draw, *, at: dt.datetime | None = None) -> list[Allocation]:
    """Every eligible member's allocation for the draw (members with no tickets included)."""
    sql, params = allocation_sql(draw, at=at or timezone.now())
    # A million rows: every column is already an integer (no int() per value), and the cyclic
    # garbage collector waits while the tuples are made (they hold only integers; it would
    # otherwise walk every one of them many times over for nothing).
    collecting = gc.isenabled()
    gc.disable()
    try:
        with whole_draw_cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return [Allocation(m, p, e, f, b, e + f + b - t, t) for m, p, e, f, b, t in rows]
    finally:
        if collecting:
            gc.enable()


@dataclass(frozen=True)
class MemberDrawStanding:
    """What the desk, the eHost or the app shows a member for one draw."""

    allocation: Allocation | None
    refusals: list[str]

    @property
    def tickets(self) -> int:
        return self.allocation.tickets if self.allocation else 0


def person_refusals_for_draw(draw: Draw, member: Member, *, at: dt.datetime, may_be_excluded: bool = True) -> list[str]:
    """Why this person may not take part in the draw, asked at `at`: the same rule as the
    allocation statement's (excluded at any moment from `at` until the draw, under 18 on the
    draw day), in words for the desk. `may_be_excluded=False`: the caller asked
    members.eligibility.exclusion_possible_sql at `at` and no exclusion is in force then or later,
    so the register is not read again (unless the span starts before `at`: a draw already past)."""
    span = eligibility_span(draw, at)
    return person_refusals(
        id_number=member.id_number,
        date_of_birth=member.date_of_birth,
        check_exclusions=may_be_excluded or span["at"] < at,
        **span,
    )


# member_allocation's `counted` when the caller has not run the statement.
NOT_COUNTED = object()


def member_allocation(
    draw: Draw, member: Member, *, at: dt.datetime | None = None, may_be_excluded: bool = True, counted=NOT_COUNTED
) -> MemberDrawStanding:
    """One member's tickets for the draw, or the reasons they get none. `may_be_excluded`: see
    person_refusals_for_draw (the devices' first statement asks). `counted`: the statement's row
    for this member at `at` (None: no row), when the caller ran it inside its own statement with
    this copy of the draw (draws.services._first_look), so it is not sent again."""
    at = at or timezone.now()
    tiers = list(draw.series.eligible_tiers.all())  # read once, for the refusal and the statement
    eligible_tiers = {t.pk: t.name for t in tiers}
    unreadable = None
    if member.tier_id in eligible_tiers:
        row = counted
        if counted is NOT_COUNTED:
            try:
                sql, params = allocation_sql(draw, at=at, member_id=member.pk, tiers=tiers)
            except RuleUnreadable as error:  # raised below, unless the member is refused anyway
                unreadable, row = error, None
            else:
                with prepared_cursor() as cursor:  # the same statement for every member of the draw
                    cursor.execute(sql, params)
                    row = cursor.fetchone()
        # The statement counts only members person_refusals lets take part (the same rule in SQL,
        # draws/tests/test_eligibility_agrees.py): the register is read again only to say why not.
        if row is not None:
            return MemberDrawStanding(allocation_from_row(row), [])
    refusals = person_refusals_for_draw(draw, member, at=at, may_be_excluded=may_be_excluded)
    if member.tier_id not in eligible_tiers:
        refusals.append(f"This draw is for {', '.join(eligible_tiers.values())} members; this member is {member.tier}.")
    if refusals:
        return MemberDrawStanding(None, refusals)
    if unreadable is not None:
        raise unreadable
    return MemberDrawStanding(
        None, [f"Not a {draw.property.name} member and no points earned there in the earning period."]
    )


@dataclass(frozen=True)
class AllocationRow:
    allocation: Allocation
    member: Member | None


@dataclass(frozen=True)
class AllocationOverview:
    members: int
    members_with_tickets: int
    tickets: int
    top: list[AllocationRow]

    @property
    def members_without_tickets(self) -> int:
        return self.members - self.members_with_tickets


def allocation_overview(draw: Draw, *, at: dt.datetime, limit: int = 50) -> AllocationOverview:
    """The totals of draw_allocations(draw) and its `limit` largest allocations, computed by the
    database from the same statement, so the page costs the same for 50 members or 1,000,000."""
    sql, params = allocation_sql(draw, at=at)
    params["overview_limit"] = limit
    overview_sql = f"""
        WITH alloc (member_id, points, earned, free, bonus, tickets) AS ({sql})
        SELECT member_id, points, earned, free, bonus, tickets,
               COUNT(*) OVER (), SUM(CASE WHEN tickets > 0 THEN 1 ELSE 0 END) OVER (), SUM(tickets) OVER ()
        FROM alloc
        ORDER BY tickets DESC, member_id
        LIMIT %(overview_limit)s
    """  # noqa: S608 (allocation_sql formats in only placeholders and fixed SQL)
    with whole_draw_cursor() as cursor:
        cursor.execute(overview_sql, params)
        rows = cursor.fetchall()
    if not rows:
        return AllocationOverview(0, 0, 0, [])
    top = [allocation_from_row(row[:6]) for row in rows if row[5] > 0]
    members = Member.objects.select_related("tier").in_bulk([a.member_id for a in top])
    members_total, with_tickets, tickets = (int(v or 0) for v in rows[0][6:])
    return AllocationOverview(
        members_total, with_tickets, tickets, [AllocationRow(a, members.get(a.member_id)) for a in top]
    )
