"""Reads of prize letters (issue 15): which lines a winner collects by letter, each winner's
letter in a draw, a member's letters and payouts. Pages and services both ask these."""

import datetime as dt

from django.db.models import Exists, OuterRef, Prefetch, QuerySet
from django.utils import timezone

from draws.models import Draw, DrawPick
from members.models import Member
from prizes.letter_models import LETTER_KINDS, LIVE_STATUSES, LetterLine, LetterStatus, Payout, PrizeLetter
from prizes.lines import LineSource
from prizes.models import PrizeLine


def letterable_lines(pick: DrawPick) -> QuerySet:
    """The winner's lines of the draw a letter covers: money (cash, +Play, a vehicle, other),
    never a place or entries; not a correction nor a line corrected (its reversal cancels it);
    not on a live letter already and not paid (at the device, say)."""
    return (
        PrizeLine.objects.filter(pick=pick, kind__in=LETTER_KINDS, amount_cents__gt=0)
        .exclude(source=LineSource.REVERSAL)
        .filter(reversed_by__isnull=True, payout__isnull=True)
        .exclude(letter_lines__live=True)
        .order_by("id")
    )


def live_letter_of(pick: DrawPick) -> PrizeLetter | None:
    return PrizeLetter.objects.filter(pick=pick, status__in=LIVE_STATUSES).first()


def draw_letters(draw: Draw) -> dict[int, PrizeLetter]:
    """The latest letter of each winner of the draw, by pick id (a voided one when it was not
    reissued, so the desk sees it)."""
    found: dict[int, PrizeLetter] = {}
    for letter in PrizeLetter.objects.filter(draw=draw).order_by("issued_at", "id"):
        found[letter.pick_id] = letter
    return found


def member_letters(member: Member, *, limit: int = 50) -> list[PrizeLetter]:
    """The member's letters, newest first, voided ones too, each with its payouts (who paid it):
    two queries."""
    return list(
        PrizeLetter.objects.with_related()
        .filter(member=member)
        .prefetch_related(Prefetch("payouts", queryset=Payout.objects.order_by("paid_at", "id")))
        .order_by("-issued_at", "-id")[:limit]
    )


def member_payouts(member: Member, *, limit: int = 50) -> list[Payout]:
    return list(
        Payout.objects.select_related("prize_line", "prize_line__draw", "letter", "property")
        .filter(prize_line__member=member)
        .order_by("-paid_at", "-id")[:limit]
    )


def member_wins(member: Member, *, limit: int = 50) -> list[dict]:
    """The member's winning picks, newest first, each with its lines, its latest letter and
    whether a line may still go on a letter ("letterable", as letterable_lines says): three
    queries however many wins."""
    picks = list(
        DrawPick.objects.filter(member=member, prize_lines__isnull=False)
        .select_related("draw", "draw__series", "draw__series__promotion", "draw__property")
        .distinct()
        .order_by("-draw__scheduled_at", "-id")[:limit]
    )
    if not picks:
        return []
    letters: dict[int, PrizeLetter] = {}
    for letter in PrizeLetter.objects.filter(pick__in=picks).order_by("issued_at", "id"):
        letters[letter.pick_id] = letter
    lines: dict[int, list[PrizeLine]] = {}
    found = PrizeLine.objects.filter(pick__in=picks).annotate(
        on_live_letter=Exists(LetterLine.objects.filter(prize_line=OuterRef("pk"), live=True)),
        corrected=Exists(PrizeLine.objects.filter(reverses=OuterRef("pk"))),
    )
    for line in found.select_related("payout").order_by("id"):
        lines.setdefault(line.pick_id, []).append(line)
    return [
        {
            "pick": pick,
            "lines": lines.get(pick.pk, []),
            "letter": letters.get(pick.pk),
            "letterable": any(_letterable(line) for line in lines.get(pick.pk, [])),
        }
        for pick in picks
    ]


def _letterable(line: PrizeLine) -> bool:
    """letterable_lines's filter, on a line of member_wins (annotated, its payout read)."""
    return (
        line.kind in LETTER_KINDS
        and line.amount_cents > 0
        and line.source != LineSource.REVERSAL
        and not line.corrected
        and not line.on_live_letter
        and getattr(line, "payout", None) is None
    )


# --- The cash desk's start page (issue 15, item 9) ---------------------------------------------


def payouts_today(property_ids: list[int] | None, now) -> list[Payout]:
    """Today's payouts (Johannesburg day) at the properties (None: every property), newest first."""
    start = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    found = Payout.objects.select_related("prize_line", "letter", "letter__member", "property").filter(
        paid_at__gte=start, paid_at__lt=start + dt.timedelta(days=1)
    )
    if property_ids is not None:
        found = found.filter(property_id__in=property_ids)
    return list(found.order_by("-paid_at", "-id"))


def letters_expiring(property_ids: list[int] | None, now, *, days: int = 3) -> list[PrizeLetter]:
    """Issued letters still payable whose last day is within `days` days (today included), soonest first."""
    start = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    found = PrizeLetter.objects.with_related().filter(
        status=LetterStatus.ISSUED, expires_at__gt=now, expires_at__lte=start + dt.timedelta(days=days + 1)
    )
    if property_ids is not None:
        found = found.filter(property_id__in=property_ids)
    return list(found.order_by("expires_at", "id"))
