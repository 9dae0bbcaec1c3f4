"""Add-ons (issue 14, item 4): the extra R200/R500 a winner gets for being on the Tsogo Sun App
or active on playTSOGO, decided by the winner's flags AT THE MOMENT OF VERIFICATION (the pick's
outcome time), as separate prize lines of source ADD_ON (PRIZES.md §1).

Pure: the caller passes the winner's flags, the moment, the lines the winner's game produced and,
for a once-a-day add-on, the add-on lines he already got that promotional day
(`addon_lines_of_day` in prizes/selectors_addons.py reads them).
"""

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from django.utils import timezone

from prizes.lines import LineKind, LineSource, LineSpec, rand


class Flag(StrEnum):
    APP = "app"  # registered on the Tsogo Sun App (Member.app_registered_on)
    PLAYTSOGO = "playtsogo"  # registered and active on playTSOGO online betting (Member.playtsogo_active_since)


FLAG_WORDS = {Flag.APP: "registered on the Tsogo Sun App", Flag.PLAYTSOGO: "active on playTSOGO"}


@dataclass(frozen=True)
class AddOn:
    code: str  # kept in the line's data: how an earlier add-on of the day is recognised
    flag: Flag
    kind: LineKind
    amount_cents: int
    rules: str
    once_a_day: bool = False


@dataclass(frozen=True)
class WinnerFlags:
    """The member's flags as dates: each holds from that (Johannesburg) day on; None: not held."""

    app_registered_on: dt.date | None = None
    playtsogo_active_since: dt.date | None = None

    @classmethod
    def of(cls, member) -> "WinnerFlags":
        return cls(member.app_registered_on, member.playtsogo_active_since)

    def holds(self, flag: Flag, day: dt.date) -> bool:
        since = self.app_registered_on if flag == Flag.APP else self.playtsogo_active_since
        return since is not None and since <= day


FL = "grc-fast-lane-to-fortune"
TH = "grc-turn-up-the-heat"
GH = "golden-horse-prive-powerplay"
RF = "grc-royal-flush"
DT = "emnotweni-daytime-playtime"

# FL r116 and every series' bullet: "an additional R200 each" (cash, r62 says so); r118 and A12:
# once a promotional day, so a finalist gets it with the car-draw result, not with his place.
FL_APP = AddOn("fl-app-r200", Flag.APP, LineKind.CASH, 200_00, "FL r116, r118, A12", once_a_day=True)
GH_APP = AddOn("gh-app-play-r200", Flag.APP, LineKind.PLAY, 200_00, "GH r8 (Thursday Midday), A6")


def _th(rules_app: int, rules_pt: int) -> tuple[AddOn, AddOn]:
    return (
        AddOn("th-app-r500", Flag.APP, LineKind.CASH, 500_00, f"TH r{rules_app}"),
        AddOn("th-playtsogo-play-r500", Flag.PLAYTSOGO, LineKind.PLAY, 500_00, f"TH r{rules_pt}"),
    )


# Which series pays which add-ons, by the seeds' promotion and series codes (draws/seeds/*.py).
# Every seed series is listed, an empty tuple where the seed gives none, so a series added to a
# seed must be placed here (prizes/tests/test_addons.py checks the codes against the seeds).
ADD_ONS: dict[str, dict[str, tuple[AddOn, ...]]] = {
    FL: {
        "wed-1300-equal": (FL_APP,),
        "wed-2000-equal": (FL_APP,),
        "thu-jack-1900": (FL_APP,),
        "thu-queen-2000": (FL_APP,),
        "sat-car-1500-1900": (FL_APP,),  # the 3 cash winners; the 2 places get nothing yet (A12)
        "sat-car-2100": (FL_APP,),  # places only: nothing until the car draw
        "sat-car-final": (FL_APP,),
        "sat-cash-1500": (FL_APP,),
        "sat-cash-1900": (FL_APP,),
        "sat-cash-2100": (FL_APP,),
    },
    TH: {
        "wed-1300-cash": _th(20, 21),
        "wed-2000-cash": _th(42, 43),
        "thu-queen-cash": _th(64, 65),
        "sat-car-finalists": _th(89, 90),  # a conversion to R5,000 (r70) pays them; a bare place does not
        "sat-car-final": _th(89, 90),
        # r128-129 stand in the 9pm subsection of "Saturday Cash draws"; PRIZES.md: every winner.
        "sat-cash-1500": _th(128, 129),
        "sat-cash-1900": _th(128, 129),
        "sat-cash-2100": _th(128, 129),
        "sat-safe-share-2130": _th(140, 141),
    },
    GH: {
        "thu-1300-midday": (GH_APP,),  # r8's bullet is under Thursday Midday only (A6)
        "thu-1900-ten-jack": (),
        "thu-2000-queen": (),
        "thu-2100-king-ace": (),
        "sat-bonus-jackpot-raps": (),
        "sat-2000-ten-jack": (),
        "sat-2100-queen": (),
        "sat-2200-king-ace": (),
        "halfway-mark": (),
        "car-draw": (),
    },
    RF: {  # no add-on in the seed
        "wed-bonus-jackpot-raps": (),
        "sat-bonus-jackpot-raps": (),
        "sat-cash-2130": (),
        "month-end-bins": (),
        "month-end-finalist": (),
        "wild-card": (),
        "grand-finale": (),
    },
    DT: {  # r8: app members get 5 more entries, a ticket bonus (promotions' earning rule), no prize line
        "wed-1400-manual": (),
    },
}

# A line that is only a place or entries in a later draw pays no add-on: the finalist gets it
# with the later draw's result (PRIZES.md §1, A12).
_NOT_PAYING = {LineKind.PLACE, LineKind.ENTRIES}


# `make run`'s demo copies of the seeds (prizes/demo.py) are coded DEMO_PREFIX + the seed's code;
# the constant lives here, below prizes.demo, which imports this module (through prizes.conduct).
DEMO_PREFIX = "demo-"


def addons_for(promotion_code: str, series_code: str) -> tuple[AddOn, ...]:
    """The series' add-ons; a demo copy pays its seed's."""
    return ADD_ONS.get(promotion_code.removeprefix(DEMO_PREFIX), {}).get(series_code, ())


def addon_lines(
    *,
    promotion_code: str,
    series_code: str,
    flags: WinnerFlags,
    verified_at: dt.datetime,
    prize_lines: Sequence[LineSpec],
    earlier_addons_today: Sequence[LineSpec] = (),
) -> list[LineSpec]:
    """The add-on lines of one winner of one draw: each add-on of the series whose flag holds on
    the (Johannesburg) day of `verified_at`, when the winner's lines pay something and, for a
    once-a-day add-on, he has not had it already that promotional day."""
    if not any(line.kind not in _NOT_PAYING and line.amount_cents > 0 for line in prize_lines):
        return []
    day = timezone.localdate(verified_at)
    had = {line.data.get("addon") for line in earlier_addons_today if line.source == LineSource.ADD_ON}
    lines = []
    for addon in addons_for(promotion_code, series_code):
        if not flags.holds(addon.flag, day) or (addon.once_a_day and addon.code in had):
            continue
        what = "+Play " + rand(addon.amount_cents) if addon.kind == LineKind.PLAY else rand(addon.amount_cents)
        lines.append(
            LineSpec(
                kind=addon.kind,
                amount_cents=addon.amount_cents,
                source=LineSource.ADD_ON,
                words=f"{what} add-on: {FLAG_WORDS[addon.flag]} ({addon.rules})",
                data={"addon": addon.code, "flag": str(addon.flag), "on": day.isoformat(), "rules": addon.rules},
            )
        )
    return lines
