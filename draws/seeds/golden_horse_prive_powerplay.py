"""Prive Powerplay, Golden Horse, 02 July - 26 September 2026 (texts/golden-horse-prive-powerplay.txt)."""

from draws.seeds import PromotionDef, SeriesDef, local

THURSDAYS = (  # rule 9
    "2026-07-09",
    "2026-07-16",
    "2026-07-23",
    "2026-07-30",
    "2026-08-06",
    "2026-08-13",
    "2026-08-20",
    "2026-08-27",
    "2026-09-10",
)
RAPS_SATURDAYS = ("2026-07-04", "2026-07-25", "2026-08-01", "2026-08-29", "2026-09-12")  # rule 9
TEEDS_SATURDAYS = ("2026-07-04", "2026-07-25", "2026-08-29")  # rule 9

# Rule 8 leaves the printing times out: from 08h00 until 5 minutes before each draw. Proxy forms are
# available "during the ticket printing times", so they close with printing.
PRINTING = [{"day": 0, "open": "08:00", "close_before": 5}]
PROXIES_CLOSE = 5
# Rule 7: bonus tickets per gaming visit, more for app members; weekly Thursday draws only.
THURSDAY_RULE = {"period_kind": "days_before", "period_days": 7, "bonus_per_visit": 1, "bonus_per_visit_app": 1}
SATURDAY_RULE = {"period_kind": "days_before", "period_days": 30}

PRINTING_NOTE = (
    "Rule 8's printing times are missing: tickets print from 08h00 until 5 minutes before the draw, and proxy forms "
    "(available 'during the ticket printing times') close with printing. "
)
THURSDAY_NOTE = (
    "Rule 8's table of earning periods is missing: points earned in the 7 days before each draw count, with no "
    "roll-over. "
    "Rule 7's table of visit bonuses is missing: 1 bonus ticket per gaming visit (a day with points at Golden Horse "
    "in the 7 days), plus 1 more per visit for members registered on the app. " + PRINTING_NOTE
)
THURSDAY_EVENING_NOTE = (
    THURSDAY_NOTE + "Rule 9's 'nine (9) patrons ... five (3) per tier' is read as 3 winners per draw, matching the "
    "total of nine."
)
SATURDAY_NOTE = (
    "Rule 8's table of earning periods is missing: points earned in the 30 days before each draw count. "
    "Rule 8's 30-day periods overlap between the 4 July and 25 July draws (25 June-4 July counts for both); "
    "'no roll-over' is read as points not counting beyond their 30 days. " + PRINTING_NOTE
)


def on(days: tuple[str, ...], time: str) -> list[str]:
    return [f"{day} {time}" for day in days]


PROMOTION = PromotionDef(
    code="golden-horse-prive-powerplay",
    name="Prive Powerplay",
    properties=("GH",),
    starts_on="2026-07-02",
    ends_on="2026-09-26",
    text_file="golden-horse-prive-powerplay.txt",
    collection_place="the Cash Desk, with the prize letter from the Tsogo Rewards Desk",  # rules 9, 14-15
    collection_note="Rule 15 has prizes collected 'from the Tsogo Rewards Desk' and rule 9 has the prize letter "
    "redeemed at the Cash Desk for cash: the letter is issued at the Rewards Desk and paid at the Cash Desk.",
    series=[
        SeriesDef(
            code="thu-1300-midday",
            name="Thursday Midday draw",
            schedule_text="Thursdays at 13h00: 9, 16, 23, 30 Jul; 6, 13, 20, 27 Aug; 10 Sep 2026",
            draws=on(THURSDAYS, "13:00"),
            windows=PRINTING,
            proxies_close_minutes=PROXIES_CLOSE,
            winners=5,
            rule={**THURSDAY_RULE, "points_per_ticket": 50, "minimum_points": 50},
            assumptions=THURSDAY_NOTE + "Rule 8's 'a minimum of 50 points for one (1) entry' is read as 50 points "
            "per ticket, uncapped (rule 6).",
        ),
        SeriesDef(
            code="thu-1900-ten-jack",
            name="Thursday Evening draw, Ten & Jack tiers",
            schedule_text="Thursdays at 19h00 (dates as the midday draw); Ten and Jack tiers",
            draws=on(THURSDAYS, "19:00"),
            tiers=("TEN", "JACK"),
            windows=PRINTING,
            proxies_close_minutes=PROXIES_CLOSE,
            winners=3,
            rule={**THURSDAY_RULE, "points_per_ticket": 50},
            assumptions=THURSDAY_EVENING_NOTE,
        ),
        SeriesDef(
            code="thu-2000-queen",
            name="Thursday Evening draw, Queen tier",
            schedule_text="Thursdays at 20h00 (dates as the midday draw); Queen tier",
            draws=on(THURSDAYS, "20:00"),
            tiers=("QUEEN",),
            windows=PRINTING,
            proxies_close_minutes=PROXIES_CLOSE,
            winners=3,
            rule={**THURSDAY_RULE, "points_per_ticket": 100},
            assumptions=THURSDAY_EVENING_NOTE,
        ),
        SeriesDef(
            code="thu-2100-king-ace",
            name="Thursday Evening draw, King & Ace tiers",
            schedule_text="Thursdays at 21h00 (dates as the midday draw); King and Ace tiers",
            draws=on(THURSDAYS, "21:00"),
            tiers=("KING", "ACE"),
            windows=PRINTING,
            proxies_close_minutes=PROXIES_CLOSE,
            winners=3,
            rule={**THURSDAY_RULE, "points_per_ticket": 200},
            assumptions=THURSDAY_EVENING_NOTE,
        ),
        SeriesDef(
            code="sat-bonus-jackpot-raps",
            name="Saturday Bonus Jackpot session (RAPS)",
            schedule_text="18h00-19h00 on 4, 25 Jul; 1, 29 Aug; 12 Sep 2026; 6 from slots, 4 from tables",
            draws=on(RAPS_SATURDAYS, "18:00"),
            method="raps",
            desk_tiers=(),
            windows=[{"day": 0, "open": "08:00", "close_before": 0}],  # the decline register
            proxies_close_minutes=0,
            winners=10,
            win_once="session",
            rule={"period_kind": "none", "minimum_points": 50},
            assumptions="Rule 8's qualifying criteria (active play between 8am and 7pm, at least 50 points) are "
            "applied to the active-player list before it is uploaded, so the session has no earning period. "
            "Rule 9 gives no decline-register hours for the session: 08h00 until the session starts at 18h00.",
        ),
        SeriesDef(
            code="sat-2000-ten-jack",
            name="Selected Saturday TEEDS draw, Ten & Jack tiers",
            schedule_text="20h00 on 4, 25 Jul and 29 Aug 2026; Ten and Jack tiers",
            draws=on(TEEDS_SATURDAYS, "20:00"),
            tiers=("TEN", "JACK"),
            windows=PRINTING,
            proxies_close_minutes=PROXIES_CLOSE,
            winners=5,
            rule={**SATURDAY_RULE, "points_per_ticket": 100},
            assumptions=SATURDAY_NOTE.strip(),
        ),
        SeriesDef(
            code="sat-2100-queen",
            name="Selected Saturday TEEDS draw, Queen tier",
            schedule_text="21h00 on 4, 25 Jul and 29 Aug 2026; Queen tier",
            draws=on(TEEDS_SATURDAYS, "21:00"),
            tiers=("QUEEN",),
            windows=PRINTING,
            proxies_close_minutes=PROXIES_CLOSE,
            winners=5,
            rule={**SATURDAY_RULE, "points_per_ticket": 200},
            assumptions=SATURDAY_NOTE.strip(),
        ),
        SeriesDef(
            code="sat-2200-king-ace",
            name="Selected Saturday TEEDS draw, King & Ace tiers",
            schedule_text="22h00 on 4, 25 Jul and 29 Aug 2026; King and Ace tiers",
            draws=on(TEEDS_SATURDAYS, "22:00"),
            tiers=("KING", "ACE"),
            windows=PRINTING,
            proxies_close_minutes=PROXIES_CLOSE,
            winners=5,
            rule={**SATURDAY_RULE, "points_per_ticket": 300},
            assumptions=SATURDAY_NOTE.strip(),
        ),
        SeriesDef(
            code="halfway-mark",
            name="Halfway Mark draw",
            schedule_text="Saturday 1 August 2026 at 20h00 (250 points per ticket) and 21h00 (500 points per ticket)",
            draws=["2026-08-01 20:00", "2026-08-01 21:00"],
            points_per_ticket_by_time={"20:00": 250, "21:00": 500},
            windows=PRINTING,
            proxies_close_minutes=PROXIES_CLOSE,
            winners=5,
            rule={"period_kind": "fixed", "fixed_start": local("2026-07-02 00:00"), "points_per_ticket": 250},
            assumptions="Rule 8 gives the earning dates but no times: points count from 00h00 on 2 July 2026 until "
            "just before each draw. " + PRINTING_NOTE.strip(),
        ),
        SeriesDef(
            code="car-draw",
            name="Car Draw Day",
            schedule_text="Saturday 12 September 2026 at 20h00",
            draws=["2026-09-12 20:00"],
            windows=PRINTING,
            proxies_close_minutes=PROXIES_CLOSE,
            winners=5,
            rule={
                "period_kind": "fixed",
                "fixed_start": local("2026-07-02 00:00"),
                "fixed_end": local("2026-09-12 00:00"),
                "points_per_ticket": 3000,
                "cap": 4000,  # rule 6
            },
            assumptions="Rule 8 gives the earning dates but no times: points count from 00h00 on 2 July until "
            "24h00 on Friday 11 September 2026 (2 July 2026 is a Thursday, not the Tuesday the seed names). "
            "Rule 9 mentions draws at 8pm and 9pm but schedules one: a single draw at 20h00 with 5 winners. "
            + PRINTING_NOTE.strip(),
        ),
    ],
)
