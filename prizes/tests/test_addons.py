"""Add-ons (issue 14, item 4): the winner's flags at the moment of verification, the series'
table, once a day for Fast Lane, never on a bare place line. PRIZES.md §5 examples 3, 4, 5, 6,
15, 16, 21, 22; values quoted from the seeds with their rule numbers."""

import datetime as dt
import importlib
import pkgutil
import zoneinfo

import pytest

import draws.seeds
from prizes.addons import ADD_ONS, DT, FL, GH, RF, TH, WinnerFlags, addon_lines
from prizes.lines import LineKind, LineSource, LineSpec

SAST = zoneinfo.ZoneInfo("Africa/Johannesburg")
R = 100  # cents in a rand

APP = WinnerFlags(app_registered_on=dt.date(2025, 1, 1))
PT = WinnerFlags(playtsogo_active_since=dt.date(2025, 1, 1))
BOTH = WinnerFlags(dt.date(2025, 1, 1), dt.date(2025, 1, 1))
NONE = WinnerFlags()


def cash(rand: int, source=LineSource.BOARD) -> LineSpec:
    return LineSpec(LineKind.CASH, rand * R, source, f"R{rand}")


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=SAST)


def total(lines) -> tuple[int, int]:
    """(cash + vehicle, +Play) in rand."""
    money = sum(line.amount_cents for line in lines if line.kind in {LineKind.CASH, LineKind.VEHICLE}) // R
    play = sum(line.amount_cents for line in lines if line.kind == LineKind.PLAY) // R
    return money, play


def won(promotion, series, flags, when, lines, earlier=()):
    return list(lines) + addon_lines(
        promotion_code=promotion,
        series_code=series,
        flags=flags,
        verified_at=at(when),
        prize_lines=lines,
        earlier_addons_today=earlier,
    )


V, C, P = 7_000, 3_000, 8_000  # cfg values (PRIZES.md §5: V, C, P are settings)
PLACE = LineSpec(LineKind.PLACE, 0, LineSource.BOARD, "A place in the car draw")
VEHICLE = LineSpec(LineKind.VEHICLE, 362_000 * R, LineSource.BOARD, "Vehicle valued at R362,000 (FL r64-67)")


@pytest.mark.parametrize(
    ("example", "promotion", "series", "flags", "when", "lines", "expected"),
    [
        # 3: GH Thu 13h00, app, reveal V -> V + +Play R200 (GH r8, A6)
        ("3", GH, "thu-1300-midday", APP, "2026-07-16 13:20", [cash(V)], (V, 200)),
        # 4: GH Thu 20h00, app, white ball -> C only (A6: the midday draw only)
        ("4", GH, "thu-2000-queen", APP, "2026-07-16 20:20", [cash(C)], (C, 0)),
        # 6: FL RiR, app, keeps V -> V + R200 (FL r116)
        ("6", FL, "sat-cash-2100", APP, "2026-07-04 21:20", [cash(V, LineSource.GAME)], (V + 200, 0)),
        # 15: FL car draw, vehicle podium, app -> vehicle R362,000 + R200 (FL r64-67, r116, A12)
        ("15", FL, "sat-car-final", APP, "2026-08-29 21:30", [VEHICLE], (362_200, 0)),
        # 16: TH 9pm safe cracked: R6,000 + R140,000, app + pT -> + R500 + +Play R500 (TH r128-129)
        (
            "16",
            TH,
            "sat-cash-2100",
            BOTH,
            "2025-11-08 21:20",
            [cash(6_000, LineSource.GAME), cash(140_000, LineSource.JACKPOT)],
            (146_500, 500),
        ),
        # 21: TH car 29 Nov: place from 8 Nov, qualifies again 22 Nov, app -> R5,000 + R500 (TH r70, r89)
        ("21", TH, "sat-cash-1500", APP, "2025-11-22 15:20", [cash(5_000, LineSource.CONVERSION)], (5_500, 0)),
        # 22: TH Thu Queen 23 Oct moved to Sun 26 Oct 13h00, pT -> P + +Play R500 (TH r65)
        ("22", TH, "thu-queen-cash", PT, "2025-10-26 13:20", [cash(P)], (P, 500)),
        # No flag, no add-on; RF and DT have none whatever the flags.
        ("-", TH, "wed-1300-cash", NONE, "2025-10-15 13:20", [cash(P)], (P, 0)),
        ("-", RF, "sat-cash-2130", BOTH, "2024-11-16 21:40", [cash(P)], (P, 0)),
        ("-", DT, "wed-1400-manual", BOTH, "2025-09-10 14:20", [cash(3_000)], (3_000, 0)),
    ],
)
def test_prizes_md_worked_examples(example, promotion, series, flags, when, lines, expected):
    assert total(won(promotion, series, flags, when, lines)) == expected


def test_example_5_fl_thursday_jack_two_of_five_on_the_app_add_r400_to_the_r20000():
    """FL r41 (R20,000 on offer to Jacks, the 5 podiums' total, A8) + r116: R20,400."""
    podiums = [2_000, 3_000, 4_000, 5_000, 6_000]
    flags = [APP, NONE, APP, NONE, NONE]
    lines = [
        line
        for podium, flag in zip(podiums, flags, strict=True)
        for line in won(FL, "thu-jack-1900", flag, "2026-07-09 19:20", [cash(podium)])
    ]
    assert total(lines) == (20_400, 0)
    assert [line.amount_cents for line in lines if line.source == LineSource.ADD_ON] == [200 * R, 200 * R]


def test_an_add_on_line_is_its_own_line_with_its_kind_rule_and_flag():
    lines = addon_lines(
        promotion_code=TH,
        series_code="wed-2000-cash",
        flags=BOTH,
        verified_at=at("2025-10-15 20:20"),
        prize_lines=[cash(P)],
    )
    assert [(line.kind, line.amount_cents, line.source) for line in lines] == [
        (LineKind.CASH, 500 * R, LineSource.ADD_ON),
        (LineKind.PLAY, 500 * R, LineSource.ADD_ON),
    ]
    assert lines[0].words == "R 500.00 add-on: registered on the Tsogo Sun App (TH r42)"
    assert lines[1].words == "+Play R 500.00 add-on: active on playTSOGO (TH r43)"
    assert lines[1].data == {
        "addon": "th-playtsogo-play-r500",
        "flag": "playtsogo",
        "on": "2025-10-15",
        "rules": "TH r43",
    }


@pytest.mark.parametrize(
    ("registered_on", "when", "paid"),
    [
        (dt.date(2026, 7, 16), "2026-07-16 00:05", True),  # registered that day: holds at verification
        (dt.date(2026, 7, 17), "2026-07-16 23:55", False),  # registered the next day: too late
        (dt.date(2026, 7, 16), "2026-07-15 23:59", False),  # verified just before midnight, local time
    ],
)
def test_the_flag_is_read_on_the_day_of_verification_in_johannesburg(registered_on, when, paid):
    lines = won(GH, "thu-1300-midday", WinnerFlags(app_registered_on=registered_on), when, [cash(V)])
    assert (total(lines)[1] == 200) is paid


def test_playtsogo_since_after_verification_pays_no_play():
    late = WinnerFlags(playtsogo_active_since=dt.date(2025, 10, 27))
    assert total(won(TH, "thu-queen-cash", late, "2025-10-26 13:20", [cash(P)])) == (P, 0)


@pytest.mark.parametrize(
    "lines",
    [
        [PLACE],  # FL A7: the 4th and 5th of a car Saturday 3pm draw take places
        [LineSpec(LineKind.ENTRIES, 5, LineSource.BOARD, "5 entries")],
        [],
    ],
)
def test_a_bare_place_or_entries_line_pays_no_add_on(lines):
    """PRIZES.md §1, FL A12: the finalist gets it with the car-draw result."""
    assert (
        addon_lines(
            promotion_code=FL,
            series_code="sat-car-1500-1900",
            flags=BOTH,
            verified_at=at("2026-08-29 15:20"),
            prize_lines=lines,
        )
        == []
    )


def test_fl_finalist_gets_the_r200_with_the_car_draw_result_not_the_place():
    """FL r118, A12: the 3pm place paid nothing, so the car draw's result pays it that evening."""
    at_3pm = won(FL, "sat-car-1500-1900", APP, "2026-08-29 15:20", [PLACE])
    earlier = [line for line in at_3pm if line.source == LineSource.ADD_ON]
    assert earlier == []
    at_car = won(FL, "sat-car-final", APP, "2026-08-29 21:30", [VEHICLE], earlier)
    assert total(at_car) == (362_200, 0)


def test_fl_r200_is_paid_once_a_promotional_day():
    """FL r118, A12: a second paying line the same day (a car-draw finalist who won cash at 3pm)
    gets no second R200; another promotion's or another add-on's line does not count."""
    first = won(FL, "sat-car-1500-1900", APP, "2026-08-29 15:20", [cash(C)])
    earlier = [line for line in first if line.source == LineSource.ADD_ON]
    assert len(earlier) == 1
    assert total(won(FL, "sat-car-final", APP, "2026-08-29 21:30", [cash(C)], earlier)) == (C, 0)
    th_line = LineSpec(LineKind.CASH, 500 * R, LineSource.ADD_ON, "R500", {"addon": "th-app-r500"})
    assert total(won(FL, "sat-car-final", APP, "2026-08-29 21:30", [cash(C)], [th_line])) == (C + 200, 0)


def test_th_add_ons_are_per_paying_draw_not_per_day():
    """TH has no once-a-day reading for its add-ons: a conversion at 3pm (r70) and the car draw's
    result that evening each pay R500."""
    earlier = won(TH, "sat-car-finalists", APP, "2025-11-29 15:20", [cash(5_000, LineSource.CONVERSION)])[1:]
    assert total(won(TH, "sat-car-final", APP, "2025-11-29 21:30", [cash(C)], earlier)) == (C + 500, 0)


def _seed_series_codes() -> dict[str, set[str]]:
    codes = {}
    for info in pkgutil.iter_modules(draws.seeds.__path__):
        module = importlib.import_module(f"draws.seeds.{info.name}")
        promotion = getattr(module, "PROMOTION", None)
        if promotion is not None:
            codes[promotion.code] = {series.code for series in promotion.series}
    return codes


def test_the_table_places_every_series_of_every_seed_and_no_other():
    assert {code: set(series) for code, series in ADD_ONS.items()} == _seed_series_codes()


def test_a_demo_copy_pays_its_seeds_add_ons_and_only_a_seeds():
    """`make run`'s demo copies are coded "demo-<seed code>" (prizes/demo.py): TH r42-r43 apply
    to the copy as to the seed; the desks' own demo promotion has none."""
    kwargs = {"flags": BOTH, "verified_at": at("2025-10-15 20:20"), "prize_lines": [cash(P)]}
    demo = addon_lines(promotion_code=f"demo-{TH}", series_code="wed-2000-cash", **kwargs)
    assert demo == addon_lines(promotion_code=TH, series_code="wed-2000-cash", **kwargs)
    assert [line.amount_cents for line in demo] == [500 * R, 500 * R]
    assert addon_lines(promotion_code="demo-desk-cash-draws", series_code="wed-2000-cash", **kwargs) == []
    assert addon_lines(promotion_code=f"x-demo-{TH}", series_code="wed-2000-cash", **kwargs) == []
