"""promotions.services.series_save: the rule's numbers and windows are checked by the service
itself, whoever calls it (issue 6, items 2.2 and 2.8)."""

import pytest

from core.audit import Actor
from core.errors import DomainError
from members.models import Property, Tier
from promotions.models import DrawSeries, EarningRule, Promotion
from promotions.services import series_save

pytestmark = pytest.mark.django_db

WINDOWS = [{"day": 0, "open": "08:00", "close_before": 5}]


@pytest.fixture
def promotion(reference_data):
    promotion = Promotion.objects.create(
        code="heat", name="Turn Up the Heat", starts_on="2025-10-01", ends_on="2025-12-31"
    )
    promotion.properties.add(reference_data["properties"]["GRC"])
    return promotion


def save(promotion, *, property_code="GRC", windows=None, **rule):
    return series_save(
        actor=Actor.system("test"),
        series=DrawSeries(
            promotion=promotion,
            code="wed",
            name="Wednesday cash draw",
            property=Property.objects.get(code=property_code),
            ticket_windows=WINDOWS if windows is None else windows,
        ),
        eligible_tiers=list(Tier.objects.all()),
        desk_tiers=[],
        rule=EarningRule(**({"points_per_ticket": 100} | rule)),
    )


@pytest.mark.parametrize(
    "rule",
    [
        {"free_tickets_by_tier": [5]},
        {"points_per_ticket_by_tier": []},
        {"points_per_ticket_by_tier": [1, 2]},
        {"points_per_ticket_by_tier": "abc"},
        {"points_per_ticket_by_tier": {"ACE": "abc"}},
        {"points_per_ticket_by_tier": {"ACE": [1]}},
        {"free_tickets_by_weekday": {"0": 5}},
        {"free_tickets_by_weekday": []},
        {"cap_by_tier": {"KING": "x"}},
        {"free_tickets_by_tier": {"ACE": 2**63 - 1}},
        {"free_tickets_by_tier": {"ACE": 1e30}},
        {"free_tickets_by_tier": {"Queen": 10, "Kings": 5}},
    ],
)
def test_it_refuses_a_rule_that_would_break_the_pages_and_saves_nothing(promotion, rule):
    with pytest.raises(DomainError) as caught:
        save(promotion, **rule)
    assert caught.value.code == "bad_rule"
    assert "'" not in caught.value.message
    assert not DrawSeries.objects.exists() and not EarningRule.objects.exists()


def test_it_refuses_windows_it_could_not_lay_out(promotion):
    with pytest.raises(DomainError) as caught:
        save(promotion, windows=[{"day": 0, "open": "13:00", "close": "12:00"}])
    assert caught.value.message == "Ticket windows: Window 1: it closes at 12:00, not after it opens at 13:00."
    assert caught.value.code == "bad_window"


def test_it_saves_a_good_rule_in_the_stored_shapes(promotion):
    series = save(
        promotion,
        free_tickets_by_tier={"QUEEN": 10},
        free_tickets_by_weekday={"4": {"ACE": 50}},
        cap_by_tier={"TEN": 20},
    )
    rule = EarningRule.objects.get(series=series)
    assert (rule.free_tickets_by_tier, rule.free_tickets_by_weekday, rule.cap_by_tier) == (
        {"QUEEN": 10},
        {"4": {"ACE": 50}},
        {"TEN": 20},
    )


def test_a_rule_of_bonuses_only_gives_tickets(promotion):
    # Emnotweni Daytime Playtime: tickets only from bonuses (app, age 50+, active at the property).
    save(promotion, points_per_ticket=None, period_kind="month_to_date", bonus_active_at_property=1)
    assert EarningRule.objects.count() == 1


def test_it_refuses_a_series_at_a_property_the_promotion_does_not_run_at(promotion):
    with pytest.raises(DomainError) as caught:
        save(promotion, property_code="GH")
    assert caught.value.code == "outside_promotion"
    assert caught.value.message == (
        "Turn Up the Heat runs at Gold Reef City, not at Golden Horse: add the property to the promotion first."
    )
    assert not DrawSeries.objects.exists()


@pytest.mark.parametrize("start", ["0001-01-01T00:30:00+02:00", "9999-12-31T23:00:00+02:00"])
def test_it_refuses_a_fixed_period_the_database_could_not_read_back(promotion, start):
    import datetime as dt

    with pytest.raises(DomainError, match="between the years 1900 and 2100") as caught:
        save(promotion, period_kind="fixed", fixed_start=dt.datetime.fromisoformat(start))
    assert caught.value.code == "bad_rule"
    assert not DrawSeries.objects.exists()


def test_moving_a_series_with_draws_to_another_property_is_refused(promotion, reference_data):
    import datetime as dt

    from draws.services import draw_schedule

    promotion.properties.add(reference_data["properties"]["GH"])
    series = save(promotion)
    draw_schedule(
        actor=Actor.system("test"),
        series=series,
        scheduled_at=dt.datetime(2025, 10, 15, 13, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        allow_past=True,
    )
    series.property = Property.objects.get(code="GH")
    with pytest.raises(DomainError) as caught:
        series_save(
            actor=Actor.system("test"),
            series=series,
            eligible_tiers=list(Tier.objects.all()),
            desk_tiers=[],
            rule=series.rule,
        )
    assert caught.value.code == "series_has_draws"
    assert DrawSeries.objects.get(pk=series.pk).property.code == "GRC"


def test_the_audit_event_names_every_setting_that_changed(promotion):
    from core.models import AuditEvent

    series = save(promotion)
    series.proxies_close_minutes = 0
    series_save(
        actor=Actor.system("test"),
        series=series,
        eligible_tiers=list(Tier.objects.all()),
        desk_tiers=list(Tier.objects.filter(code="ACE")),
        rule=series.rule,
    )
    event = AuditEvent.objects.get(action="series.updated")
    assert event.data["changes"] == {"proxies_close_minutes": ["15", "0"]}
    assert event.data["desk_tiers"] == ["ACE"]
