"""The draw certificate: an A4 PDF (WeasyPrint) the person who conducted the draw and the witness
sign. It prints the hashes committed before the first pick, the seed once the draw is complete,
and the winners with no more personal data than the stage screen shows (SCREENS.md rule 8):
first name, surname initial and the card's last four digits."""

from django.contrib.auth import get_user_model
from django.utils import timezone

from core.pdf import render_pdf
from draws.commitments import raps_uploads
from draws.models import Draw, DrawPick
from draws.record import entries_summary, win_once, winners_wanted
from draws.record_selectors import draw_picks
from members.models import Member
from promotions.models import DrawMethod, WinOnceScope


def masked_card(card_number: str) -> str:
    return "*" * max(len(card_number) - 4, 0) + card_number[-4:]


def public_name(member: Member) -> str:
    """ "Thandi M.": a first name and the surname's initial."""
    initial = member.last_name.strip()[:1]
    return f"{member.first_name} {initial}." if initial else member.first_name


def person_words(label: str) -> str:
    """Who a record's actor label is, for a signature line: the staff member's full name with the
    username, the system's own words for the tick, or the label as it is (an account since removed)."""
    if not label or label.startswith("system:"):
        return Draw(started_by=label).started_by_display() if label else ""
    user = get_user_model().objects.filter(username=label).first()
    full = user.get_full_name().strip() if user else ""
    return f"{full} ({label})" if full else label


def win_once_label(draw: Draw) -> str:
    scope = win_once(draw)
    return WinOnceScope(scope).label if scope in WinOnceScope.values else scope


def certificate_context(draw: Draw) -> dict:
    picks: list[DrawPick] = list(draw_picks(draw=draw))
    winners = [pick for pick in picks if pick.is_winner()]
    return {
        "draw": draw,
        "raps": draw.method == DrawMethod.RAPS,
        "raps_uploads": raps_uploads(draw) if draw.method == DrawMethod.RAPS else 0,
        "scheduled_at": timezone.localtime(draw.scheduled_at),
        "entries": entries_summary(draw),
        "seed": draw.revealed_seed(),
        "winners_wanted": winners_wanted(draw),
        "win_once": win_once_label(draw),
        "picks_count": len(picks),
        # Every pick with its outcome (no-shows, disqualifications and redraws too), as the stage saw it.
        "picks": [(pick, masked_card(pick.card_number), public_name(pick.member)) for pick in picks],
        "winners": [(pick, masked_card(pick.card_number), public_name(pick.member)) for pick in winners],
        "conductor": person_words(draw.started_by),
        "printed_at": timezone.localtime(),
    }


def certificate_pdf(draw: Draw) -> bytes:
    """The certificate as an A4 PDF."""
    return render_pdf("draws/record_certificate_pdf.html", certificate_context(draw), css="css/draw_certificate.css")
