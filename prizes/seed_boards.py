"""Each seed's prize boards (issue 14 item 1; ../shared/design/PRIZES.md §2), loaded after the
seed promotions by `manage.py load_seed_boards` (`make run`).

Every amount a seed gives is here with its rule number; where a seed gives none the amount is
None, a required setting ("cfg"): the draw does not start until a promotions manager fills it
in. No number is invented. Loading is idempotent: a board that exists (a manager may have
filled it in) is left alone; only missing boards are created, through the same service as
the page (prizes.services.board_create), so the same checks and audit apply.

Add-ons (app, playTSOGO), progressives and share-outs are not board slots: they are computed
from the winner's flags and the jackpots (issue 14 items 4-5); the jackpots themselves are
loaded next, by prizes.seed_progressives (the Golden Horse vault's per-draw jackpot is also on
its board's pink slot: prizes.vault_jackpots keeps the two equal).
"""

import datetime as dt
from dataclasses import dataclass, field

from django.db import transaction

from core.audit import Actor
from members.models import Tier
from prizes.conducting.symbol_boxes import BONUS_DECLINED, BONUS_FIRST, BONUS_RUNNER_UP
from prizes.lines import LineKind
from prizes.models import BoardGame, PrizeBoard
from prizes.services import SlotDef, board_create
from prizes.vault_jackpots import PINK, VAULT_SERIES, WHITE
from promotions.models import DrawSeries, Promotion

R = 100  # cents per rand


@dataclass
class BoardDef:
    series: str
    game: str
    slots: list[SlotDef]
    tiers: tuple[str, ...] = ()  # one board per tier; empty: one board for every tier
    dates: tuple[str, ...] = ()  # one board per date; empty: every date
    total_cents: int | None = None
    settings: dict = field(default_factory=dict)
    per_date_settings: dict[str, dict] = field(default_factory=dict)
    notes: str = ""


def cfg(label: str, n: int, rule: str, kind: str = LineKind.CASH, start: int = 1) -> list[SlotDef]:
    """n slots without an amount (the seed gives none): "Reveal 1", "Reveal 2"…"""
    return [SlotDef(f"{label} {i}", None, kind, rule=rule) for i in range(start, start + n)]


def place(label: str, target: str, rule: str) -> SlotDef:
    """A finalist's place in a later draw of the promotion (`target`: that series' code)."""
    return SlotDef(label, 0, LineKind.PLACE, target_series=target, rule=rule)  # type: ignore[arg-type]


# --- Golden Horse Prive Powerplay 2026 ----------------------------------------------------------
GH_THURSDAYS = (
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
# A3: the "last Thursday" of each month with a draw: 30 Jul, 27 Aug and 10 Sep (Sep's only draw).
GH_LAST_THURSDAYS = ("2026-07-30", "2026-08-27", "2026-09-10")
GH_VAULT_SLOTS = [  # the groups name the ball (prizes.vault_jackpots sets both amounts per draw)
    SlotDef("White ball: consolation", None, group=WHITE, rule="r9, A4"),
    SlotDef("Pink ball: the tier's jackpot", None, group=PINK, rule="r9, A4"),
]
GH_VAULT_NOTE = (
    "Rule 9: in pick order each winner draws a ball from the vault without replacement; pink wins the tier's "
    "jackpot for the date, white its consolation. 15 balls (14 white, 1 pink); on the last Thursday of the "
    "month 3 balls (2 white, 1 pink), so one of the 3 winners takes the jackpot (A2, A3: 30 Jul, 27 Aug, 10 Sep). "
    "The amounts are 'set on that day' (A4): required per tier per date."
)


def gh_vault(series: str, tiers: tuple[str, ...]) -> BoardDef:
    return BoardDef(
        series,
        BoardGame.VAULT,
        GH_VAULT_SLOTS,
        tiers=tiers,
        dates=GH_THURSDAYS,
        settings={"balls": 15},
        per_date_settings={day: {"balls": 3} for day in GH_LAST_THURSDAYS},
        notes=GH_VAULT_NOTE,
    )


GH = [
    BoardDef(
        "thu-1300-midday",
        BoardGame.REVEAL,
        cfg("Reveal", 5, "r9"),
        notes="Rule 9: each of the 5 winners picks a reveal; the seed gives no amounts. App members also get "
        "R200 +Play (r8, an add-on, A6).",
    ),
    *(gh_vault(series, tiers) for series, tiers in VAULT_SERIES.items()),
    BoardDef(
        "sat-bonus-jackpot-raps",
        BoardGame.ENVELOPE,
        cfg("Envelope", 10, "r9"),
        notes="Rule 9: 6 slot and 4 table winners each pick an envelope; the seed gives no amounts.",
    ),
    *(
        BoardDef(
            code,
            BoardGame.REVEAL,
            cfg("Reveal", 5, "r9"),
            tiers=tiers,
            notes="Rule 9: 5 winners per tier pick a reveal; amounts per tier, not given by the seed.",
        )
        for code, tiers in (
            ("sat-2000-ten-jack", ("TEN", "JACK")),
            ("sat-2100-queen", ("QUEEN",)),
            ("sat-2200-king-ace", ("KING", "ACE")),
        )
    ),
    BoardDef(
        "halfway-mark",
        BoardGame.REVEAL,
        cfg("Reveal", 5, "r9"),
        notes="Rule 9: 5 winners per draw pick a reveal; the seed gives no amounts.",
    ),
    BoardDef(
        "car-draw",
        BoardGame.REVEAL,
        cfg("Reveal", 5, "r9, A5"),
        notes="Rule 9 names no car (A5): 5 reveals without amounts; a reveal may be made a vehicle at its value.",
    ),
]

# --- GRC Fast Lane to Fortune 2026 --------------------------------------------------------------
ROLL_INTO_RICHES = [  # r108 "BOARD SETUP": 20 reveals in 6 die zones, values in the listed order (A11)
    (1, "1-3", (2_000, 5_000, 8_000)),
    (2, "4-6", (5_000, 8_000, 10_000)),
    (3, "7-10", (8_000, 10_000, 12_000, 15_000)),
    (4, "11-14", (10_000, 12_000, 15_000, 18_000)),
    (5, "15-17", (12_000, 15_000, 18_000)),
    (6, "18-20", (15_000, 20_000, 25_000)),
]


def rir_slots() -> list[SlotDef]:
    slots = cfg("Randomiser reveal", 5, "r97-r104")  # the reveal the randomiser gives: amounts not in the seed
    number = 0
    for face, reveals, amounts in ROLL_INTO_RICHES:
        for amount in amounts:
            number += 1
            label = f"Die reveal {number}"
            if number == 19:
                label += ": R20,000 progressive (r107)"
            if number == 20:
                label += ": Bonus Reveal (r107)"
            slots.append(SlotDef(label, amount * R, group=f"Die {face} (reveals {reveals})", rule="r108"))
    return slots


FL_APP = "Every winner gets R200 more if registered on the app (r116, an add-on)."
FL = [
    *(
        BoardDef(
            code,
            BoardGame.REVEAL,
            cfg("Cash prize", 5, rule),
            notes=f"'Five (5) cash prizes' ({rule}); the game and the amounts are not given. {FL_APP}",
        )
        for code, rule in (("wed-1300-equal", "r12-r13"), ("wed-2000-equal", "r24-r25"))
    ),
    BoardDef(
        "thu-jack-1900",
        BoardGame.PODIUM,
        cfg("Podium", 5, "r41, A8"),
        total_cents=20_000 * R,
        notes=f"Rule 41: 5 podiums, R20,000 cash on offer weekly to Jacks: the 5 podiums' total (A8). {FL_APP}",
    ),
    BoardDef(
        "thu-queen-2000",
        BoardGame.PODIUM,
        cfg("Podium", 5, "r41, A8"),
        total_cents=30_000 * R,
        notes=f"Rule 41: 5 podiums, R30,000 cash on offer weekly to Queens: the 5 podiums' total (A8). {FL_APP}",
    ),
    BoardDef(
        "sat-car-1500-1900",
        BoardGame.PLACE,
        [
            *cfg("Cash prize", 3, "r59"),
            place("Car draw place (4th winner)", "sat-car-final", "r59, A7"),
            place("Car draw place (5th winner)", "sat-car-final", "r59, A7"),
        ],
        notes="Rule 59: 5 winners, 3 cash (amounts not given) and 2 car draw finalists: the 4th and 5th "
        f"winners confirmed (A7). {FL_APP}",
    ),
    BoardDef(
        "sat-car-2100",
        BoardGame.PLACE,
        [place("Car draw place 1", "sat-car-final", "r60-r61"), place("Car draw place 2", "sat-car-final", "r60-r61")],
        notes=f"Rules 60-61: the 9pm draw's 2 winners are car draw finalists. {FL_APP}",
    ),
    BoardDef(
        "sat-car-final",
        BoardGame.PODIUM,
        [
            SlotDef("Podium 1: the vehicle", 362_000 * R, LineKind.VEHICLE, rule="r67"),
            *cfg("Podium", 5, "r67", start=2),
        ],
        notes="Rules 64-67: the 6 finalists' randomisers decide the podiums in pick order: a vehicle 'valued at "
        f"R362k' and five cash prizes (amounts not given). {FL_APP}",
    ),
    BoardDef(
        "sat-cash-1500",
        BoardGame.BEST_HAND,
        cfg("Place", 5, "r79-r85, A9"),
        settings={"split_ties": True},
        notes="Rules 79-85: each winner's 3 cards and the 2 community cards make the hand; places 1-5 by the best "
        f"hand; equal hands share their places' prizes (A9). The place amounts are not given, nor which 25 cards "
        f"make the deck (r84, A9): both are set before the draw. {FL_APP}",
    ),
    BoardDef(
        "sat-cash-1900",
        BoardGame.ROULETTE,
        cfg("Podium", 5, "r90"),
        settings={"min_stake_cents": 200 * R, "max_spins": 10},
        notes="Rules 86-94: a card decides the podium (amounts not given); bets from the podium win on 0-36, each "
        "number with its multiplier (not given, A10); a bet at least R200 (r93); at most 10 spins (r94). "
        f"{FL_APP}",
    ),
    BoardDef(
        "sat-cash-2100",
        BoardGame.ROLL_INTO_RICHES,
        rir_slots(),
        settings={"progressive_increment_cents": 0},
        notes="Rules 95-108: the randomiser gives one of 5 reveals (amounts not given); the winner keeps it or "
        "forfeits it and rolls the die once: the zone's reveal is the prize (A11). Rule 108's example board is "
        "the default, in the listed order; reveal 19 is the R20,000 progressive (r107: growth not given, 0 until "
        f"set), reveal 20 the R25,000 Bonus Reveal. {FL_APP}",
    ),
]

# --- GRC Royal Flush 2024 -----------------------------------------------------------------------
RF_RAPS_NOTE = (
    "Rules 13-14 (28-29): the winner picks a prize card, paid at the device (amounts not given), and gets entries "
    "into that week's Saturday Night Cash draw (r34.1: the count is missing, A13). No add-ons."
)
RF = [
    *(
        BoardDef(
            code,
            BoardGame.PRIZE_CARD,
            [
                *cfg("Prize card", 15, rule),
                SlotDef(
                    "Entries into that week's Saturday Night Cash draw",
                    None,
                    LineKind.ENTRIES,
                    target_series="sat-cash-2130",  # type: ignore[arg-type]
                    every_winner=True,
                    rule="r34.1, A13",
                ),
            ],
            notes=RF_RAPS_NOTE,
        )
        for code, rule in (("wed-bonus-jackpot-raps", "r13-r14"), ("sat-bonus-jackpot-raps", "r28-r29"))
    ),
    BoardDef("sat-cash-2130", BoardGame.PLACE, cfg("Winner", 5, "r35"), notes="Rule 35: 5 winners; no amounts given."),
    BoardDef(
        "month-end-bins",
        BoardGame.PLACE,
        [
            *cfg("Winner", 3, "r53-r56"),
            SlotDef(
                "Receipt in the month-end finalist draw",
                None,
                LineKind.ENTRIES,
                target_series="month-end-finalist",  # type: ignore[arg-type]
                count=1,
                every_winner=True,
                rule="r56",
            ),
        ],
        notes="Rules 53-56: 3 winners per bin; the prizes are not given. Every winner's receipt goes into the "
        "manual finalist draw at 18h15 (r56): a winner of two bins has two receipts in it.",
    ),
    BoardDef(
        "month-end-finalist",
        BoardGame.PLACE,
        [place("Grand Finale place", "grand-finale", "r56")],
        notes="Rule 56: of the month's 15 bin winners, 1 drawn by hand goes to the Grand Finale.",
    ),
    BoardDef(
        "wild-card",
        BoardGame.PLACE,
        [place("Grand Finale place", "grand-finale", "r66-r68")],
        notes="Rules 66-68: 2 more Gold Reef City finalists, one in each of the two wild card draws, each from the "
        "bin whose number was drawn by hand (A14).",
    ),
    BoardDef(
        "grand-finale",
        BoardGame.FINALE_CARD,
        [SlotDef(f"Card {card}", None, rule="r70") for card in ("A", "K", "Q", "J", "10")],
        notes="Rule 70: in pick order each winner takes one of the cards A, K, Q, J, 10, each hiding a prize "
        "(amounts not given); a card's rank says nothing of its prize.",
    ),
]

# --- GRC Turn Up the Heat 2025 ------------------------------------------------------------------
TH_ADD_ONS = "Every winner gets R500 more if on the app, and R500 +Play if active on playTSOGO (add-ons)."
# r69, A20: a Saturday cash draw's first N winners in pick order also get a place in the next car
# draw; N is not given ("counts cfg"): required per board, 0 allowed.
TH_QUALIFIER = SlotDef(
    "Car draw qualifier place",
    0,
    LineKind.PLACE,
    target_series="sat-car-final",  # type: ignore[arg-type]
    every_winner=True,
    rule="r69, A20",
)
TH_QUALIFIERS = {"car_draw_qualifiers": None}
TH_QUALIFIER_NOTE = (
    "The first winners in pick order, as many as the car draw qualifiers set, also get a place in the next car "
    "draw (r69, A20)."
)
TH = [
    *(
        BoardDef(
            code,
            BoardGame.PLACE,
            cfg("Winner", 5, rule),
            notes=f"Rules {rule}: the winners' prizes are not given (A16). {TH_ADD_ONS}",
        )
        for code, rule in (("wed-1300-cash", "r5, r13"), ("wed-2000-cash", "r27, r35"))
    ),
    BoardDef(
        "thu-queen-cash",
        BoardGame.PODIUM,
        cfg("Podium", 5, "r55-r56"),
        total_cents=40_000 * R,
        notes=f"Rules 55-56: a randomiser decides each winner's podium; R40,000 cash is up for grabs weekly: the "
        f"5 podiums' total. {TH_ADD_ONS}",
    ),
    BoardDef(
        "sat-car-finalists",
        BoardGame.PLACE,
        # Every winner: the 9pm draw's count varies (6 - places held, r69), so one slot for all.
        [
            SlotDef(
                "Car draw place",
                0,
                LineKind.PLACE,
                target_series="sat-car-final",  # type: ignore[arg-type]
                every_winner=True,
                rule="r69-r70",
            )
        ],
        settings={"fill_places_to": 6},
        notes="Rules 69-70: every winner is a car draw finalist; the 9pm draw picks until the car draw has 6 "
        "distinct finalists (A20). One place per patron per car draw: an extra qualifying place becomes R5,000 "
        f"cash (a conversion, that draw's prize) and the 9pm draw picks one more. {TH_ADD_ONS}",
    ),
    BoardDef(
        "sat-car-final",
        BoardGame.PODIUM,
        [SlotDef("The vehicle", 380_000 * R, LineKind.VEHICLE, rule="r87"), *cfg("Finalist prize", 5, "A16", start=2)],
        notes="Rule 87: the car winner selects a vehicle 'valued around R380, 000' (a buy-back is agreed with the "
        f"dealer, not recorded here); the other 5 finalists' prizes are not given (A16). {TH_ADD_ONS}",
    ),
    BoardDef(
        "sat-cash-1500",
        BoardGame.SYMBOL_BOXES,
        [
            *cfg("Podium", 4, "r102-r103"),
            SlotDef(BONUS_FIRST, 10_000 * R, rule="r105"),
            SlotDef(BONUS_RUNNER_UP, 7_500 * R, rule="r105"),
            SlotDef(BONUS_DECLINED, 5_000 * R, rule="r107"),
            TH_QUALIFIER,
        ],
        settings={"boxes": 12, "blank_boxes": 6, **TH_QUALIFIERS},
        notes="Rules 102-107: 6 winners; a randomiser gives 4 of them a cash podium (amounts not given) and 2 the "
        "bonus game: 12 boxes (3 per symbol, 6 blank, A19) opened in turn, the earlier pick first; the first to "
        "all three symbols wins R10,000, the other R7,500; one declining gets R5,000 and the other R10,000, both "
        f"declining R5,000 each: the three Bonus slots pay them. {TH_QUALIFIER_NOTE} {TH_ADD_ONS}",
    ),
    BoardDef(
        "sat-cash-1900",
        BoardGame.PADDLE,
        [*cfg("Reveal", 25, "r116"), TH_QUALIFIER],
        settings={"reveals": 25, **TH_QUALIFIERS},
        notes="Rules 112-117: the paddle (2, 3 or 4) is the number of reveals the winner may open of 25 (amounts "
        f"not given); the prize is the last opened, never the sum (r117). {TH_QUALIFIER_NOTE} {TH_ADD_ONS}",
    ),
    BoardDef(
        "sat-cash-2100",
        BoardGame.SAFE,
        [*cfg("Podium", 5, "r123-r124"), TH_QUALIFIER],
        settings={"forfeit_cents": 2_000 * R, **TH_QUALIFIERS},
        notes="Rules 120-126: a randomiser decides the podium, R5,000 to R10,000 (amounts not given); the winner "
        "may forfeit R2,000 (r125, the board's setting) to try the digit safe (R100,000 base, +R20,000 per 9pm "
        f"draw not cracked: the safe's jackpot). {TH_QUALIFIER_NOTE} {TH_ADD_ONS}",
    ),
    BoardDef(
        "sat-safe-share-2130",
        BoardGame.SHARE_OUT,
        [],
        notes="Rules 135-141: only if the digit safe was never cracked, the 5 winners (r138) share its money "
        "equally, 20 December's 9pm increment included (A18); nothing is played on stage. If it was cracked the "
        f"draw does not start: cancel it. {TH_ADD_ONS}",
    ),
]

# --- Emnotweni DayTime PlayTime 2025 -----------------------------------------------------------
DT = [
    BoardDef(
        "wed-1400-manual",
        BoardGame.CARD_SCORE,
        [
            SlotDef("Highest score", 3_000 * R, rule="r10.1"),
            SlotDef("Second highest score", 2_000 * R, rule="r10.1"),
            SlotDef("Third highest score", 1_000 * R, rule="r10.1"),
        ],
        notes="Rule 10.1: in pick order each of the 3 winners chooses a card; the highest score wins R3,000, the "
        "second R2,000, the third R1,000 (scores are distinct, A21). A declined finalist gets the card left over "
        "(r19). No add-on: the app gives 5 more entries instead (r8).",
    ),
]

SEED_BOARDS: dict[str, list[BoardDef]] = {
    "golden-horse-prive-powerplay": GH,
    "grc-fast-lane-to-fortune": FL,
    "grc-royal-flush": RF,
    "grc-turn-up-the-heat": TH,
    "emnotweni-daytime-playtime": DT,
}


def load_seed_boards(*, actor: Actor) -> dict[str, int]:
    """Create each seed promotion's missing boards; {promotion code: boards added}. A promotion
    not loaded yet (load_seed_promotions) is skipped."""
    added: dict[str, int] = {}
    tiers = {t.code: t for t in Tier.objects.all()}
    for code, defs in SEED_BOARDS.items():
        promotion = Promotion.objects.filter(code=code).first()
        if promotion is None:
            continue
        series = {s.code: s for s in promotion.series.select_related("property")}
        count = 0
        with transaction.atomic():
            for bdef in defs:
                count += _load_board(bdef, series, tiers, actor)
        added[code] = count
    return added


def _load_board(bdef: BoardDef, series: dict[str, DrawSeries], tiers: dict[str, Tier], actor: Actor) -> int:
    owner = series[bdef.series]
    slots = [
        SlotDef(**{**s.__dict__, "target_series": series[s.target_series]}) if isinstance(s.target_series, str) else s
        for s in bdef.slots
    ]
    added = 0
    for tier_code in bdef.tiers or (None,):
        tier = tiers[tier_code] if tier_code else None
        for day in bdef.dates or (None,):
            draw_date = dt.date.fromisoformat(day) if day else None
            if PrizeBoard.objects.filter(series=owner, tier=tier, draw_date=draw_date).exists():
                continue  # loaded before: a manager's amounts survive every `make run`
            board_create(
                actor=actor,
                series=owner,
                game=bdef.game,
                slots=slots,
                tier=tier,
                draw_date=draw_date,
                total_cents=bdef.total_cents,
                settings={**bdef.settings, **bdef.per_date_settings.get(day or "", {})},
                notes=bdef.notes,
            )
            added += 1
    return added
