"""What the casino holds about one member, read for their own record (POPIA s23): every section
of the PDF as plain rows, each list bounded so a member with years of play still gets a PDF of
a few pages (a points ledger of 10,000 rows is summed per month and property, its newest lines
listed; every other list keeps its newest rows and says how many there are in all).

Reads only: records may read every app (records/member_record.py prints and audits)."""

from dataclasses import dataclass, field

from django.db.models import Count, Max, Min, Q, Sum
from django.db.models.functions import TruncMonth
from django.utils import timezone

from core.audit_words import Named, describe
from core.models import AuditEvent
from draws.models import Activation, DrawPick
from members.history import FIELD_WORDS, correction_changes, shown_value
from members.identity import IdType
from members.models import Exclusion, Member, Property, Tier
from prizes.letter_models import Payout, PrizeLetter
from prizes.models import KIND_LABELS, PrizeLine
from proxies.models import DeclineRegistration, ProxyNomination

POINT_LINES = 200  # the newest point lines listed under the monthly totals
LIST_LIMIT = 500  # the newest rows of any other list (a member has far fewer in practice)
# Reports of play from the gaming feed: many a day, so counted rather than listed.
ACTIVITY_ACTION = "member.activity_changed"


@dataclass
class Bounded:
    """The newest `rows` of a list and how many it has in all."""

    rows: list
    total: int

    @property
    def cut(self) -> bool:
        return self.total > len(self.rows)


@dataclass
class MemberRecord:
    member: Member
    tier_changes: list = field(default_factory=list)
    exclusions: list = field(default_factory=list)
    points_total: int = 0
    points_months: list = field(default_factory=list)
    point_lines: Bounded | None = None
    activations: Bounded | None = None
    picks: Bounded | None = None
    prize_lines: Bounded | None = None
    letters: Bounded | None = None
    payouts: Bounded | None = None
    nominations_made: Bounded | None = None
    nominations_received: Bounded | None = None
    declines: Bounded | None = None
    events: Bounded | None = None
    activity_reports: dict = field(default_factory=dict)


def _bounded(queryset, limit: int = LIST_LIMIT) -> Bounded:
    rows = list(queryset[: limit + 1])
    total = len(rows) if len(rows) <= limit else queryset.count()
    return Bounded(rows[:limit], total)


def member_record(member_id: int) -> MemberRecord:
    """Everything held about the member, for the PDF. A fixed number of queries."""
    member = Member.objects.with_related().get(pk=member_id)
    record = MemberRecord(member=member)
    _points(record)
    record.exclusions = list(Exclusion.objects.for_identity(member.id_number).order_by("starts_at", "id"))
    record.activations = _bounded(
        Activation.objects.filter(member=member)
        .select_related("draw", "draw__property", "draw__series__promotion")
        .order_by("-activated_at", "-id")
    )
    record.picks = _bounded(
        DrawPick.objects.filter(member=member)
        .select_related("draw", "draw__property", "draw__series__promotion")
        .order_by("-picked_at", "-id")
    )
    record.prize_lines = _bounded(PrizeLine.objects.with_related().filter(member=member).order_by("-created_at", "-id"))
    for line in record.prize_lines.rows:
        line.kind_label = KIND_LABELS.get(line.kind, line.kind)
    record.letters = _bounded(PrizeLetter.objects.with_related().filter(member=member).order_by("-issued_at", "-id"))
    record.payouts = _bounded(
        Payout.objects.select_related("prize_line", "prize_line__draw", "letter", "property")
        .filter(prize_line__member=member)
        .order_by("-paid_at", "-id")
    )
    registers = ("draw", "draw__property", "draw__series__promotion")
    record.nominations_made = _bounded(
        ProxyNomination.objects.filter(participant=member).select_related(*registers).order_by("-registered_at", "-id")
    )
    # Named as the proxy by card, or by ID number (a nominee typed in before they held a card).
    record.nominations_received = _bounded(
        ProxyNomination.objects.filter(Q(nominee_member=member) | Q(nominee_id_number=member.id_number))
        .exclude(participant=member)
        .select_related("participant", *registers)
        .order_by("-registered_at", "-id")
    )
    record.declines = _bounded(
        DeclineRegistration.objects.filter(member=member).select_related(*registers).order_by("-registered_at", "-id")
    )
    _events(record)
    return record


def _points(record: MemberRecord) -> None:
    """Totals per month (Johannesburg) and property over the whole ledger, and its newest lines."""
    points = record.member.points
    months = (
        points.annotate(month=TruncMonth("earned_at", tzinfo=timezone.get_current_timezone()))
        .values("month", "property__name")
        .annotate(total=Sum("points"), lines=Count("pk"))
        .order_by("-month", "property__name")
    )
    record.points_months = [
        {"month": row["month"].date(), "property": row["property__name"], "total": row["total"], "lines": row["lines"]}
        for row in months
    ]
    record.points_total = sum(row["total"] for row in record.points_months)
    # Newest first; the ledger's key (property, reference, earned_at) orders a moment's lines.
    record.point_lines = _bounded(points.select_related("property").order_by("-earned_at", "-pk"), POINT_LINES)


def _events(record: MemberRecord) -> None:
    """The audit log's events about the member's record (sign-up, corrections, look-ups, records
    given), as sentences; the gaming feed's reports of play are counted, not listed."""
    member = record.member
    about = AuditEvent.objects.filter(object_type="members.member", object_id=str(member.pk))
    record.activity_reports = about.filter(action=ACTIVITY_ACTION).aggregate(
        count=Count("id"), first=Min("created_at"), last=Max("created_at")
    )
    listed = _bounded(about.exclude(action=ACTIVITY_ACTION).order_by("-created_at", "-id"))
    names = {("members.member", str(member.pk)): Named(member.full_name)}
    words = _ValueWords()
    rows = []
    for event in listed.rows:
        changes = correction_changes(event)
        rows.append(
            {
                "at": event.created_at,
                "text": describe(event, names).text,
                "lines": [
                    f"{FIELD_WORDS.get(name, name).capitalize()}: {words(name, pair.get('before'))} "
                    f"\N{RIGHTWARDS ARROW} {words(name, pair.get('after'))}"
                    for name, pair in changes.items()
                ],
            }
        )
        if "tier" in changes:
            record.tier_changes.append(
                {
                    "at": event.created_at,
                    "by": event.actor_label,
                    "before": words("tier", changes["tier"].get("before")),
                    "after": words("tier", changes["tier"].get("after")),
                }
            )
    record.events = Bounded(rows, listed.total)
    record.tier_changes.reverse()  # oldest first, as a history reads


class _ValueWords:
    """A stored value of a correction in words: a tier's or property's name for its code, an ID
    document's kind, a date as 15 Jun 1985 (the audit log keeps codes and ISO dates)."""

    def __init__(self) -> None:
        self.names = {
            "tier": dict(Tier.objects.values_list("code", "name")),
            "home_property": dict(Property.objects.values_list("code", "name")),
            "id_type": dict(IdType.choices),
        }

    def __call__(self, name: str, value) -> str:
        if name in self.names and value not in (None, ""):
            return self.names[name].get(value, str(value))
        return shown_value(value)
