"""Turn Up the Heat, Gold Reef City, October-December 2025 (texts/grc-turn-up-the-heat.txt)."""

from draws.seeds import PromotionDef, SeriesDef, local, weekly

SEVEN_DAYS = {"period_kind": "days_before", "period_days": 7}
COMPLIMENTARY = {"ACE": 50, "KING": 40, "QUEEN": 30, "JACK": 20, "TEN": 10}  # rules 72 and 94
CAR_SATURDAYS = ("2025-10-25", "2025-11-29", "2025-12-27")  # rule 67
CASH_SATURDAYS = (  # rule 92 names none: every other Saturday up to 20 December (rules 135-136)
    "2025-10-04",
    "2025-10-11",
    "2025-10-18",
    "2025-11-01",
    "2025-11-08",
    "2025-11-15",
    "2025-11-22",
    "2025-12-06",
    "2025-12-13",
    "2025-12-20",
)
FINALIST_ENTRIES = {"period_kind": "none"}  # entries are carried finalists, not tickets

CASH_SATURDAYS_NOTE = (
    "Rule 92 does not list the 'specific Saturdays': every Saturday from 4 October to 20 December 2025 that is "
    "not a car draw Saturday (4, 11, 18 Oct; 1, 8, 15, 22 Nov; 6, 13, 20 Dec), 20 December being required by "
    "rules 135-136. "
    "Rule 95's earning table is missing: 50 points per ticket (rule 93) earned in the 7 days before each draw, "
    "uncapped, with no roll-over, plus the complimentary tickets of rule 94. "
)


def cash_saturdays(time: str) -> list[str]:
    return [f"{day} {time}" for day in CASH_SATURDAYS]


PROMOTION = PromotionDef(
    code="grc-turn-up-the-heat",
    name="Turn Up the Heat",
    properties=("GRC",),
    starts_on="2025-10-01",
    ends_on="2025-12-31",
    text_file="grc-turn-up-the-heat.txt",
    collection_place="the Cash Desk",
    collection_note="Rules 19, 41, 61, 88 and 155 name the casino where the prize was won but not the desk: prize "
    "letters are paid at the Cash Desk of Gold Reef City.",
    series=[
        SeriesDef(
            code="wed-1300-cash",
            name="Wednesday 13h00 Cash draw",
            schedule_text="Every Wednesday at 13h00, October to December 2025 (22 October moved to Tuesday 21 October)",
            draws=weekly(2, "2025-10-01", "2025-12-31", "13:00"),
            moves={
                "2025-10-22 13:00": (
                    "2025-10-21 13:00",
                    "The 22 October 13h00 draw is moved to Tuesday 21 October 2025 at 13h00 (13h00 draw rules).",
                )
            },
            windows=[{"day": 0, "open": "08:00", "close_before": 5}],  # rule 9: 08h00-12h55
            win_once="day",  # rule 12
            rule={**SEVEN_DAYS, "points_per_ticket": 100},
            assumptions="Rule 4's ticket table is missing: 100 points per ticket, earned in the 7 days before the "
            "draw, uncapped, with no free tickets. "
            "Rules 5 and 13 do not state the number of winners: 5 per draw.",
        ),
        SeriesDef(
            code="wed-2000-cash",
            name="Wednesday 20h00 Cash draw",
            schedule_text="Every Wednesday at 20h00, October to December 2025 (22 October moved to Tuesday 21 October)",
            draws=weekly(2, "2025-10-01", "2025-12-31", "20:00"),
            moves={
                "2025-10-22 20:00": (
                    "2025-10-21 20:00",
                    "The 22 October 20h00 draw is moved to Tuesday 21 October 2025 at 20h00 (rule 25).",
                )
            },
            windows=[{"day": 0, "open": "13:00", "close_before": 5}],  # rule 31: 13h00-19h55
            proxies_open="13:00",  # rule 37
            win_once="day",  # rule 34
            rule={**SEVEN_DAYS, "points_per_ticket": 100},
            assumptions="Rule 26's ticket table is missing: 100 points per ticket, earned in the 7 days before the "
            "draw, uncapped, with no free tickets, as for the 13h00 draw. "
            "Rules 27 and 35 do not state the number of winners: 5 per draw.",
        ),
        SeriesDef(
            code="thu-queen-cash",
            name="Thursday Queen Tier Cash draw",
            schedule_text="Every Thursday at 20h00, October to December 2025 (23 October moved to Sunday 26 October "
            "13h00); Queen tier only",
            draws=weekly(3, "2025-10-01", "2025-12-31", "20:00"),
            moves={
                "2025-10-23 20:00": (
                    "2025-10-26 13:00",
                    "The 23 October draw is moved to Sunday 26 October 2025 at 13h00 (rule 48).",
                )
            },
            tiers=("QUEEN",),  # rule 47
            windows=[{"day": 0, "open": "08:00", "close_before": 5}],  # rule 53 opens at 08h00
            winners=5,  # rule 55
            rule={  # rules 49-52: 10 free + 1 per 100 points of the month, from 08h00 on the 1st
                "period_kind": "month_to_date",
                "period_start_time": "08:00",
                "points_per_ticket": 100,
                "free_tickets_by_tier": {"QUEEN": 10},
            },
            assumptions="Rule 53 gives only the opening time (08h00): tickets close 5 minutes before the draw "
            "(19h55, and 12h55 for the draw moved to Sunday 26 October 13h00), as for the Wednesday draws "
            "(rules 9 and 31). "
            "Rules 47-65 give no proxy hours: proxy forms from 08h00 until 15 minutes before the draw, as in rule 15.",
        ),
        SeriesDef(
            code="sat-car-finalists",
            name="Saturday Car draw finalist draws (3pm, 7pm, 9pm)",
            schedule_text="25 October, 29 November and 27 December 2025 at 15h00, 19h00 and 21h00",
            draws=[f"{day} {time}" for day in CAR_SATURDAYS for time in ("15:00", "19:00", "21:00")],
            windows=[{"day": 0, "open": "08:00", "close_before": 5}],  # rule 78: 08h00-20h55
            winners=2,
            win_once="day",  # rule 74
            rule={
                "period_kind": "fixed",
                "fixed_start": local("2025-09-27 08:00"),  # rule 71
                "points_per_ticket": 100,
                "free_tickets_by_tier": COMPLIMENTARY,
            },
            assumptions="Rule 73's earning table is missing: rule 71 is applied as written, 100 points per ticket "
            "from 08h00 on 27 September 2025 until just before each draw, so points accumulate from one car "
            "Saturday to the next. "
            "Rule 78 gives one printing window (08h00-20h55) for the day: each draw's tickets close 5 minutes "
            "before it (14h55, 18h55 and 20h55). "
            "Rule 69 does not say how many finalists each draw picks: 2 at each of 3pm, 7pm and 9pm (6 in all), "
            "the 9pm count being reduced on the night by car draw qualifiers already drawn at earlier Saturdays' "
            "cash draws.",
        ),
        SeriesDef(
            code="sat-car-final",
            name="Saturday Car draw (finalists)",
            schedule_text="25 October, 29 November and 27 December 2025, after the 9pm finalist draw",
            draws=[f"{day} 21:15" for day in CAR_SATURDAYS],
            method="manual",
            desk_tiers=(),
            windows=[{"day": 0, "open": "08:00", "close_before": 0}],  # nominal: finalists have no tickets
            winners=1,  # rule 87: one car winner
            win_once="day",
            rule=FINALIST_ENTRIES,
            assumptions="Rule 87 names 21h00 for the car prize but the 6 finalists are complete only after the 9pm "
            "finalist draw: the car draw is set at 21h15. "
            "Rule 87 does not say how the car winner is picked from the 6 finalists: a manual draw among the "
            "finalists on stage. "
            "Its entries are the finalists carried from that day's finalist draws and earlier Saturdays' cash "
            "draws (rule 69), so it has no earning period and no tickets of its own.",
        ),
        SeriesDef(
            code="sat-cash-1500",
            name="Saturday 3pm Cash draw",
            schedule_text="Selected Saturdays, October to December 2025, at 15h00",
            draws=cash_saturdays("15:00"),
            windows=[{"day": 0, "open": "08:00", "close_before": 5}],
            winners=6,  # rule 102
            win_once="day",  # rule 127
            rule={**SEVEN_DAYS, "points_per_ticket": 50, "free_tickets_by_tier": COMPLIMENTARY},
            assumptions=CASH_SATURDAYS_NOTE + "Rule 133 gives one printing window (08h00-20h55) for the day: the "
            "3pm draw's tickets close 5 minutes before it, at 14h55.",
        ),
        SeriesDef(
            code="sat-cash-1900",
            name="Saturday 7pm Cash draw",
            schedule_text="Selected Saturdays, October to December 2025, at 19h00",
            draws=cash_saturdays("19:00"),
            windows=[{"day": 0, "open": "08:00", "close_before": 5}],
            winners=5,  # rule 112
            win_once="day",
            rule={**SEVEN_DAYS, "points_per_ticket": 50, "free_tickets_by_tier": COMPLIMENTARY},
            assumptions=CASH_SATURDAYS_NOTE + "Rule 133 gives one printing window (08h00-20h55) for the day: the "
            "7pm draw's tickets close 5 minutes before it, at 18h55.",
        ),
        SeriesDef(
            code="sat-cash-2100",
            name="Saturday 9pm Cash draw (digit safe)",
            schedule_text="Selected Saturdays, October to December 2025, at 21h00",
            draws=cash_saturdays("21:00"),
            windows=[{"day": 0, "open": "08:00", "close_before": 5}],  # rule 133: 08h00-20h55
            winners=5,  # rule 120
            win_once="day",
            rule={**SEVEN_DAYS, "points_per_ticket": 50, "free_tickets_by_tier": COMPLIMENTARY},
            assumptions=CASH_SATURDAYS_NOTE.strip(),
        ),
        SeriesDef(
            code="sat-safe-share-2130",
            name="Saturday 21h30 safe-share Cash draw",
            schedule_text="Saturday 20 December 2025 at 21h30, if the safe has not been cracked",
            draws=["2025-12-20 21:30"],  # rule 135
            windows=[{"day": 0, "open": "08:00", "close": "20:55"}],  # rule 145
            winners=5,  # rule 138
            win_once="day",  # rule 139
            rule={**SEVEN_DAYS, "points_per_ticket": 50, "free_tickets_by_tier": COMPLIMENTARY},
            assumptions="Rule 136 reuses the tickets entered for the 20 December draws, which are kept per draw: "
            "this draw is given the Saturday cash draws' earning rule (rules 93-95) and printing hours (08h00-20h55, "
            "rule 145), so members activate the same tickets for it. "
            "Rule 135 makes the draw conditional: cancel it if the safe is cracked before 20 December 2025.",
        ),
    ],
)
