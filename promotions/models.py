"""Promotions, their draw series and the earning rule of each series.

A series is the recurring kind of draw ("Thursday Queen Tier Cash draw, 20h00"); each of its
draws (draws.Draw) is one date-time with its own windows and entries. The earning rule
says how many tickets a member gets for a draw of the series.
"""

import datetime as dt

from django.db import models
from django.db.models import Q
from django.utils import timezone

from members.models import Property, Tier
from promotions import draw_links
from promotions.rules import DEFAULT_WINDOWS, RuleInvalid, RuleUnreadable, RuleValues, WindowSpec, windows_parse


def eight_am() -> dt.time:
    """08h00, the default opening of proxy nominations and of a month-to-date earning period.
    A callable, not a fixed dt.time: Django's system check (fields.W161) takes a fixed time default
    for a mistaken "now" when it runs within ten seconds of that time of day (UTC), and every
    manage.py command then prints the warning."""
    return dt.time(8, 0)


class PromotionStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"
    CLOSED = "closed", "Closed"


class Promotion(models.Model):
    code = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=120)
    properties = models.ManyToManyField(Property, related_name="promotions")
    starts_on = models.DateField()
    ends_on = models.DateField()
    rules_text = models.TextField(blank=True, help_text="The terms and conditions as published.")
    status = models.CharField(max_length=10, choices=PromotionStatus.choices, default=PromotionStatus.DRAFT)
    # Collection (PRIZES.md §3): every seed gives the winner 15 days from the draw to collect, in
    # person, at the casino where the prize was won; the desk's words name where at that casino.
    collection_days = models.PositiveSmallIntegerField(
        default=15, help_text="Days after the draw's date within which a winner collects the prize (15 in every seed)."
    )
    collection_place = models.CharField(
        max_length=200,
        default="the Cash Desk",
        help_text="Where at the casino the winner collects, as the prize letter says (e.g. the Cash Desk).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "name"]
        constraints = [models.CheckConstraint(condition=Q(ends_on__gte=models.F("starts_on")), name="promotion_dates")]

    def __str__(self) -> str:
        return self.name

    def _dates(self) -> tuple[dt.date, dt.date]:
        # An instance made with Promotion.objects.create(starts_on="2026-01-01") keeps the text.
        field = self._meta.get_field("starts_on")
        return field.to_python(self.starts_on), field.to_python(self.ends_on)

    def dates_in_words(self) -> str:
        starts_on, ends_on = self._dates()
        return f"{starts_on:%d %b %Y} \N{EN DASH} {ends_on:%d %b %Y}"

    def date_refusal(self, moment: dt.datetime) -> str | None:
        """Why a draw at `moment` cannot belong to this promotion (its Johannesburg day falls
        outside the promotion's dates), or None."""
        starts_on, ends_on = self._dates()
        day = timezone.localtime(moment).date()
        if starts_on <= day <= ends_on:
            return None
        side = "before its start" if day < starts_on else "after its end"
        return f"{self.name} runs {self.dates_in_words()}; {day:%d %b %Y} is {side}."

    def shrink_refusal(self, *, properties) -> str | None:
        """Why this promotion cannot take its new dates and `properties` (unsaved on self):
        a draw that is not cancelled would fall outside the dates, or a series would be at a
        property it no longer runs at. None if it can."""
        if self.pk is None:
            return None
        starts_on, ends_on = self._dates()
        # promotions sits below draws: its draws are asked through promotions.draw_links.
        first_day = timezone.make_aware(dt.datetime.combine(starts_on, dt.time()))
        after_last_day = timezone.make_aware(dt.datetime.combine(ends_on + dt.timedelta(days=1), dt.time()))
        count, first_at = draw_links.draws_outside(self, first_day, after_last_day)
        if count:
            first = timezone.localtime(first_at)
            return (
                f"{self.name} has {count} draw{'s' if count > 1 else ''} outside {self.dates_in_words()}, "
                f"the first on {first:%d %b %Y %H:%M}: move or cancel {'them' if count > 1 else 'it'} first."
            )
        keep = {p.pk for p in properties}
        stranded = self.series.exclude(property__in=keep).select_related("property").order_by("name")
        if stranded:
            where = ", ".join(sorted({s.property.name for s in stranded}))
            names = ", ".join(s.name for s in stranded)
            return f"{self.name} has series at {where} ({names}): keep the property while its series are there."
        return None

    def collection_expires_at(self, draw_at: dt.datetime) -> dt.datetime:
        """The first instant a prize of a draw at `draw_at` can no longer be collected: midnight
        (Johannesburg) ending the day `collection_days` after the draw's date. Until then the
        winner may collect ("within 15 days of the draw"); stored in UTC like every time."""
        last_day = timezone.localtime(draw_at).date() + dt.timedelta(days=self.collection_days)
        return timezone.make_aware(dt.datetime.combine(last_day + dt.timedelta(days=1), dt.time()))

    def property_refusal(self, prop: Property) -> str | None:
        """Why a series at `prop` cannot belong to this promotion (it does not run there), or None."""
        runs_at = list(self.properties.all()) if self.pk else []
        if any(p.pk == prop.pk for p in runs_at):
            return None
        where = ", ".join(p.name for p in runs_at) or "no property yet"
        return f"{self.name} runs at {where}, not at {prop.name}: add the property to the promotion first."


class DrawMethod(models.TextChoices):
    ELECTRONIC = "electronic", "Electronic (TEEDS)"
    MANUAL = "manual", "Manual (paper tickets in a bin)"
    RAPS = "raps", "RAPS (random active player selection)"


class WinOnceScope(models.TextChoices):
    DRAW = "draw", "Once per draw"
    DAY = "day", "Once per promotional day"
    SESSION = "session", "Once per session"
    BIN = "bin", "Once per draw bin"
    PERIOD = "period", "Once per draw period"


class DrawSeries(models.Model):
    promotion = models.ForeignKey(Promotion, on_delete=models.CASCADE, related_name="series")
    code = models.SlugField(max_length=60)
    name = models.CharField(max_length=120)
    property = models.ForeignKey(Property, on_delete=models.PROTECT, related_name="+")
    method = models.CharField(max_length=12, choices=DrawMethod.choices, default=DrawMethod.ELECTRONIC)
    eligible_tiers = models.ManyToManyField(Tier, related_name="+", help_text="Tiers whose members may enter.")
    desk_assisted_tiers = models.ManyToManyField(
        Tier, related_name="+", blank=True, help_text="Tiers the VIP desk may activate tickets for."
    )
    winners_per_draw = models.PositiveSmallIntegerField(default=1)
    win_once_scope = models.CharField(max_length=10, choices=WinOnceScope.choices, default=WinOnceScope.DRAW)
    schedule_text = models.CharField(max_length=300, blank=True, help_text="e.g. Every Wednesday at 13h00")
    # Defaults for the draws generated for this series; each draw keeps its own copy.
    ticket_windows = models.JSONField(
        default=list,
        help_text='Ticket windows relative to the draw day: [{"day": 0, "open": "08:00", "close": "12:55"}]; '
        '"day": -1 is the day before; "close": "24:00" is midnight.',
    )
    proxies_allowed = models.BooleanField(
        default=True, help_text="Whether winners may be represented by a nominated proxy (DayTime PlayTime: no)."
    )
    proxies_open = models.TimeField(default=eight_am)
    proxies_close_minutes = models.PositiveSmallIntegerField(
        default=15, help_text="Proxy nominations close this many minutes before the draw (0: at the start)."
    )
    presentation_seconds = models.PositiveSmallIntegerField(
        default=90,
        help_text="How long a winner has to come forward once picked, in seconds (the seeds say 90).",
    )
    one_selection_per_draw = models.BooleanField(
        default=False,
        help_text="A member is selected at most once per draw: picked again, whatever the first pick's outcome, "
        "they are redrawn (Fast Lane rule 117).",
    )
    paid_at_device = models.BooleanField(
        default=False,
        help_text="Prizes are paid where the winner plays, recorded by the staff member who paid, with no prize "
        "letter (Royal Flush rules 14 and 29: bonus jackpot sessions).",
    )

    class Meta:
        ordering = ["promotion", "name"]
        verbose_name_plural = "draw series"
        constraints = [models.UniqueConstraint(fields=["promotion", "code"], name="series_code_per_promotion")]

    def __str__(self) -> str:
        return f"{self.promotion.name}: {self.name}"

    def has_tickets_out(self, *, lock: bool = False) -> bool:
        """Whether a draw of this series that has not closed yet holds activated tickets.
        With lock=True (inside a transaction) those draws' rows are locked first: activation
        locks the same row, so the answer stays true until the transaction ends."""
        # Through promotions.draw_links: promotions sits below draws and never imports it.
        return draw_links.has_tickets_out(self, lock=lock)

    def window_specs(self) -> list[WindowSpec]:
        """The stored ticket windows, parsed (promotions.rules.windows_parse); an unreadable
        list raises RuleUnreadable, which names this series."""
        try:
            return windows_parse(self.ticket_windows or DEFAULT_WINDOWS)
        except RuleInvalid as error:
            raise RuleUnreadable(
                f"The ticket windows of {self} cannot be read: {error.message} Ask the promotions manager to fix them."
            ) from None

    def windows_for(self, scheduled_at: dt.datetime) -> list[tuple[dt.datetime, dt.datetime]]:
        """The ticket windows of this series for a draw at `scheduled_at`, as aware datetimes.

        Each spec is {"day": 0, "open": "08:00", and one of "close": "12:55" | "24:00" (midnight)
        or "close_before": 5 (minutes before the draw; 0 is "until the start of the draw")}.
        "day" counts from the draw day: -1 is the Friday before a Saturday draw.
        """
        return [spec.lay_out(scheduled_at) for spec in self.window_specs()]


class PeriodKind(models.TextChoices):
    DAYS_BEFORE = "days_before", "The N days before the draw"
    MONTH_TO_DATE = "month_to_date", "Calendar month to date (from a start time on the 1st)"
    FIXED = "fixed", "A fixed range"
    NONE = "none", "No points needed"


class EarningRule(models.Model):
    """How many tickets a member gets for one draw of the series.

    tickets = min(cap, floor(points / points_per_ticket) + free + bonuses), where points are
    those earned at the draw's property in the earning period, which always ends just before
    the draw starts. An equal-opportunity rule gives every eligible member the same count.
    Tier-keyed values are dicts of tier code to number, e.g. {"QUEEN": 100, "KING": 200}.
    """

    series = models.OneToOneField(DrawSeries, on_delete=models.CASCADE, related_name="rule")
    period_kind = models.CharField(max_length=14, choices=PeriodKind.choices, default=PeriodKind.DAYS_BEFORE)
    period_days = models.PositiveSmallIntegerField(default=7)
    period_start_time = models.TimeField(default=eight_am, help_text="Month to date: earning starts at this time.")
    fixed_start = models.DateTimeField(null=True, blank=True)
    fixed_end = models.DateTimeField(null=True, blank=True)
    points_per_ticket = models.PositiveIntegerField(null=True, blank=True, help_text="For every tier, unless set.")
    points_per_ticket_by_tier = models.JSONField(default=dict, blank=True)
    minimum_points = models.PositiveIntegerField(default=0)
    free_tickets_by_tier = models.JSONField(default=dict, blank=True)
    free_tickets_by_weekday = models.JSONField(
        default=dict,
        blank=True,
        help_text='Free tickets by the weekday of activation (0 = Monday): {"4": {"ACE": 50}, "5": {"ACE": 30}}.',
    )
    bonus_app_registered = models.PositiveIntegerField(default=0)
    bonus_age_50_plus = models.PositiveIntegerField(default=0)
    bonus_active_at_property = models.PositiveIntegerField(
        default=0, help_text="For members who earned points at the draw's property in the period."
    )
    bonus_per_visit = models.PositiveIntegerField(
        default=0, help_text="Per gaming visit (a day with points at the property) in the period."
    )
    bonus_per_visit_app = models.PositiveIntegerField(
        default=0, help_text="Extra per visit for app-registered members."
    )
    cap = models.PositiveIntegerField(null=True, blank=True, help_text="Most tickets per patron, every tier.")
    cap_by_tier = models.JSONField(default=dict, blank=True)
    equal_opportunity_tickets = models.PositiveIntegerField(
        null=True, blank=True, help_text="Every eligible member gets exactly this many tickets."
    )
    assumptions = models.TextField(
        blank=True, help_text="Values chosen here because the promotion's own table was missing from its rules."
    )

    def __str__(self) -> str:
        return f"Earning rule of {self.series}"

    def period_words(self) -> str:
        """The earning period in words: "the 7 days before the draw"."""
        if self.period_kind == PeriodKind.DAYS_BEFORE:
            return f"the {self.period_days} day{'s' if self.period_days != 1 else ''} before the draw"
        return self.get_period_kind_display()

    def values(self) -> RuleValues:
        """The tier-keyed numbers, parsed (promotions.rules.RuleValues). A stored value no
        manager's form could have saved raises RuleUnreadable naming the series, so only this
        series' draws fail, with a message, while every other draw still shows."""
        try:
            return RuleValues.parse(
                {
                    "points_per_ticket_by_tier": self.points_per_ticket_by_tier,
                    "free_tickets_by_tier": self.free_tickets_by_tier,
                    "free_tickets_by_weekday": self.free_tickets_by_weekday,
                    "cap_by_tier": self.cap_by_tier,
                }
            )
        except RuleInvalid as error:
            raise RuleUnreadable(
                f"The earning rule of {self.series} cannot be read: {error.message} "
                "Ask the promotions manager to fix it."
            ) from None
