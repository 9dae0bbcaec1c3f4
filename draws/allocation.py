"""Ticket allocation: each eligible member's tickets for a draw, from the points ledger.

One set-based statement for the whole draw (or for one member, with the same statement):
the points earned at the draw's property in the earning period are summed per member, then
the series' earning rule turns them into earned, free and bonus tickets and applies the cap.

Who is counted: members of an eligible tier, whose home property is the draw's property or
who earned points there in the period, 18 or older on the draw day and not excluded (self-
exclusion, Refusal of Entry, connected person) at the draw's time.
"""

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.utils import timezone

from draws.models import Draw
from members.eligibility import eligible_sql, person_refusals
from members.models import Member
from promotions.models import EarningRule, PeriodKind


@dataclass(frozen=True)
class Allocation:
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


def _by_tier(values: dict, default, params: dict, name: str, tier_ids: dict[str, int]) -> str:
    """CASE expression picking a per-tier number by the member's tier id (no join with the
    tier table), with the default for tiers not listed."""
    params[name] = default
    whens = []
    for index, (code, value) in enumerate(sorted(values.items())):
        if code in tier_ids:
            params[f"{name}_t{index}"], params[f"{name}_v{index}"] = tier_ids[code], value
            whens.append(f"WHEN %({name}_t{index})s THEN %({name}_v{index})s")
    if not whens:
        return f"CAST(%({name})s AS BIGINT)"
    return f"CAST(CASE tier_id {' '.join(whens)} ELSE %({name})s END AS BIGINT)"


def _local_date(column: str) -> str:
    if connection.vendor == "postgresql":
        return f"(({column}) AT TIME ZONE %(tz)s)::date"
    return f"date({column}, '+2 hours')"  # SQLite (make run): Johannesburg has no daylight saving


def allocation_sql(draw: Draw, *, at: dt.datetime, member_id: int | None = None) -> tuple[str, dict]:
    """The statement for the draw (or one member). Raises promotions.rules.RuleUnreadable when the
    series' stored rule cannot be read, before any SQL is built from it."""
    rule: EarningRule = draw.series.rule
    values = rule.values()  # whole numbers within bounds, or RuleUnreadable naming the series
    day = timezone.localtime(draw.scheduled_at).date()
    # Tiers that are not eligible never reach the CASEs, so the eligible ones name every tier needed.
    codes = {t.code: t.pk for t in draw.series.eligible_tiers.all()}  # uses a prefetch when there is one
    tier_ids = list(codes.values()) or [0]
    params: dict = {
        "tz": settings.TIME_ZONE,
        "property": draw.property_id,
        "fifty_born_by": _years_before(day, 50),
        "draw_day": day,
        "member": member_id,
    }
    # Who may take part: members.eligibility's rule, in SQL, over the same span as the desk's.
    eligible, eligible_params = eligible_sql("m", **eligibility_span(draw, at))
    params.update(eligible_params)
    period = earning_period(draw)
    params["start"], params["end"] = period or (draw.scheduled_at, draw.scheduled_at)
    tiers_in = ", ".join(f"%(tier{i})s" for i in range(len(tier_ids)))
    params.update({f"tier{i}": tier_id for i, tier_id in enumerate(tier_ids)})
    one_member = "AND p.member_id = %(member)s" if member_id else ""
    one_member_m = "AND m.id = %(member)s" if member_id else ""

    # Distinct days cost a sort of every points row; count them only when the rule pays per
    # visit ("active at the property" needs only some points, which COUNT(*) tells).
    per_visit = rule.equal_opportunity_tickets is None and (rule.bonus_per_visit or rule.bonus_per_visit_app)
    visits = f"COUNT(DISTINCT {_local_date('p.earned_at')})" if per_visit else "COUNT(*)"
    if rule.equal_opportunity_tickets is not None:
        params["equal"] = rule.equal_opportunity_tickets
        earned, free, bonus, cap = "0", "%(equal)s", "0", "CAST(NULL AS BIGINT)"
    else:
        per_ticket = draw.points_per_ticket or rule.points_per_ticket or 0
        ppt = _by_tier(
            values.points_per_ticket_by_tier if not draw.points_per_ticket else {}, per_ticket, params, "ppt", codes
        )
        params["minimum"] = rule.minimum_points
        earned = f"CASE WHEN points >= %(minimum)s AND ({ppt}) > 0 THEN points / ({ppt}) ELSE 0 END"
        free = _by_tier(values.free_tickets_on(timezone.localtime(at).weekday()), 0, params, "free", codes)
        params.update(
            bonus_app=rule.bonus_app_registered,
            bonus_50=rule.bonus_age_50_plus,
            bonus_active=rule.bonus_active_at_property,
            bonus_visit=rule.bonus_per_visit,
            bonus_visit_app=rule.bonus_per_visit_app,
        )
        app = "(app_registered_on IS NOT NULL AND app_registered_on <= %(draw_day)s)"
        bonus = (
            f"(CASE WHEN {app} THEN %(bonus_app)s ELSE 0 END"
            " + CASE WHEN date_of_birth <= %(fifty_born_by)s THEN %(bonus_50)s ELSE 0 END"
            " + CASE WHEN visits > 0 THEN %(bonus_active)s ELSE 0 END"
            f" + visits * (%(bonus_visit)s + CASE WHEN {app} THEN %(bonus_visit_app)s ELSE 0 END))"
        )
        cap = _by_tier(values.cap_by_tier, rule.cap, params, "cap", codes)

    sql = f"""
        WITH pts AS (
            SELECT p.member_id, SUM(p.points) AS points, {visits} AS visits
            FROM members_pointsentry p
            WHERE p.property_id = %(property)s AND p.earned_at >= %(start)s AND p.earned_at < %(end)s {one_member}
            GROUP BY p.member_id
        ),
        base AS (
            SELECT m.id AS member_id, m.tier_id, COALESCE(pts.points, 0) AS points,
                   COALESCE(pts.visits, 0) AS visits, m.app_registered_on, m.date_of_birth
            FROM members_member m
            LEFT JOIN pts ON pts.member_id = m.id
            WHERE m.tier_id IN ({tiers_in})
              AND (m.home_property_id = %(property)s OR pts.member_id IS NOT NULL)
              AND {eligible}
              {one_member_m}
        ),
        scored AS (
            SELECT member_id, points, ({earned}) AS earned, ({free}) AS free, ({bonus}) AS bonus, ({cap}) AS cap
            FROM base
        )
        SELECT member_id, points, earned, free, bonus,
               CASE WHEN cap IS NOT NULL AND earned + free + bonus > cap THEN cap ELSE earned + free + bonus END
        FROM scored
    """  # noqa: S608 (only placeholders and fixed SQL are formatted in)
    return sql, params


def allocation_from_row(row) -> Allocation:
    member_id, points, earned, free, bonus, tickets = (int(v) for v in row)
    return Allocation(member_id, points, earned, free, bonus, earned + free + bonus - tickets, tickets)


def draw_allocations(draw: Draw, *, at: dt.datetime | None = None) -> list[Allocation]:
    """Every eligible member's allocation for the draw (members with no tickets included)."""
    sql, params = allocation_sql(draw, at=at or timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [allocation_from_row(row) for row in cursor.fetchall()]


@dataclass(frozen=True)
class MemberDrawStanding:
    """What the desk, the eHost or the app shows a member for one draw."""

    allocation: Allocation | None
    refusals: list[str]

    @property
    def tickets(self) -> int:
        return self.allocation.tickets if self.allocation else 0


def person_refusals_for_draw(draw: Draw, member: Member, *, at: dt.datetime) -> list[str]:
    """Why this person may not take part in the draw, asked at `at`: the same rule as the
    allocation statement's (excluded at any moment from `at` until the draw, under 18 on the
    draw day), in words for the desk."""
    return person_refusals(id_number=member.id_number, date_of_birth=member.date_of_birth, **eligibility_span(draw, at))


def member_allocation(draw: Draw, member: Member, *, at: dt.datetime | None = None) -> MemberDrawStanding:
    """One member's tickets for the draw, or the reasons they get none."""
    at = at or timezone.now()
    refusals = person_refusals_for_draw(draw, member, at=at)
    eligible_tiers = {t.pk: t.name for t in draw.series.eligible_tiers.all()}
    if member.tier_id not in eligible_tiers:
        refusals.append(f"This draw is for {', '.join(eligible_tiers.values())} members; this member is {member.tier}.")
    if refusals:
        return MemberDrawStanding(None, refusals)
    sql, params = allocation_sql(draw, at=at, member_id=member.pk)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return MemberDrawStanding(
            None, [f"Not a {draw.property.name} member and no points earned there in the earning period."]
        )
    return MemberDrawStanding(allocation_from_row(row), [])


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
    with connection.cursor() as cursor:
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
