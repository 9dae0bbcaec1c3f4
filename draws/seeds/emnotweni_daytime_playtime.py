"""DayTime PlayTime, Emnotweni, Wednesdays in September 2025 (texts/emnotweni-daytime-playtime.txt).

The X4 Bonus Play multiplier in the same document multiplies +Play on the app; it has no draws.
"""

from draws.seeds import PromotionDef, SeriesDef, weekly

PROMOTION = PromotionDef(
    code="emnotweni-daytime-playtime",
    name="DayTime PlayTime",
    properties=("EMN",),
    starts_on="2025-09-01",
    ends_on="2025-09-30",
    text_file="emnotweni-daytime-playtime.txt",
    collection_place="the Customer Service Desk",  # rule 25
    series=[
        SeriesDef(
            code="wed-1400-manual",
            name="Wednesday DayTime PlayTime draw",
            schedule_text="Every Wednesday in September 2025 at 14h00",
            draws=weekly(2, "2025-09-01", "2025-09-30", "14:00"),
            method="manual",  # rule 11
            # Rules 4 and 13: entries print from two hours before the draw, into the bin until it starts.
            windows=[{"day": 0, "open": "12:00", "close_before": 0}],
            proxies=False,  # rules 14-15: a decline-to-be-present register, no proxies
            proxies_open="12:00",
            proxies_close_minutes=0,
            winners=3,  # rule 10
            win_once="day",  # rule 12
            rule={
                "period_kind": "month_to_date",
                "period_start_time": "08:00",
                "bonus_active_at_property": 1,  # rule 6
                "bonus_age_50_plus": 3,  # rule 7
                "bonus_app_registered": 5,  # rule 8
            },
            assumptions="Rule 11 leaves the draw times to advertising: 14h00 on each Wednesday in September 2025 "
            "(3, 10, 17 and 24 September), a daytime draw. "
            "Rule 13 gives only the opening of the entry bins, 2 hours before the draw: entries close when the draw "
            "starts. "
            "Rules 6-8 give only free entries and no points rate: points count only to make a member 'active at "
            "Emnotweni' (rule 6), read as having earned points there from 08h00 on 1 September 2025 (the start of the "
            "promotional period, rule 3) until just before the draw. "
            "Rules 7 and 8's additional entries are given to every eligible Emnotweni member aged 50 or more or "
            "registered on the app, whether or not active. "
            "The seed has a decline register (rules 14-15) and no proxy nominations: the proxy window is kept to the "
            "entry window, 12h00 until the draw.",
        ),
    ],
)
