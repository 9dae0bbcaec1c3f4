"""Fast Lane to Fortune, Gold Reef City, July-September 2026 (texts/grc-fast-lane-to-fortune.txt)."""

from draws.seeds import PromotionDef, SeriesDef, last_weekday_of_month, weekly

SATURDAY = 5
CAR_SATURDAYS = [last_weekday_of_month(SATURDAY, 2026, month).isoformat() for month in (7, 8, 9)]  # rule 44
CASH_SATURDAYS = (  # rule 68 names none: every Saturday that is not a car draw Saturday
    "2026-07-04",
    "2026-07-11",
    "2026-07-18",
    "2026-08-01",
    "2026-08-08",
    "2026-08-15",
    "2026-08-22",
    "2026-09-05",
    "2026-09-12",
    "2026-09-19",
)
MONTH_TO_DATE = {"period_kind": "month_to_date", "period_start_time": "08:00"}
# Free tickets by the weekday of printing (4 = Friday, 5 = Saturday): rules 70 and 71.
SATURDAY_FREE_TICKETS = {
    "4": {"ACE": 50, "KING": 30, "QUEEN": 20, "JACK": 10, "TEN": 5},
    "5": {"ACE": 30, "KING": 20, "QUEEN": 10, "JACK": 5, "TEN": 3},
}
# Rule 72: the Friday before the draw 21h00-00h00, then Saturday from 08h00.
FRIDAY_NIGHT = {"day": -1, "open": "21:00", "close": "24:00"}

EQUAL_OPPORTUNITY_NOTE = (
    "Rules 5 and 17 give every Rewards member 200 tickets: Gold Reef City members, and members of other properties "
    "who earned points there in the 7 days before the draw, qualify whatever their points. "
)
MONTHLY_EARNING_NOTE = (
    "Rule 32 gives the start date of earning but not the time: from 08h00 on the 1st of the month (the start used "
    "by Gold Reef City's month-to-date draws) until just before each draw. "
)
CAR_NOTE = (
    "Rule 50's earning table is missing: 1,000 points per ticket (rule 47) earned in the calendar month to date, "
    "from 08h00 on the 1st until just before each draw, uncapped, plus the complimentary tickets of rule 48. "
    "Rules 46, 52 and 123 make the car Saturday draws electronic while rule 57 calls them manual: electronic is used. "
)
CASH_NOTE = (
    "Rule 68 does not list the 'specific Saturdays': every Saturday of July-September 2026 that is not a car draw "
    "Saturday (4, 11, 18 Jul; 1, 8, 15, 22 Aug; 5, 12, 19 Sep). "
    "Rules 70-71 give only free tickets, by the day of printing, and no points rate: no tickets are earned from "
    "points; Gold Reef City members, and members who earned points there in the 7 days before the draw, get the "
    "free tickets. "
)
PROXY_NOTE = (
    "Rule 111 closes proxy forms 15 minutes before the draw while this draw's own section closes them at the start "
    "of the draw: the draw's own section is used."
)

PROMOTION = PromotionDef(
    code="grc-fast-lane-to-fortune",
    name="Fast Lane to Fortune",
    properties=("GRC",),
    starts_on="2026-07-01",
    ends_on="2026-09-30",
    text_file="grc-fast-lane-to-fortune.txt",
    collection_place="the Cash Desk",
    collection_note="Rules 115 and 127 name the casino where the prize was won but not the desk: prize letters "
    "are paid at the Cash Desk of Gold Reef City.",
    series=[
        SeriesDef(
            code="wed-1300-equal",
            name="Wednesday 13h00 Equal Opportunity draw",
            schedule_text="Every Wednesday at 13h00, July to September 2026; 200 tickets each",
            draws=weekly(2, "2026-07-01", "2026-09-30", "13:00"),
            windows=[{"day": 0, "open": "08:00", "close_before": 5}],  # rule 10: 08h00-12h55
            proxies_close_minutes=0,  # rule 11
            winners=5,  # rule 12
            win_once="day",  # rule 118
            one_selection=True,  # rule 117: selected once per draw
            rule={"period_kind": "days_before", "period_days": 7, "equal_opportunity_tickets": 200},  # rule 5
            assumptions=EQUAL_OPPORTUNITY_NOTE + PROXY_NOTE,
        ),
        SeriesDef(
            code="wed-2000-equal",
            name="Wednesday 20h00 Equal Opportunity draw",
            schedule_text="Every Wednesday at 20h00, July to September 2026; 200 tickets each",
            draws=weekly(2, "2026-07-01", "2026-09-30", "20:00"),
            windows=[{"day": 0, "open": "13:00", "close_before": 5}],  # rule 22: 13h00-19h55
            proxies_close_minutes=0,  # rule 23
            winners=5,  # rule 24
            win_once="day",
            one_selection=True,  # rule 117: selected once per draw
            rule={"period_kind": "days_before", "period_days": 7, "equal_opportunity_tickets": 200},  # rule 17
            assumptions=EQUAL_OPPORTUNITY_NOTE
            + "Rules 21 and 22 disagree on when printing opens (08h00 or 13h00): rule 22's 13h00 until 19h55 is used, "
            "as the printing rule. " + PROXY_NOTE,
        ),
        SeriesDef(
            code="thu-jack-1900",
            name="Thursday Jack Tier draw",
            schedule_text="Every Thursday at 19h00, July to September 2026; Jack tier only",
            draws=weekly(3, "2026-07-01", "2026-09-30", "19:00"),
            method="manual",  # rule 34
            tiers=("JACK",),
            desk_tiers=(),  # the desk prints for Ace, King and Queen only (rule 128)
            windows=[{"day": 0, "open": "08:00", "close_before": 15}],  # rule 37: 08h00-18h45
            proxies_close_minutes=0,  # rule 39
            winners=5,  # rule 40
            win_once="day",
            one_selection=True,  # rule 117: selected once per draw
            rule={**MONTH_TO_DATE, "points_per_ticket": 100, "free_tickets_by_tier": {"JACK": 3}, "cap": 20},
            assumptions=MONTHLY_EARNING_NOTE + PROXY_NOTE,
        ),
        SeriesDef(
            code="thu-queen-2000",
            name="Thursday Queen Tier draw",
            schedule_text="Every Thursday at 20h00, July to September 2026; Queen tier only",
            draws=weekly(3, "2026-07-01", "2026-09-30", "20:00"),
            method="manual",
            tiers=("QUEEN",),
            desk_tiers=("QUEEN",),
            windows=[{"day": 0, "open": "08:00", "close_before": 15}],  # rule 38: 08h00-19h45
            proxies_close_minutes=0,
            winners=5,
            win_once="day",
            one_selection=True,  # rule 117: selected once per draw
            rule={**MONTH_TO_DATE, "points_per_ticket": 100, "free_tickets_by_tier": {"QUEEN": 3}, "cap": 30},
            assumptions=MONTHLY_EARNING_NOTE + PROXY_NOTE,
        ),
        SeriesDef(
            code="sat-car-1500-1900",
            name="Car Saturday 3pm and 7pm draws",
            schedule_text="Last Saturday of July, August and September 2026 at 15h00 and 19h00",
            draws=[f"{day} {time}" for day in CAR_SATURDAYS for time in ("15:00", "19:00")],
            windows=[{"day": 0, "open": "08:00", "close_before": 0}],  # rule 54: until the start of each draw
            proxies_close_minutes=0,  # rule 55
            winners=5,  # rule 59: 3 cash winners and 2 car draw finalists
            win_once="day",
            one_selection=True,  # rule 117: selected once per draw
            rule={
                **MONTH_TO_DATE,
                "points_per_ticket": 1000,
                "free_tickets_by_tier": {"ACE": 5, "KING": 4, "QUEEN": 3, "JACK": 2, "TEN": 1},
            },
            assumptions=CAR_NOTE + PROXY_NOTE,
        ),
        SeriesDef(
            code="sat-car-2100",
            name="Car Saturday 9pm finalist draw",
            schedule_text="Last Saturday of July, August and September 2026 at 21h00",
            draws=[f"{day} 21:00" for day in CAR_SATURDAYS],
            windows=[{"day": 0, "open": "08:00", "close_before": 0}],
            proxies_close_minutes=0,
            winners=2,  # rules 60-61: 2 car draw finalists
            win_once="day",
            one_selection=True,  # rule 117: selected once per draw
            rule={
                **MONTH_TO_DATE,
                "points_per_ticket": 1000,
                "free_tickets_by_tier": {"ACE": 5, "KING": 4, "QUEEN": 3, "JACK": 2, "TEN": 1},
            },
            assumptions=CAR_NOTE + PROXY_NOTE,
        ),
        SeriesDef(
            code="sat-car-final",
            name="Car draw (six finalists)",
            schedule_text="Last Saturday of July, August and September 2026, after the 9pm draw",
            draws=[f"{day} 21:15" for day in CAR_SATURDAYS],
            method="manual",
            desk_tiers=(),
            windows=[{"day": 0, "open": "08:00", "close_before": 0}],  # nominal: finalists have no tickets
            proxies_close_minutes=0,
            winners=6,  # rules 64-67: five cash winners and the car winner
            win_once="day",
            one_selection=True,  # rule 117: selected once per draw
            rule={"period_kind": "none"},
            assumptions="Rules 64-67 give no time for the car draw: 21h15, once the 9pm finalists are verified. "
            "Its entries are the six finalists carried from the 3pm, 7pm and 9pm draws (rule 61), so it has no "
            "earning period and no tickets of its own; it is held as a manual draw in which the randomisers decide "
            "the car and the five cash prizes (rules 65-67).",
        ),
        SeriesDef(
            code="sat-cash-1500",
            name="Saturday 3pm Cash draw (Best Hand wins)",
            schedule_text="Selected Saturdays, July to September 2026, at 15h00",
            draws=[f"{day} 15:00" for day in CASH_SATURDAYS],
            method="manual",  # rule 80
            windows=[FRIDAY_NIGHT, {"day": 0, "open": "08:00", "close_before": 15}],
            proxies_close_minutes=0,  # rule 78
            winners=5,  # rule 82
            win_once="day",
            one_selection=True,  # rule 117: selected once per draw
            rule={"period_kind": "days_before", "period_days": 7, "free_tickets_by_weekday": SATURDAY_FREE_TICKETS},
            assumptions=CASH_NOTE + "Rule 72's Saturday printing window runs to 20h45, 15 minutes before the 9pm "
            "draw: the 3pm draw's Saturday window closes 15 minutes before it, at 14h45. " + PROXY_NOTE,
        ),
        SeriesDef(
            code="sat-cash-1900",
            name="Saturday 7pm Cash draw (Roulette Xtra)",
            schedule_text="Selected Saturdays, July to September 2026, at 19h00",
            draws=[f"{day} 19:00" for day in CASH_SATURDAYS],
            method="manual",  # rule 87
            windows=[FRIDAY_NIGHT, {"day": 0, "open": "08:00", "close_before": 15}],
            proxies_close_minutes=0,
            winners=5,  # rule 89
            win_once="day",
            one_selection=True,  # rule 117: selected once per draw
            rule={"period_kind": "days_before", "period_days": 7, "free_tickets_by_weekday": SATURDAY_FREE_TICKETS},
            assumptions=CASH_NOTE + "Rule 72's Saturday printing window runs to 20h45, 15 minutes before the 9pm "
            "draw: the 7pm draw's Saturday window closes 15 minutes before it, at 18h45. " + PROXY_NOTE,
        ),
        SeriesDef(
            code="sat-cash-2100",
            name="Saturday 9pm Cash draw (Roll into Riches)",
            schedule_text="Selected Saturdays, July to September 2026, at 21h00",
            draws=[f"{day} 21:00" for day in CASH_SATURDAYS],
            method="manual",  # rule 96
            windows=[FRIDAY_NIGHT, {"day": 0, "open": "08:00", "close": "20:45"}],  # rule 72
            proxies_close_minutes=0,
            winners=5,  # rules 98-99
            win_once="day",
            one_selection=True,  # rule 117: selected once per draw
            rule={"period_kind": "days_before", "period_days": 7, "free_tickets_by_weekday": SATURDAY_FREE_TICKETS},
            assumptions=CASH_NOTE + PROXY_NOTE,
        ),
    ],
)
