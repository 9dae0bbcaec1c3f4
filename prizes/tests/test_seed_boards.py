"""The seed boards (issue 14 item 1): every amount the seed gives, quoted with its rule, and a
required setting (None) where it gives none (PRIZES.md "cfg"); loading twice adds nothing."""

import datetime as dt

import pytest

from core.audit import Actor
from prizes.boards import missing_settings_of
from prizes.conducting.symbol_boxes import bonus_amounts
from prizes.games.symbol_boxes import BonusAmounts
from prizes.models import BoardGame, PrizeBoard
from prizes.seed_boards import load_seed_boards

pytestmark = pytest.mark.django_db

LOADER = Actor.system("test")


@pytest.fixture
def boards(module_seed_boards, db):
    return module_seed_boards


def board(promotion: str, series: str, *, tier: str | None = None, day: str | None = None) -> PrizeBoard:
    return PrizeBoard.objects.get(
        series__promotion__code=promotion,
        series__code=series,
        tier__code=tier,
        draw_date=dt.date.fromisoformat(day) if day else None,
    )


def amounts(b: PrizeBoard) -> list:
    return [s.amount_cents for s in b.slots.all()]


def test_every_seed_gets_its_boards_and_a_second_load_adds_none(boards):
    # GH: midday, 3 vault series (2 + 1 + 2 tiers) x 9 Thursdays, RAPS, TEEDS 2 + 1 + 2 tiers, halfway, car.
    assert boards == {
        "golden-horse-prive-powerplay": 1 + 5 * 9 + 1 + 5 + 1 + 1,
        "grc-fast-lane-to-fortune": 10,
        "grc-royal-flush": 7,
        "grc-turn-up-the-heat": 9,  # with the 21h30 share-out (r135, A18)
        "emnotweni-daytime-playtime": 1,
    }
    assert set(load_seed_boards(actor=LOADER).values()) == {0}


def test_fast_lane_thursday_podiums_add_up_to_r41s_totals_and_are_required(boards):
    jack = board("grc-fast-lane-to-fortune", "thu-jack-1900")
    queen = board("grc-fast-lane-to-fortune", "thu-queen-2000")
    assert (jack.game, jack.total_cents, amounts(jack)) == (BoardGame.PODIUM, 2_000_000, [None] * 5)  # R20,000 r41
    assert queen.total_cents == 3_000_000  # R30 000 to Queens, r41


def test_fast_lane_roll_into_riches_die_table_is_r108s(boards):
    rir = board("grc-fast-lane-to-fortune", "sat-cash-2100")
    die = [(s.group.split(" (")[0], s.amount_cents // 100) for s in rir.slots.all() if s.group]
    assert die == [
        ("Die 1", 2000), ("Die 1", 5000), ("Die 1", 8000),
        ("Die 2", 5000), ("Die 2", 8000), ("Die 2", 10000),
        ("Die 3", 8000), ("Die 3", 10000), ("Die 3", 12000), ("Die 3", 15000),
        ("Die 4", 10000), ("Die 4", 12000), ("Die 4", 15000), ("Die 4", 18000),
        ("Die 5", 12000), ("Die 5", 15000), ("Die 5", 18000),
        ("Die 6", 15000), ("Die 6", 20000), ("Die 6", 25000),
    ]  # fmt: skip
    assert amounts(rir)[:5] == [None] * 5  # the randomiser's 5 reveals: not in the seed
    assert rir.setting("progressive_increment_cents") == 0  # A11


def test_fast_lane_car_draw_has_the_r67_vehicle_and_car_saturdays_give_places(boards):
    final = board("grc-fast-lane-to-fortune", "sat-car-final")
    first = final.slots.first()
    assert (first.kind, first.amount_cents) == ("vehicle", 36_200_000)  # "valued at R362k", r67
    assert amounts(final)[1:] == [None] * 5
    car = board("grc-fast-lane-to-fortune", "sat-car-1500-1900")
    assert [s.kind for s in car.slots.all()] == ["cash", "cash", "cash", "place", "place"]  # r59, A7
    assert {s.target_series.code for s in car.slots.all() if s.kind == "place"} == {"sat-car-final"}


def test_roulette_bets_are_r93_r94_and_the_multipliers_are_required(boards):
    roulette = board("grc-fast-lane-to-fortune", "sat-cash-1900")
    assert (roulette.setting("min_stake_cents"), roulette.setting("max_spins")) == (20_000, 10)
    assert roulette.setting("multiplier_17") is None  # A10: cfg


def test_fast_lane_best_hand_waits_for_its_places_and_its_deck(boards):
    """A9: the 25-card deck is not in the seed: a required setting, named with the places."""
    best = board("grc-fast-lane-to-fortune", "sat-cash-1500")
    assert (best.game, amounts(best), best.setting("split_ties")) == (BoardGame.BEST_HAND, [None] * 5, True)
    assert best.setting("deck") is None
    assert missing_settings_of(best)[-1] == "the 25 cards of the Best Hand deck"


def test_daytime_playtime_pays_r3000_r2000_r1000(boards):
    assert amounts(board("emnotweni-daytime-playtime", "wed-1400-manual")) == [300_000, 200_000, 100_000]  # r10.1


def test_turn_up_the_heat_boards(boards):
    # 9pm podiums: cfg (r124); the last slot is the car draw qualifier place (0: a place, r69)
    assert amounts(board("grc-turn-up-the-heat", "sat-cash-2100")) == [None] * 5 + [0]
    assert board("grc-turn-up-the-heat", "sat-cash-2100").setting("forfeit_cents") == 200_000  # R2,000, r125
    assert board("grc-turn-up-the-heat", "thu-queen-cash").total_cents == 4_000_000  # R40,000, r56
    boxes = board("grc-turn-up-the-heat", "sat-cash-1500")
    assert amounts(boxes) == [None] * 4 + [1_000_000, 750_000, 500_000, 0]  # r105, r107 (+ the qualifier place)
    assert bonus_amounts(boxes) == BonusAmounts(first=1_000_000, runner_up=750_000, declined=500_000)
    assert (boxes.setting("boxes"), boxes.setting("blank_boxes")) == (12, 6)  # r106, A19
    assert board("grc-turn-up-the-heat", "sat-car-final").slots.first().amount_cents == 38_000_000  # r87


def test_golden_horse_vault_per_tier_per_date_with_three_balls_on_last_thursdays(boards):
    queen_16 = board("golden-horse-prive-powerplay", "thu-2000-queen", tier="QUEEN", day="2026-07-16")
    assert amounts(queen_16) == [None, None]  # consolation and jackpot: "set on that day", A4
    assert queen_16.setting("balls") == 15
    for day in ("2026-07-30", "2026-08-27", "2026-09-10"):  # A3
        assert board("golden-horse-prive-powerplay", "thu-1900-ten-jack", tier="JACK", day=day).setting("balls") == 3


def test_royal_flush_raps_winners_get_required_entries_into_the_saturday_cash_draw(boards):
    raps = board("grc-royal-flush", "wed-bonus-jackpot-raps")
    entries = raps.slots.get(kind="entries")
    assert (entries.every_winner, entries.count, entries.target_series.code) == (True, None, "sat-cash-2130")
    assert entries.missing() == "the number of entries of Entries into that week's Saturday Night Cash draw"


def test_a_managers_amount_survives_a_second_load(boards):
    jack = board("grc-fast-lane-to-fortune", "thu-jack-1900")
    slot = jack.slots.first()
    slot.amount_cents = 500_000
    slot.save()
    load_seed_boards(actor=LOADER)
    slot.refresh_from_db()
    assert slot.amount_cents == 500_000


def test_turn_up_the_heat_cash_draws_need_their_car_draw_qualifiers_and_the_9pm_fills_to_six(boards):
    """r69, A20: each Saturday cash board's first N winners also get a car draw place, N required
    (blank: the draw waits, 0 allowed); the finalist draws give every winner a place and the 9pm
    one fills the car draw to 6 distinct finalists."""
    for series in ("sat-cash-1500", "sat-cash-1900", "sat-cash-2100"):
        cash = board("grc-turn-up-the-heat", series)
        place = cash.slots.get(kind="place")
        assert (place.every_winner, place.target_series.code, place.rule) == (True, "sat-car-final", "r69, A20")
        assert cash.setting("car_draw_qualifiers") is None
        assert "car draw qualifiers per draw (the first winners in pick order)" in missing_settings_of(cash)
    finalists = board("grc-turn-up-the-heat", "sat-car-finalists")
    (place,) = finalists.slots.all()
    assert (place.kind, place.every_winner, place.target_series.code) == ("place", True, "sat-car-final")
    assert finalists.setting("fill_places_to") == 6 and missing_settings_of(finalists) == []
    fast_lane = board("grc-fast-lane-to-fortune", "sat-car-2100")  # FL's 9pm: a fixed 2 (A7)
    assert fast_lane.settings == {} and fast_lane.slots.filter(kind="place", every_winner=False).count() == 2
