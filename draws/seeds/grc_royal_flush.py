"""The Tsogo Sun Royal Flush, Gold Reef City, September-November 2024, with the Grand Finale at
Montecasino on 1 December 2024 (texts/grc-royal-flush.txt)."""

from draws.seeds import PromotionDef, SeriesDef, last_weekday_of_month, weekly

SUNDAY = 6
MONTH_END_DAYS = [last_weekday_of_month(SUNDAY, 2024, month).isoformat() for month in (9, 10, 11)]  # 29/9, 27/10, 24/11
BINS = ("14:00", "15:00", "16:00", "17:00", "18:00")  # rule 53

# RAPS picks players who are actively playing: no tickets. The window is the decline register's.
RAPS_RULE = {"period_kind": "none"}
DECLINE_REGISTER = [{"day": 0, "open": "08:00", "close_before": 0}]
FINALIST_ENTRIES = {"period_kind": "none"}  # entries are carried finalists, not tickets

PROMOTION = PromotionDef(
    code="grc-royal-flush",
    name="The Tsogo Sun Royal Flush",
    properties=("GRC", "MC"),
    starts_on="2024-09-01",
    ends_on="2024-12-01",
    text_file="grc-royal-flush.txt",
    collection_place="the Cash Desk",
    collection_note="Rules 47, 65 and 77 name the casino where the prize was won but not the desk: prize letters "
    "are paid at its Cash Desk, the Grand Finale's at Montecasino (rule 70).",
    series=[
        SeriesDef(
            code="wed-bonus-jackpot-raps",
            name="Wednesday Bonus Jackpot session (RAPS)",
            schedule_text="Every Wednesday, 11 September to 27 November 2024, 18h00-19h00 and 20h00-21h00",
            draws=weekly(2, "2024-09-11", "2024-11-27", "18:00", "20:00"),  # rule 5
            method="raps",
            paid_at_device=True,  # rule 14: paid at the device, no letter
            tiers=("QUEEN", "KING", "ACE"),  # rule 4
            desk_tiers=(),
            windows=DECLINE_REGISTER,
            proxies_close_minutes=0,
            winners=15,  # rule 6
            win_once="session",
            rule=RAPS_RULE,
            assumptions="Rule 10's minimum-spend table is missing: the minimum spend is applied to the "
            "active-player list before it is uploaded, so the session has no earning period. "
            "Rule 15 opens the decline register 'before each session starts' without hours: 08h00 until the "
            "session starts.",
        ),
        SeriesDef(
            code="sat-bonus-jackpot-raps",
            name="Saturday Bonus Jackpot session (RAPS)",
            schedule_text="Every Saturday, 14 September to 30 November 2024, 16h00-17h00, 18h00-19h00 and 20h00-21h00",
            draws=weekly(5, "2024-09-14", "2024-11-30", "16:00", "18:00", "20:00"),  # rule 20
            method="raps",
            paid_at_device=True,  # rule 29: paid at the device, no letter
            desk_tiers=(),
            windows=DECLINE_REGISTER,
            proxies_close_minutes=0,
            winners=15,  # rule 21
            win_once="session",
            rule=RAPS_RULE,
            assumptions="Rule 25's minimum-spend table is missing: the minimum spend is applied to the "
            "active-player list before it is uploaded, so the session has no earning period. "
            "Rule 30 opens the decline register 'before each session starts' without hours: 08h00 until the "
            "session starts.",
        ),
        SeriesDef(
            code="sat-cash-2130",
            name="Saturday Night Cash draw",
            schedule_text="Every Saturday, 14 September to 30 November 2024, at 21h30",
            draws=weekly(5, "2024-09-14", "2024-11-30", "21:30"),
            windows=[{"day": 0, "open": "08:00", "close_before": 5}],  # rule 41: 08h00-21h25
            winners=5,  # rule 35
            win_once="day",  # rule 36
            rule={"period_kind": "days_before", "period_days": 7, "points_per_ticket": 300},  # rule 34.1
            assumptions="Rule 35 gives no dates: every Saturday with bonus jackpot sessions, 14 September to "
            "30 November 2024 (rule 20). "
            "Rule 34 does not state the earning period: points earned in the 7 days before the draw ('that week', "
            "rule 34.1), 300 points per entry, uncapped. "
            "Rule 34.1's table of extra entries for that week's bonus jackpot winners is missing: this rule gives "
            "none.",
        ),
        SeriesDef(
            code="month-end-bins",
            name="Month-end draw bin",
            schedule_text="Last Sunday of September, October and November 2024: five bins at 14h00-18h00",
            draws=[f"{day} {time}" for day in MONTH_END_DAYS for time in BINS],
            windows=[{"day": 0, "open": "08:00", "close_before": 0}],  # rule 59: until the start of each draw
            winners=3,  # rule 53
            win_once="bin",  # rule 50
            rule={"period_kind": "month_to_date", "period_start_time": "08:00", "points_per_ticket": 300},
            assumptions="Rule 55's table of draw dates is missing: the month-end draws are on the last Sunday of "
            "September, October and November 2024 (29 Sep, 27 Oct, 24 Nov), rule 67 putting the final one on "
            "Sunday 24 November. "
            "Rule 55's points criteria are missing: 300 points per entry in every bin, the Saturday cash draw rate "
            "of rule 34, uncapped (rule 50). "
            "Rule 51's monthly earning period is the calendar month to date, from 08h00 on the 1st until just "
            "before each bin, with no roll-over. "
            "Rule 48 limits entries to points earned in the promotional period but the seed gives no start date: "
            "1 September 2024, so September's points count from the 1st like the other months'. "
            "Rules 62 and 75 disagree on when proxy forms close: 15 minutes before each bin (rule 62, the "
            "month-end section) is used.",
        ),
        SeriesDef(
            code="month-end-finalist",
            name="Month-end Grand Finale finalist draw",
            schedule_text="After the five month-end bins: 29 September, 27 October and 24 November 2024",
            draws=[f"{day} 18:15" for day in MONTH_END_DAYS],
            method="manual",  # rule 56
            desk_tiers=(),
            windows=[{"day": 0, "open": "08:00", "close_before": 0}],  # nominal: finalists have no tickets
            winners=1,  # rule 56
            rule=FINALIST_ENTRIES,
            assumptions="Rule 56 gives no time for the monthly Grand Finale finalist draw: 18h15, after the "
            "18h00 bin's winners. "
            "Its entries are the month's 15 bin winners' receipts carried into a manual bin (rule 56), so it has "
            "no earning period and no tickets of its own.",
        ),
        SeriesDef(
            code="wild-card",
            name="Wild Card finalist draw",
            schedule_text="Sunday 24 November 2024, after the final month-end draw: 18h30 and 18h35",
            draws=["2024-11-24 18:30", "2024-11-24 18:35"],  # rule 67
            desk_tiers=(),
            windows=[{"day": 0, "open": "08:00", "close_before": 0}],  # nominal: finalists have no tickets
            winners=1,  # rule 66: 2 finalists, one per wild card draw
            rule=FINALIST_ENTRIES,
            assumptions="Rule 67 places the draw 'immediately after the final monthly draw' without a time: 18h30 "
            "on Sunday 24 November 2024, after the 18h15 finalist draw. "
            "Rule 68's 2 finalists come from 2 bins chosen by a manual draw of 1 to 5 (A14): two draws of one "
            "finalist each, 18h30 and 18h35, so that each draw's entry list is one bin's. Before each draw the "
            "number drawn by hand on stage is recorded (two different numbers); its entries are that bin's of "
            "24 November, carried with their tickets, less that bin's winners (rule 50) and the finalists "
            "already holding a Grand Finale place, so it has no earning period and no tickets of its own.",
        ),
        SeriesDef(
            code="grand-finale",
            name="Grand Finale",
            schedule_text="Sunday 1 December 2024 at 16h00, Montecasino",
            draws=["2024-12-01 16:00"],  # rule 70.2
            property="MC",
            method="manual",  # rule 70.2
            desk_tiers=(),
            windows=[{"day": 0, "open": "08:00", "close_before": 0}],  # nominal: finalists have no tickets
            winners=5,  # rule 70.2
            rule=FINALIST_ENTRIES,
            assumptions="Its entries are the finalists verified from the participating properties (rule 70.1), "
            "carried from earlier draws, so it has no earning period and no tickets of its own.",
        ),
    ],
)
