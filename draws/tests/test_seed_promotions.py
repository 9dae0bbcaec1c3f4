"""The five seed promotions load with every series and draw, once, with their moves, windows and
assumptions (draws/seeds/)."""

import datetime as dt
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from conftest import reference_rows
from core.models import AuditEvent
from draws.models import Draw, TicketWindow
from promotions.models import DrawSeries, EarningRule, Promotion
from testing.db import shared_rows

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))

# The number of draws of each series, as defined in draws/seeds/.
EXPECTED = {
    "grc-turn-up-the-heat": {
        "wed-1300-cash": 14,
        "wed-2000-cash": 14,
        "thu-queen-cash": 13,
        "sat-car-finalists": 9,
        "sat-car-final": 3,
        "sat-cash-1500": 10,
        "sat-cash-1900": 10,
        "sat-cash-2100": 10,
        "sat-safe-share-2130": 1,
    },
    "grc-royal-flush": {
        "wed-bonus-jackpot-raps": 24,
        "sat-bonus-jackpot-raps": 36,
        "sat-cash-2130": 12,
        "month-end-bins": 15,
        "month-end-finalist": 3,
        "wild-card": 2,
        "grand-finale": 1,
    },
    "grc-fast-lane-to-fortune": {
        "wed-1300-equal": 14,
        "wed-2000-equal": 14,
        "thu-jack-1900": 13,
        "thu-queen-2000": 13,
        "sat-car-1500-1900": 6,
        "sat-car-2100": 3,
        "sat-car-final": 3,
        "sat-cash-1500": 10,
        "sat-cash-1900": 10,
        "sat-cash-2100": 10,
    },
    "golden-horse-prive-powerplay": {
        "thu-1300-midday": 9,
        "thu-1900-ten-jack": 9,
        "thu-2000-queen": 9,
        "thu-2100-king-ace": 9,
        "sat-bonus-jackpot-raps": 5,
        "sat-2000-ten-jack": 3,
        "sat-2100-queen": 3,
        "sat-2200-king-ace": 3,
        "halfway-mark": 2,
        "car-draw": 1,
    },
    "emnotweni-daytime-playtime": {"wed-1400-manual": 4},
}


def sast(*args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=SAST)


def load() -> str:
    out = StringIO()
    call_command("load_seed_promotions", stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def module_loaded(django_db_setup, django_db_blocker):
    """`load_seed_promotions` run: made once for the module,
    each test's changes rolled back (testing.db.shared_rows)."""
    with shared_rows(django_db_blocker):
        reference_rows()
        load()
        yield


@pytest.fixture
def loaded(module_loaded, db):
    """The module's seed promotions, inside this test's transaction."""


def series(promotion: str, code: str) -> DrawSeries:
    return DrawSeries.objects.get(promotion__code=promotion, code=code)


def windows(draw: Draw) -> list[tuple[dt.datetime, dt.datetime]]:
    return [(w.opens_at, w.closes_at) for w in draw.windows.order_by("opens_at")]


def test_five_promotions_with_every_series_and_draw(loaded):
    assert set(Promotion.objects.values_list("code", flat=True)) == set(EXPECTED)
    for code, expected in EXPECTED.items():
        promotion = Promotion.objects.get(code=code)
        assert promotion.rules_text.strip(), code
        assert {s.code: s.draws.count() for s in promotion.series.all()} == expected, code
        assert EarningRule.objects.filter(series__promotion=promotion).count() == len(expected)
    assert Draw.objects.count() == sum(sum(e.values()) for e in EXPECTED.values()) == 330


def test_loading_again_adds_nothing(loaded):
    def counts():
        return (
            Promotion.objects.count(),
            DrawSeries.objects.count(),
            EarningRule.objects.count(),
            Draw.objects.count(),
            TicketWindow.objects.count(),
            AuditEvent.objects.filter(action="promotion.seed_loaded").count(),
        )

    before = counts()
    output = load()
    assert counts() == before
    assert output.count("(0 added)") == 5
    assert "Turn Up the Heat: 9 series, 84 draws (0 added)" in output


def test_reloading_keeps_a_managers_later_edits(loaded):
    rule = series("golden-horse-prive-powerplay", "thu-2000-queen").rule
    rule.cap, rule.points_per_ticket = 7, 1
    rule.save()
    load()
    rule.refresh_from_db()
    assert (rule.cap, rule.points_per_ticket) == (7, 1)
    assert rule.assumptions.startswith("Rule 8's table of earning periods is missing")


def test_turn_up_the_heat_22_october_1300_draw_moves_to_tuesday_21_october(loaded):
    wednesday = series("grc-turn-up-the-heat", "wed-1300-cash")
    moved = wednesday.draws.get(moved_from=sast(2025, 10, 22, 13, 0))
    assert moved.scheduled_at == sast(2025, 10, 21, 13, 0)
    assert "Tuesday 21 October 2025 at 13h00" in moved.change_reason
    assert windows(moved) == [(sast(2025, 10, 21, 8, 0), sast(2025, 10, 21, 12, 55))]

    others = wednesday.draws.exclude(pk=moved.pk)
    assert not others.exclude(moved_from=None).exists()
    assert all(not d.change_reason for d in others)
    local = [timezone.localtime(d.scheduled_at) for d in others]
    assert all((t.weekday(), t.hour, t.minute) == (2, 13, 0) for t in local)
    assert dt.date(2025, 10, 22) not in {t.date() for t in local}
    assert len(local) == 13

    # The 20h00 draw of the same day moves to Tuesday 20h00 (rule 25).
    evening = series("grc-turn-up-the-heat", "wed-2000-cash").draws.get(moved_from=sast(2025, 10, 22, 20, 0))
    assert evening.scheduled_at == sast(2025, 10, 21, 20, 0)
    assert windows(evening) == [(sast(2025, 10, 21, 13, 0), sast(2025, 10, 21, 19, 55))]


def test_thursday_queen_23_october_draw_is_on_sunday_26_october_at_1300(loaded):
    thursday = series("grc-turn-up-the-heat", "thu-queen-cash")
    assert list(thursday.eligible_tiers.values_list("code", flat=True)) == ["QUEEN"]
    moved = thursday.draws.get(moved_from=sast(2025, 10, 23, 20, 0))
    assert moved.scheduled_at == sast(2025, 10, 26, 13, 0)
    assert "Sunday 26 October 2025 at 13h00" in moved.change_reason
    assert windows(moved) == [(sast(2025, 10, 26, 8, 0), sast(2025, 10, 26, 12, 55))]
    assert (moved.tickets_open_at, moved.tickets_close_at) == (sast(2025, 10, 26, 8, 0), sast(2025, 10, 26, 12, 55))
    assert moved.proxies_close_at == sast(2025, 10, 26, 12, 45)
    usual = thursday.draws.get(scheduled_at=sast(2025, 10, 16, 20, 0))
    assert windows(usual) == [(sast(2025, 10, 16, 8, 0), sast(2025, 10, 16, 19, 55))]


def test_fast_lane_saturday_cash_draws_sell_on_friday_night_and_saturday(loaded):
    nine_pm = series("grc-fast-lane-to-fortune", "sat-cash-2100").draws.all()
    assert nine_pm.count() == 10
    for draw in nine_pm:
        saturday = timezone.localtime(draw.scheduled_at).date()
        assert saturday.weekday() == 5
        friday = saturday - dt.timedelta(days=1)
        assert windows(draw) == [
            (sast(*friday.timetuple()[:3], 21, 0), sast(*saturday.timetuple()[:3], 0, 0)),
            (sast(*saturday.timetuple()[:3], 8, 0), sast(*saturday.timetuple()[:3], 20, 45)),
        ]
    three_pm = series("grc-fast-lane-to-fortune", "sat-cash-1500").draws.get(scheduled_at=sast(2026, 7, 4, 15, 0))
    assert windows(three_pm) == [
        (sast(2026, 7, 3, 21, 0), sast(2026, 7, 4, 0, 0)),
        (sast(2026, 7, 4, 8, 0), sast(2026, 7, 4, 14, 45)),
    ]


def test_series_settings_follow_the_seeds(loaded):
    raps = series("grc-royal-flush", "wed-bonus-jackpot-raps")
    assert (raps.method, raps.winners_per_draw, raps.win_once_scope) == ("raps", 15, "session")
    assert set(raps.eligible_tiers.values_list("code", flat=True)) == {"QUEEN", "KING", "ACE"}
    assert series("grc-royal-flush", "grand-finale").property.code == "MC"
    assert series("grc-royal-flush", "month-end-bins").win_once_scope == "bin"
    assert series("grc-fast-lane-to-fortune", "thu-jack-1900").method == "manual"
    assert series("grc-fast-lane-to-fortune", "wed-1300-equal").proxies_close_minutes == 0
    assert series("grc-turn-up-the-heat", "wed-2000-cash").proxies_open == dt.time(13, 0)
    halfway = series("golden-horse-prive-powerplay", "halfway-mark")
    assert {timezone.localtime(d.scheduled_at).hour: d.points_per_ticket for d in halfway.draws.all()} == {
        20: 250,
        21: 500,
    }
    car = series("golden-horse-prive-powerplay", "car-draw")
    assert (car.rule.cap, car.rule.points_per_ticket, car.property.code) == (4000, 3000, "GH")
    emnotweni = series("emnotweni-daytime-playtime", "wed-1400-manual").draws.first()
    assert windows(emnotweni) == [(sast(2025, 9, 3, 12, 0), sast(2025, 9, 3, 14, 0))]


def test_every_series_says_what_was_assumed_citing_the_rules(loaded):
    for rule in EarningRule.objects.select_related("series__promotion"):
        label = f"{rule.series.promotion.code}/{rule.series.code}"
        assert rule.assumptions.strip(), f"{label} has no assumptions"
        for sentence in re.split(r"(?<=\.)\s+(?=[A-Z])", rule.assumptions.strip()):
            assert re.search(r"\b[Rr]ules? \d", sentence), f"{label}: {sentence!r} cites no rule"


def test_every_window_closes_by_the_draw_and_after_it_opens(loaded):
    for draw in Draw.objects.prefetch_related("windows"):
        spans = list(draw.windows.all())
        assert spans, draw.name
        for window in spans:
            assert window.opens_at < window.closes_at <= draw.scheduled_at, draw.name
        assert draw.tickets_close_at == max(w.closes_at for w in spans) <= draw.scheduled_at
        assert draw.tickets_open_at == min(w.opens_at for w in spans)
        assert draw.proxies_open_at <= draw.proxies_close_at <= draw.scheduled_at, draw.name


def test_the_loader_goes_through_the_services_and_their_audit_events(loaded):
    # The same services as a manager's forms: each promotion, series and draw is on record.
    assert AuditEvent.objects.filter(action="promotion.created").count() == 5
    assert AuditEvent.objects.filter(action="series.created").count() == DrawSeries.objects.count() == 37
    assert AuditEvent.objects.filter(action="draw.scheduled").count() == 330


def test_fast_lane_selects_a_member_once_per_draw_and_every_seed_gives_90_seconds(loaded):
    # Fast Lane rule 117: "Patrons can only be selected/drawn once per promotional draw period."
    fast_lane = DrawSeries.objects.filter(promotion__code="grc-fast-lane-to-fortune")
    assert fast_lane.exists() and all(s.one_selection_per_draw for s in fast_lane)
    others = DrawSeries.objects.exclude(promotion__code="grc-fast-lane-to-fortune")
    assert not others.filter(one_selection_per_draw=True).exists()
    assert set(DrawSeries.objects.values_list("presentation_seconds", flat=True)) == {90}
