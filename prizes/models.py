"""What the winners win, as stored (issue 14, items 1 and 7; ../shared/design/PRIZES.md §1).

- PrizeBoard: a draw series' board, optionally for one tier and/or one draw date (the most
  specific applies), naming the stage game and its slots.
- BoardSlot: one prize on the board. An amount left blank is a required setting ("cfg" in
  PRIZES.md: the seed gives no value): the draw does not start until a manager fills it in
  (prizes.settings_check, consulted through draws.start_checks).
- PrizeLine: one amount of one kind won by one winner in one draw. Once its draw is complete
  a line is never edited or deleted (PostgreSQL refuses it too, migration 0002): a correction
  is a reversing line.
"""

from typing import NamedTuple

from django.db import models
from django.db.models import Q

from core.formats import local_date, rand_cents
from draws.models import Draw, DrawPick
from members.models import Member, Tier
from prizes.lines import LineKind, LineSource
from promotions.models import DrawSeries

# Words for people (prizes.lines keeps the codes, without Django).
KIND_LABELS = {
    LineKind.CASH: "Cash",
    LineKind.PLAY: "+Play",
    LineKind.VEHICLE: "Vehicle",
    LineKind.PLACE: "Place in a later draw",
    LineKind.ENTRIES: "Entries into a later draw",
    LineKind.OTHER: "Other",
}
SOURCE_LABELS = {
    LineSource.BOARD: "Prize board",
    LineSource.GAME: "Stage game",
    LineSource.ADD_ON: "Add-on",
    LineSource.JACKPOT: "Jackpot",
    LineSource.SHARE_OUT: "Share-out",
    LineSource.CONVERSION: "Conversion",
    LineSource.REVERSAL: "Correction",
}
KIND_CHOICES = [(kind.value, KIND_LABELS[kind]) for kind in LineKind]
SOURCE_CHOICES = [(source.value, SOURCE_LABELS[source]) for source in LineSource]


class BoardGame(models.TextChoices):
    """How a winner reaches a slot of the board (the stage games of PRIZES.md §2)."""

    REVEAL = "reveal", "Reveals (the winner picks one)"
    ENVELOPE = "envelope", "Envelopes (the winner picks one)"
    PODIUM = "podium", "Podiums (a randomiser or card decides)"
    PRIZE_CARD = "prize_card", "Prize cards (the winner picks one)"
    FINALE_CARD = "finale_card", "Grand Finale cards A, K, Q, J, 10"
    VAULT = "vault", "Vault (a ball drawn: white or pink)"
    BEST_HAND = "best_hand", "Best hand (places by the poker hand)"
    ROULETTE = "roulette", "Roulette Xtra (podium, then bets)"
    ROLL_INTO_RICHES = "roll_into_riches", "Roll into Riches (reveal, or the die)"
    SYMBOL_BOXES = "symbol_boxes", "Symbol boxes (podiums and the bonus game)"
    PADDLE = "paddle", "Paddle (2, 3 or 4 reveals; the last opened wins)"
    SAFE = "safe", "Digit safe (podium, then the safe)"
    CARD_SCORE = "card_score", "Card scores (highest score first)"
    SHARE_OUT = "share_out", "Share-out (the jackpot shared equally among the winners)"
    PLACE = "place", "By the order of the picks"
    NONE = "none", "No game"


# A board's own parameters, by game: (key, label, kind, default[, help]). kind "cents" is an
# amount in rand on the form, "int" a whole number, "bool" a tick box, "cards" playing cards as
# text. A default of None is a required setting (the seed gives none): it blocks the draw's start
# until filled in, like a blank slot. The help says where the setting comes from (the seed's rule).
ROULETTE_NUMBERS = range(37)  # FL r91: 0-36
SETTINGS: dict[str, tuple[tuple, ...]] = {
    BoardGame.VAULT: (("balls", "Balls in the vault (1 pink, the rest white)", "int", 15),),  # GH r9, A2-A3
    BoardGame.BEST_HAND: (
        ("split_ties", "Equal hands share their places' prizes", "bool", True),  # FL A9
        (
            "deck",
            "The 25 cards of the Best Hand deck",
            "cards",
            None,  # A9: the seed does not say which 25 cards: required
            "FL rule 84 deals each winner three cards from the 25 cards: write them, e.g. AS KS QS JS 10S AH …",
        ),
    ),
    BoardGame.ROULETTE: (
        ("min_stake_cents", "Smallest bet", "cents", 20_000),  # FL r93: R200
        ("max_spins", "Most spins per winner", "int", 10),  # FL r94
        *((f"multiplier_{n}", f"Number {n} pays times", "int", None) for n in ROULETTE_NUMBERS),  # r91, A10: cfg
    ),
    BoardGame.ROLL_INTO_RICHES: (
        ("progressive_increment_cents", "Progressive reveal grows per draw not won by", "cents", 0),  # FL A11
    ),
    BoardGame.SYMBOL_BOXES: (
        ("boxes", "Boxes on stage", "int", 12, "TH rule 106: there will be 12 boxes on stage."),
        (
            "blank_boxes",
            "Blank boxes among them",
            "int",
            6,
            "The boxes hide 3 of each bonus symbol and blanks (A19): 6 blanks among 12 boxes.",
        ),
    ),
    BoardGame.PADDLE: (("reveals", "Prize reveals on stage", "int", 25),),  # TH r116
    BoardGame.SAFE: (
        (
            "forfeit_cents",
            "Forfeited to try the safe",
            "cents",
            200_000,
            "TH rule 125: the winner may forfeit R2,000 of the podium to try to crack the safe.",
        ),
    ),
}


class SettingSpec(NamedTuple):
    key: str
    label: str
    kind: str
    default: object
    help: str = ""


def setting_specs(game: str) -> tuple[SettingSpec, ...]:
    return tuple(SettingSpec(*spec) for spec in SETTINGS.get(game, ()))


def setting_words(kind: str, value) -> str:
    """A setting's value as the board page shows it read-only."""
    if value is None:
        return "Not set"
    if kind == "cents":
        return rand_cents(value)
    if kind == "bool":
        return "Yes" if value else "No"
    return str(value)


# Settings a board has only when its seed gives them, whatever its game: the key is in the
# board's settings (None: required and blank, blocking the start like a blank amount).
BOARD_SETTINGS: dict[str, SettingSpec] = {
    spec.key: spec
    for spec in (
        SettingSpec(
            "car_draw_qualifiers",
            "Car draw qualifiers per draw (the first winners in pick order)",
            "int",
            None,
            "TH r69, A20: the seed gives no count; the first winners in pick order also get a place in the "
            "next car draw.",
        ),
        SettingSpec(
            "fill_places_to",
            "The last finalist draw fills the car draw to this many finalists",
            "int",
            None,
            "TH r69: the 9pm draw picks until the car draw has this many distinct finalists.",
        ),
    )
}


class PrizeBoard(models.Model):
    series = models.ForeignKey(DrawSeries, on_delete=models.CASCADE, related_name="prize_boards")
    tier = models.ForeignKey(
        Tier, null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text="Empty: every tier."
    )
    draw_date = models.DateField(null=True, blank=True, help_text="Empty: every draw date of the series.")
    game = models.CharField(max_length=20, choices=BoardGame.choices)
    total_cents = models.BigIntegerField(
        null=True, blank=True, help_text="The slots must add up to this (e.g. podiums sharing R20,000)."
    )
    settings = models.JSONField(default=dict, blank=True, help_text="The game's parameters (SETTINGS).")
    notes = models.TextField(blank=True, help_text="Where the board comes from: the seed's rules.")
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["series", "tier__rank", "draw_date", "id"]
        permissions = [("reverse_prizeline", "Can correct a prize line with a reversing line")]
        constraints = [
            # One board per series, tier and date (NULL = every): four partial indexes, since
            # NULLs are distinct in a plain unique index (and SQLite has no NULLS NOT DISTINCT).
            models.UniqueConstraint(
                fields=["series"], condition=Q(tier__isnull=True, draw_date__isnull=True), name="board_per_series"
            ),
            models.UniqueConstraint(
                fields=["series", "tier"], condition=Q(draw_date__isnull=True), name="board_per_series_tier"
            ),
            models.UniqueConstraint(
                fields=["series", "draw_date"], condition=Q(tier__isnull=True), name="board_per_series_date"
            ),
            models.UniqueConstraint(fields=["series", "tier", "draw_date"], name="board_per_series_tier_date"),
            models.CheckConstraint(condition=Q(total_cents__gte=0), name="board_total_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.series.name}{self.scope_words()}"

    def scope_words(self) -> str:
        """ ", Queen tier, 30 Jul 2026" or "" for a board of every tier and date."""
        parts = []
        if self.tier_id:
            parts.append(f"{self.tier.name} tier")
        if self.draw_date:
            parts.append(local_date(self.draw_date))
        return "".join(f", {part}" for part in parts)

    def setting_specs(self) -> tuple[SettingSpec, ...]:
        """Its game's settings, then the board's own (BOARD_SETTINGS) the seed gave it."""
        return setting_specs(self.game) + tuple(spec for key, spec in BOARD_SETTINGS.items() if key in self.settings)

    def setting(self, key: str):
        """The setting's value, or its default (None: required and not set)."""
        defaults = {spec.key: spec.default for spec in setting_specs(self.game)}
        return self.settings.get(key, defaults.get(key))

    def setting_rows(self) -> list[tuple[str, str, str]]:
        """(label, value in words, help) of each of the game's settings, for the read-only board."""
        return [(s.label, setting_words(s.kind, self.setting(s.key)), s.help) for s in self.setting_specs()]

    def specificity(self) -> int:
        return (self.tier_id is not None) + 2 * (self.draw_date is not None)


class BoardSlot(models.Model):
    board = models.ForeignKey(PrizeBoard, on_delete=models.CASCADE, related_name="slots")
    position = models.PositiveSmallIntegerField(help_text="Order on the board: podium 1, reveal 2, the pick's place…")
    label = models.CharField(max_length=80)
    group = models.CharField(
        max_length=40, blank=True, help_text="The game's zone of the slot, e.g. the die's face in Roll into Riches."
    )
    kind = models.CharField(max_length=10, choices=KIND_CHOICES, default=LineKind.CASH)
    amount_cents = models.BigIntegerField(
        null=True, blank=True, help_text="Empty: a required setting the seed does not give; the draw waits for it."
    )
    target_series = models.ForeignKey(
        DrawSeries,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="A place or entries: the later draw's series.",
    )
    count = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Entries: how many.")
    every_winner = models.BooleanField(
        default=False, help_text="Every winner gets this line as well as the slot they reach (e.g. RF r34.1 entries)."
    )
    rule = models.CharField(max_length=40, blank=True, help_text="The seed's rule, e.g. r108.")

    class Meta:
        ordering = ["board", "position"]
        constraints = [
            models.UniqueConstraint(fields=["board", "position"], name="slot_position_per_board"),
            models.CheckConstraint(condition=Q(amount_cents__gte=0), name="slot_amount_not_negative"),
        ]

    def __str__(self) -> str:
        return self.label

    def missing(self) -> str | None:
        """What a manager must still set on this slot, in words, or None."""
        if self.kind in (LineKind.PLACE, LineKind.ENTRIES):
            if self.target_series_id is None:
                return f"the later draw of {self.label}"
            if self.kind == LineKind.ENTRIES and self.count is None:
                return f"the number of entries of {self.label}"
            return None
        return f"the amount of {self.label}" if self.amount_cents is None else None

    def value_words(self) -> str:
        if self.kind == LineKind.PLACE:
            return f"A place in {self.target_series.name}" if self.target_series_id else "A place (draw not set)"
        if self.kind == LineKind.ENTRIES:
            count = "?" if self.count is None else self.count
            target = self.target_series.name if self.target_series_id else "(draw not set)"
            return f"{count} {'entry' if count == 1 else 'entries'} into {target}"
        return "Not set" if self.amount_cents is None else rand_cents(self.amount_cents)


class PrizeLineQuerySet(models.QuerySet):
    def with_related(self) -> "PrizeLineQuerySet":
        return self.select_related("draw", "draw__series", "draw__series__promotion", "draw__property", "member")


class PrizeLine(models.Model):
    """One amount of one kind, one winner, one draw (PRIZES.md §1). For a vehicle the amount is
    its stated value, for a place 0, for entries their number (LineSpec). A reversal is the
    negative of the line it corrects, with the reason and the manager who made it."""

    draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="prize_lines")
    pick = models.ForeignKey(DrawPick, on_delete=models.PROTECT, related_name="prize_lines")
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="prize_lines")
    kind = models.CharField(max_length=10, choices=KIND_CHOICES)
    amount_cents = models.BigIntegerField()
    source = models.CharField(max_length=12, choices=SOURCE_CHOICES)
    words = models.CharField(max_length=300)
    data = models.JSONField(default=dict, blank=True, help_text="The game's outcome that produced the line.")
    reverses = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by")
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField()
    created_by = models.CharField(max_length=150)

    objects = PrizeLineQuerySet.as_manager()

    class Meta:
        ordering = ["draw", "pick__seq", "id"]
        indexes = [models.Index(fields=["member", "draw"], name="prizeline_member_draw_idx")]
        constraints = [
            # A reversal, and only a reversal, corrects a line: negative (or 0 for a place), with its reason.
            models.CheckConstraint(
                condition=(Q(source=LineSource.REVERSAL, reverses__isnull=False, amount_cents__lte=0) & ~Q(reason=""))
                | (~Q(source=LineSource.REVERSAL) & Q(reverses__isnull=True, amount_cents__gte=0)),
                name="prizeline_reversal_shape",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.words} ({self.draw_id})"

    def amount_words(self) -> str:
        if self.kind == LineKind.ENTRIES:
            return f"{self.amount_cents} entries"
        if self.kind == LineKind.PLACE:
            return "Place" if self.amount_cents >= 0 else "Place withdrawn"
        return rand_cents(self.amount_cents)

    def is_money(self) -> bool:
        """Cash, +Play, a vehicle's value or other: counted in the totals (places and entries are not money)."""
        return self.kind not in (LineKind.PLACE, LineKind.ENTRIES)


# --- Progressive jackpots (issue 14, item 5; jackpots' part) ------------------------------------


class Progressive(models.Model):
    """A jackpot whose value is carried from draw to draw: TH's digit safe (r120-126), FL's
    R20,000 progressive reveal (r107), GH's vault jackpot (r9, A4). Its value is never stored
    here: it is the balance of its last entry (the base before any)."""

    promotion = models.ForeignKey("promotions.Promotion", on_delete=models.PROTECT, related_name="progressives")
    series = models.ForeignKey(
        "promotions.DrawSeries",
        on_delete=models.PROTECT,
        related_name="progressives",
        help_text="The draws that grow it or are won from it (TH: the Saturday 9pm draws).",
    )
    code = models.SlugField(max_length=40)
    name = models.CharField(max_length=120)
    base_cents = models.PositiveBigIntegerField(help_text="Its value at the start and after each win.")
    increment_cents = models.PositiveBigIntegerField(
        default=0, help_text="Added each time a draw of the series closes without a win; 0: it never grows."
    )
    share_series = models.ForeignKey(
        "promotions.DrawSeries",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="The draw that shares it out if it is never won (TH r135: 20 Dec 21h30).",
    )

    class Meta:
        ordering = ["promotion_id", "code"]
        constraints = [models.UniqueConstraint(fields=["promotion", "code"], name="progressive_unique_code")]

    def __str__(self) -> str:
        return self.name


class ProgressiveEntryKind(models.TextChoices):
    GROW = "grow", "Grew"
    WON = "won", "Won"
    RESET = "reset", "Back to base"
    SHARE_OUT = "share_out", "Shared out"
    SET = "set", "Amount set"


class ProgressiveEntry(models.Model):
    """One change of a progressive, by a service (prizes/progressives.py), never by hand: the
    database refuses to change or delete an entry, and an entry whose balance is not the last
    balance plus its change (migration: prizes_progressiveentry_guard)."""

    progressive = models.ForeignKey(Progressive, on_delete=models.PROTECT, related_name="entries")
    draw = models.ForeignKey(
        "draws.Draw", on_delete=models.PROTECT, related_name="+", help_text="The draw that caused the change."
    )
    pick = models.ForeignKey("draws.DrawPick", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    kind = models.CharField(max_length=10, choices=ProgressiveEntryKind.choices)
    change_cents = models.BigIntegerField()
    balance_cents = models.BigIntegerField(help_text="The progressive's value after this change.")
    words = models.CharField(max_length=300)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=150, help_text="Who or which job made the change.")

    class Meta:
        ordering = ["progressive_id", "pk"]
        verbose_name_plural = "progressive entries"
        constraints = [
            models.CheckConstraint(condition=Q(balance_cents__gte=0), name="progressive_balance_never_negative"),
            # One growth and one win per draw (TH A17: "one crack a draw"), one share-out ever.
            models.UniqueConstraint(
                fields=["progressive", "draw"], condition=Q(kind="grow"), name="progressive_grows_once_a_draw"
            ),
            models.UniqueConstraint(
                fields=["progressive", "draw"], condition=Q(kind="won"), name="progressive_won_once_a_draw"
            ),
            models.UniqueConstraint(
                fields=["progressive"], condition=Q(kind="share_out"), name="progressive_shared_out_once"
            ),
        ]

    def __str__(self) -> str:
        return self.words


# --- Stage games as played (issue 14, item 2; conduct's part) ---------------------------------


class GamePlayStatus(models.TextChoices):
    OPEN = "open", "Being played"
    FINISHED = "finished", "Finished: prizes recorded"


class GamePlay(models.Model):
    """What the conductor recorded of one board's game in one draw, in order (prizes/conduct.py).
    A game whose outcome depends on several winners (the vault's balls drawn without
    replacement, the slots opened once each) is one play per draw and board, `pick` empty,
    each event naming its pick; a game one winner plays alone (roulette, the die, the safe) is
    one play per winning pick. Finishing it stores the prize lines once: never a typed amount."""

    draw = models.ForeignKey("draws.Draw", on_delete=models.PROTECT, related_name="game_plays")
    pick = models.OneToOneField(
        "draws.DrawPick", null=True, blank=True, on_delete=models.PROTECT, related_name="game_play"
    )
    board = models.ForeignKey(PrizeBoard, on_delete=models.PROTECT, related_name="plays")
    game = models.CharField(max_length=20, choices=BoardGame.choices)
    events = models.JSONField(default=list, blank=True, help_text="What happened on stage, in order.")
    status = models.CharField(max_length=10, choices=GamePlayStatus.choices, default=GamePlayStatus.OPEN)
    finished_at = models.DateTimeField(null=True, blank=True)
    finished_by = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["draw", "board", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["draw", "board"], condition=Q(pick__isnull=True), name="play_per_draw_board"
            ),
            models.CheckConstraint(
                condition=Q(status="open", finished_at__isnull=True) | Q(status="finished", finished_at__isnull=False),
                name="play_finished_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_game_display()} of draw {self.draw_id}"


# --- Royal Flush wild cards (r66-r68, A14; prizes/wild_card.py) -------------------------------


class WildCardBin(models.Model):
    """The month-end bin number (1 to 5) drawn by hand on stage for one wild card draw: its
    entrants are that bin's. Recorded by the conductor before the draw starts; fixed once its
    entries are frozen (the verifiable record names the bin in each entry's `why`)."""

    draw = models.OneToOneField(Draw, on_delete=models.PROTECT, related_name="wild_card_bin")
    number = models.PositiveSmallIntegerField(help_text="The bin drawn by hand: 1 (14h00) to 5 (18h00).")
    bin_draw = models.ForeignKey(Draw, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField()
    recorded_by = models.CharField(max_length=150)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(number__gte=1, number__lte=5), name="wild_card_bin_1_to_5"),
        ]

    def __str__(self) -> str:
        return f"Bin {self.number} for draw {self.draw_id}"


# --- Prize letters and payouts (issue 15; prizes/letter_models.py) ----------------------------

from prizes.letter_models import (  # noqa: E402, F401  (Django finds an app's models through models.py)
    LETTER_KINDS,
    LIVE_STATUSES,
    LetterCounter,
    LetterLine,
    LetterStatus,
    Payout,
    PayoutPlace,
    PrizeLetter,
    RenderState,
)
