"""The whole-draw statement, the one-member statement and the earning rule as written agree:
for generated members (every tier, ages around 50, app registration around the draw day, homes
here and elsewhere) and points (several a day, either side of local midnight, at other
properties, before and after the earning period), under rules that use every part of the rule,
draw_allocations(draw) gives each member exactly what member_allocation gives them and what the
rule in EarningRule's words computes in Python (expected() below)."""

import datetime as dt
import random
from zoneinfo import ZoneInfo

import pytest

from draws import activation_cache
from draws.allocation import allocation_from_row, draw_allocations, earning_period, member_allocation
from draws.services import _first_look
from draws.tests.factories import make_draw
from members.models import Property, Tier
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 16, 20, 0, tzinfo=SAST)  # a Thursday
AT = DRAW_AT - dt.timedelta(hours=3)
TIERS = ("TEN", "JACK", "QUEEN", "KING", "ACE")

RULES = {
    "by tier, minimum, caps, every bonus": {
        "period_kind": "days_before",
        "period_days": 10,
        "points_per_ticket": 100,
        "points_per_ticket_by_tier": {"KING": 50, "ACE": 0},
        "minimum_points": 150,
        "free_tickets_by_tier": {"JACK": 1, "QUEEN": 3},
        "free_tickets_by_weekday": {"3": {"QUEEN": 7, "ACE": 2}},
        "cap_by_tier": {"JACK": 4, "KING": 9},
        "cap": 12,
        "bonus_app_registered": 2,
        "bonus_age_50_plus": 3,
        "bonus_active_at_property": 1,
    },
    # 100 days: the distinct days fill more than one 64-day word of the visits bitmap.
    "per visit over 100 days": {
        "period_kind": "days_before",
        "period_days": 100,
        "points_per_ticket": 200,
        "bonus_per_visit": 1,
        "bonus_per_visit_app": 2,
        "bonus_active_at_property": 5,
        "cap_by_tier": {"TEN": 6},
    },
    "per visit, month to date": {"period_kind": "month_to_date", "points_per_ticket": 300, "bonus_per_visit": 2},
    "equal opportunity": {"period_kind": "days_before", "period_days": 10, "equal_opportunity_tickets": 200},
}


def local_day(moment: dt.datetime) -> dt.date:
    return moment.astimezone(SAST).date()


def expected(rule: dict, member, rows, start: dt.datetime, end: dt.datetime, here: int) -> dict | None:
    """The earning rule in Python, from EarningRule's docstring and fields."""
    mine = [(at, points) for at, points, prop in rows if prop == here and start <= at < end]
    if member.home_property_id != here and not mine:
        return None
    code = member.tier.code
    if rule.get("equal_opportunity_tickets") is not None:
        tickets = rule["equal_opportunity_tickets"]
        return {
            "points": sum(p for _, p in mine),
            "earned": 0,
            "free": tickets,
            "bonus": 0,
            "capped": 0,
            "tickets": tickets,
        }
    points = sum(p for _, p in mine)
    per_ticket = rule.get("points_per_ticket_by_tier", {}).get(code, rule.get("points_per_ticket") or 0)
    earned = points // per_ticket if points >= rule.get("minimum_points", 0) and per_ticket > 0 else 0
    free = {
        **rule.get("free_tickets_by_tier", {}),
        **rule.get("free_tickets_by_weekday", {}).get(str(AT.weekday()), {}),
    }
    app = member.app_registered_on is not None and member.app_registered_on <= local_day(DRAW_AT)
    visits = len({local_day(at) for at, _ in mine})
    fifty = member.date_of_birth <= local_day(DRAW_AT).replace(year=local_day(DRAW_AT).year - 50)
    bonus = (
        (rule.get("bonus_app_registered", 0) if app else 0)
        + (rule.get("bonus_age_50_plus", 0) if fifty else 0)
        + (rule.get("bonus_active_at_property", 0) if mine else 0)
        + visits * (rule.get("bonus_per_visit", 0) + (rule.get("bonus_per_visit_app", 0) if app else 0))
    )
    total = earned + free.get(code, 0) + bonus
    cap = rule.get("cap_by_tier", {}).get(code, rule.get("cap"))
    tickets = min(total, cap) if cap is not None else total
    return {
        "points": points,
        "earned": earned,
        "free": free.get(code, 0),
        "bonus": bonus,
        "capped": total - tickets,
        "tickets": tickets,
    }


@pytest.mark.parametrize("rule_name", list(RULES))
def test_the_draw_one_member_and_the_rule_agree(reference_data, rule_name):
    rule = RULES[rule_name]
    draw = make_draw(make_series(**rule), DRAW_AT)
    start, end = earning_period(draw)
    grc, other = Property.objects.get(code="GRC"), Property.objects.get(code="GH")
    tiers = {code: Tier.objects.get(code=code) for code in TIERS}
    rng = random.Random(17)
    rows_of = {}
    members = []
    for n in range(40):
        member = MemberFactory(
            tier=tiers[TIERS[n % len(TIERS)]],
            home_property=grc if n % 3 else other,
            date_of_birth=rng.choice([dt.date(1975, 10, 16), dt.date(1975, 10, 17), dt.date(1990, 5, 5)]),
            app_registered_on=rng.choice([None, dt.date(2025, 1, 1), dt.date(2025, 10, 16), dt.date(2025, 10, 17)]),
        )
        rows = []
        for _ in range(rng.choice([0, 1, 3, 8])):
            # Anywhere from 110 days before the draw to an hour after it, often near local midnight.
            at = DRAW_AT - dt.timedelta(days=rng.randint(-1, 110)) + dt.timedelta(hours=rng.choice([0, 2, 4]))
            at = at.replace(hour=rng.choice([0, 1, 21, 22, 23]), minute=rng.choice([0, 59]))
            prop = grc if rng.random() < 0.8 else other
            points = rng.choice([1, 49, 100, 150, 333])
            PointsEntryFactory(member=member, property=prop, points=points, earned_at=at)
            rows.append((at, points, prop.pk))
        rows_of[member.pk] = rows
        members.append(member)

    whole = {a.member_id: a.as_dict() for a in draw_allocations(draw, at=AT)}
    by_rule = {m.pk: e for m in members if (e := expected(rule, m, rows_of[m.pk], start, end, grc.pk)) is not None}
    assert whole == by_rule
    one_by_one = {}
    for m in members:
        standing = member_allocation(draw, m, at=AT)
        if standing.allocation:
            one_by_one[m.pk] = standing.allocation.as_dict()
    assert one_by_one == whole
    # The activation's first statement, counting with a worker's copy of the draw, agrees too.
    activation_cache.forget_all()
    copy = activation_cache.cached_draw(draw.pk, _first_look(members[0].card_number, draw.pk, None, AT).draw_version)
    in_first_look = {}
    for m in members:
        look = _first_look(m.card_number, draw.pk, None, AT)
        assert look.counted_with is copy
        if look.allocation:
            in_first_look[m.pk] = allocation_from_row(look.allocation).as_dict()
    activation_cache.forget_all()
    assert in_first_look == whole
    # The population exercises the rule: some members left out, some capped, some with visits.
    assert 0 < len(whole) < len(members)
    assert any(a["tickets"] > 0 for a in whole.values())
    if "cap" in rule or "cap_by_tier" in rule:
        assert any(a["capped"] > 0 for a in whole.values())


def test_a_cached_draw_remembers_its_statement_but_not_the_moment(reference_data):
    """activation_cache's copy of a draw keeps the one-member statement it built
    (allocation_sql_memo); the weekday's free tickets and the eligibility span still follow
    `at`, as they do for a draw read fresh."""
    from draws import activation_cache
    from members.tests.factories import ExclusionFactory

    draw = make_draw(make_series(**RULES["by tier, minimum, caps, every bonus"]), DRAW_AT)
    grc = Property.objects.get(code="GRC")
    queen = MemberFactory(tier=Tier.objects.get(code="QUEEN"), home_property=grc)
    barred = MemberFactory(tier=Tier.objects.get(code="QUEEN"), home_property=grc)
    PointsEntryFactory(member=queen, property=grc, points=333, earned_at=DRAW_AT - dt.timedelta(days=2))
    PointsEntryFactory(member=barred, property=grc, points=333, earned_at=DRAW_AT - dt.timedelta(days=2))
    # In force until Thursday noon: bars the member asked before then (on Wednesday too).
    noon = AT - dt.timedelta(hours=5)
    ExclusionFactory(id_number=barred.id_number, starts_at=AT - dt.timedelta(days=30), ends_at=noon)
    cached = activation_cache.load_draw(draw.pk)
    assert cached.allocation_sql_memo == {}
    # Thursday's free tickets: 7 for QUEEN, 3 on other days. The morning's statement is reused at
    # AT, with AT's eligibility span.
    morning, wednesday = AT - dt.timedelta(hours=9), AT - dt.timedelta(days=1)
    answers = {}
    for at in (morning, AT, wednesday, morning, AT):
        for member in (queen, barred):
            mine, fresh = member_allocation(cached, member, at=at), member_allocation(draw, member, at=at)
            assert (mine.allocation, mine.refusals) == (fresh.allocation, fresh.refusals)
            answers[(member.pk, at)] = mine.allocation.free if mine.allocation else None
    assert len(cached.allocation_sql_memo) == 2  # one statement per weekday
    assert answers == {
        (queen.pk, morning): 7, (queen.pk, AT): 7, (queen.pk, wednesday): 3,
        (barred.pk, morning): None, (barred.pk, AT): 7, (barred.pk, wednesday): None,
    }  # fmt: skip


@pytest.mark.parametrize("eligible", [("JACK", "KING"), ("ACE",), ()])
def test_only_the_series_tiers_are_counted_over_the_whole_draw_and_one_by_one(reference_data, eligible):
    """The whole draw looks each member's tier up in arrays indexed by tier id (hash joins are
    off there), the one-member statement joins a list of the eligible tiers: tiers left out of
    the series, ids on either side of an eligible one and a series with no eligible tier at all
    give the same members, with each tier's own numbers."""
    rule = {"points_per_ticket": 100, "free_tickets_by_tier": {"JACK": 1, "KING": 4, "ACE": 9}, "cap": 50}
    rule["cap_by_tier"] = {"KING": 2}
    draw = make_draw(make_series(tiers=eligible, **rule), DRAW_AT)
    grc = Property.objects.get(code="GRC")
    members = []
    for code in TIERS:
        member = MemberFactory(tier=Tier.objects.get(code=code), home_property=grc)
        PointsEntryFactory(member=member, property=grc, points=350, earned_at=DRAW_AT - dt.timedelta(days=1))
        members.append(member)

    whole = {a.member_id: a for a in draw_allocations(draw, at=AT)}
    one_by_one = {m.pk: s.allocation for m in members if (s := member_allocation(draw, m, at=AT)).allocation}
    assert whole == one_by_one
    by_code = {m.tier.code: whole[m.pk] for m in members if m.pk in whole}
    assert sorted(by_code) == sorted(eligible)
    tickets = {"JACK": 3 + 1, "KING": 2, "ACE": 3 + 9}  # KING's cap of 2 over 3 + 4
    assert {code: a.tickets for code, a in by_code.items()} == {code: tickets[code] for code in eligible}


def test_visits_are_local_days_also_where_the_clocks_change(reference_data, settings):
    """A visit's day is a local day, found among the local midnights of the earning period: in
    London, where the clocks went back on 26 October, the midnights after it are an hour later in
    UTC than those before. Two moments an hour apart either side of London's midnight, on each
    side of the change, are two visits; two on one day are one."""
    settings.TIME_ZONE = "Europe/London"
    london = ZoneInfo("Europe/London")
    draw_at = dt.datetime(2025, 11, 5, 20, 0, tzinfo=london)
    draw = make_draw(
        make_series(period_kind="days_before", period_days=20, points_per_ticket=10_000, bonus_per_visit=1), draw_at
    )
    grc = Property.objects.get(code="GRC")
    either_side = MemberFactory(home_property=grc)
    moments = {
        either_side: [dt.datetime(2025, 10, 27, 23, 30), dt.datetime(2025, 10, 28, 0, 30)],
        MemberFactory(home_property=grc): [dt.datetime(2025, 10, 24, 23, 30), dt.datetime(2025, 10, 25, 0, 30)],
        MemberFactory(home_property=grc): [dt.datetime(2025, 10, 28, 9, 0), dt.datetime(2025, 10, 28, 21, 0)],
    }
    for member, times in moments.items():
        for moment in times:
            PointsEntryFactory(member=member, property=grc, points=10, earned_at=moment.replace(tzinfo=london))

    whole = {a.member_id: a.tickets for a in draw_allocations(draw, at=draw_at - dt.timedelta(hours=2))}
    one_by_one = {m.pk: member_allocation(draw, m, at=draw_at - dt.timedelta(hours=2)).tickets for m in moments}
    expected = {m.pk: len({t.date() for t in times}) for m, times in moments.items()}
    assert whole == one_by_one == expected == {m.pk: n for m, n in zip(moments, (2, 2, 1), strict=True)}


def test_the_whole_draw_settings_end_with_the_statement(reference_data):
    """The whole draw's statement runs without hash joins and JIT (WHOLE_DRAW_SETTINGS); a
    caller's own transaction (the demo's, say) gets its settings back afterwards, so statements
    it prepares later are planned as usual."""
    from django.db import connection, transaction

    from draws.allocation import WHOLE_DRAW_SETTINGS, whole_draw_cursor

    draw = make_draw(make_series(), DRAW_AT)

    def current() -> dict:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('enable_hashjoin'), current_setting('jit')")
            return dict(zip(("enable_hashjoin", "jit"), cursor.fetchone(), strict=True))

    with transaction.atomic():
        before = current()
        with whole_draw_cursor():
            assert current() == WHOLE_DRAW_SETTINGS
        draw_allocations(draw, at=AT)
        assert current() == before
    assert before["enable_hashjoin"] == "on"


def test_visits_are_counted_at_the_edges_of_days_and_of_the_bitmaps_words(reference_data):
    """Over 100 days, moments a second either side of a local midnight are two visits: at the
    period's first midnight, at the one where the bitmap's second 64-day word begins, and on the
    draw's own day; two moments within one day are one visit; points just outside the period are
    none."""
    draw = make_draw(
        make_series(period_kind="days_before", period_days=100, points_per_ticket=10_000, bonus_per_visit=1), DRAW_AT
    )
    start, end = earning_period(draw)
    midnight = dt.datetime.combine(start.astimezone(SAST).date(), dt.time(), tzinfo=SAST)
    day = dt.timedelta(days=1)
    second = dt.timedelta(seconds=1)
    grc = Property.objects.get(code="GRC")
    moments = {
        "first midnight": ([midnight + day - second, midnight + day], 2),
        "second word": ([midnight + 64 * day - second, midnight + 64 * day], 2),
        "within a day": ([midnight + 64 * day, midnight + 65 * day - second], 1),
        "draw day": ([end.astimezone(SAST).replace(hour=0, minute=0) - second, end - second], 2),
        "outside": ([start - second, start, end], 1),
    }
    members = {}
    for name, (times, _visits) in moments.items():
        members[name] = MemberFactory(home_property=grc, app_registered_on=None, date_of_birth=dt.date(1990, 1, 1))
        for moment in times:
            PointsEntryFactory(member=members[name], property=grc, points=10, earned_at=moment)

    whole = {a.member_id: a.tickets for a in draw_allocations(draw, at=AT)}
    one_by_one = {m.pk: member_allocation(draw, m, at=AT).tickets for m in members.values()}
    expected = {members[name].pk: visits for name, (_times, visits) in moments.items()}
    assert whole == one_by_one == expected


def test_a_fixed_period_starting_after_the_draw_counts_no_visit(reference_data):
    """A series' fixed earning period may start after one of its draws: that draw counts no
    points and no visit, and the statement still runs."""
    draw = make_draw(
        make_series(
            period_kind="fixed",
            fixed_start=DRAW_AT + dt.timedelta(days=5),
            points_per_ticket=100,
            bonus_per_visit=1,
            bonus_app_registered=2,
        ),
        DRAW_AT,
    )
    grc = Property.objects.get(code="GRC")
    member = MemberFactory(home_property=grc, app_registered_on=dt.date(2025, 1, 1), date_of_birth=dt.date(1990, 1, 1))
    PointsEntryFactory(member=member, property=grc, points=500, earned_at=DRAW_AT - dt.timedelta(days=1))

    whole = {a.member_id: a for a in draw_allocations(draw, at=AT)}
    alone = member_allocation(draw, member, at=AT).allocation
    assert whole == {member.pk: alone}
    assert (alone.points, alone.earned, alone.bonus, alone.tickets) == (0, 0, 2, 2)
