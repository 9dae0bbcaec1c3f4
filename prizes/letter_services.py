"""Prize letters: issued at the Rewards desk, voided and reissued by a manager, expired by the
clock; prizes paid at the device recorded (issue 15, item 4; PRIZES.md §3). Keyword-only,
atomic, audited. The cash desk's payout against a letter is its own service.

Collection rules of every seed: the prize is collected and signed for by the winner in person,
never a proxy or representative (GH r15, FL r115/r127, RF r47/r65/r77, TH r19 and others, DT r25),
with an acceptable ID, within the promotion's collection days (15) of the draw, where it was won.
Royal Flush's bonus jackpot prizes are paid at the device (r14, r29), never by letter.
"""

import datetime as dt
import hmac

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import local_date, local_datetime, mask_id_number, rand_cents
from draws.models import DrawPick
from members.identity import IdType, identify_document, normalise_id_number
from members.staff import check_staff_property
from prizes import letter_codes
from prizes.letter_models import (
    LETTER_KINDS,
    LetterCounter,
    LetterLine,
    LetterStatus,
    Payout,
    PayoutPlace,
    PrizeLetter,
)
from prizes.letter_pdf import letter_render_queue
from prizes.letter_selectors import letterable_lines, live_letter_of
from prizes.lines import LineSource
from prizes.models import PrizeLine
from proxies.models import ProxyNomination

LETTERS = {"what": "prize letters", "done": "issued"}
PAYOUTS = {"what": "prizes", "done": "paid"}


# --- Issue -----------------------------------------------------------------------------------


def letter_expires_at(pick: DrawPick) -> dt.datetime:
    draw = pick.draw
    return draw.series.promotion.collection_expires_at(draw.scheduled_at)


def letter_issue_refusal(
    pick: DrawPick, now: dt.datetime, *, live: PrizeLetter | None = ..., letterable: bool | None = None
) -> str | None:
    """Why the desk may not issue a letter for this winning pick now, or None: the page asks
    before offering "Issue letter", the service again under the pick's lock. (The card and the
    ID presented are checked by the service, and the desk's property by both.) A page listing
    a draw's winners passes each one's live letter (or None) it already read, and a page that
    read the winner's lines whether any is letterable (the member page: no query per win)."""
    draw = pick.draw
    name = pick.member.full_name
    if draw.series.paid_at_device:
        return f"Prizes of {draw.series.name} are paid at the device by the staff who paid them: there is no letter."
    if not draw.is_complete():
        return f"Letters are issued once the draw is complete: {draw.name} is {draw.get_status_display().lower()}."
    if not pick.is_winner():
        return f"Pick {pick.k} of {draw.name} is not a winner: there is nothing to collect."
    expires_at = letter_expires_at(pick)
    if now >= expires_at:
        last_day = local_date(expires_at - dt.timedelta(microseconds=1))
        return f"The prizes of {draw.name} had to be collected by {last_day}: it is too late for a letter."
    if live is ...:
        live = live_letter_of(pick)
    if live is not None:
        return (
            f"{name} already has letter {live.number} for this draw, issued {local_datetime(live.issued_at)}. "
            "Reprint it from the letter's page; if it is lost, a manager voids and reissues it."
        )
    if letterable is None:
        letterable = letterable_lines(pick).exists()
    if not letterable:
        return f"{name} has no prize of {draw.name} to collect by letter (a place or entries are not paid out)."
    return None


def _locked_pick(pick_id: int) -> DrawPick:
    DrawPick.objects.select_for_update().filter(pk=pick_id).exists()
    return DrawPick.objects.select_related(
        "member", "draw", "draw__series", "draw__series__promotion", "draw__property"
    ).get(pk=pick_id)


def _proxy_of(pick: DrawPick, *, card_number: str, id_number: str) -> ProxyNomination | None:
    """The winner's proxy for this draw when the person presenting is that proxy (their card or
    their ID number), or None."""
    for nomination in ProxyNomination.objects.filter(draw_id=pick.draw_id, participant_id=pick.member_id):
        if id_number and normalise_id_number(nomination.nominee_id_number) == id_number:
            return nomination
        member = nomination.nominee_member
        if member is not None and card_number and member.card_number == card_number:
            return nomination
    return None


def _check_winner_in_person(pick: DrawPick, *, card_number: str, id_type_seen: str, id_number_presented: str) -> None:
    """The winner, in person: their own card swiped and their own ID shown (never a proxy)."""
    member = pick.member
    if id_type_seen not in IdType.values:
        raise DomainError("Choose the type of ID the winner shows.", code="letter_id_type")
    try:
        presented = identify_document(id_type_seen, id_number_presented).number
    except ValidationError as error:
        raise DomainError(" ".join(error.messages), code="letter_id_invalid") from None
    card_number = (card_number or "").strip()
    proxy = _proxy_of(pick, card_number=card_number, id_number=presented)
    if proxy is not None:
        raise DomainError(
            f"{proxy.nominee_name} was {member.full_name}'s proxy: a proxy never collects a prize. "
            f"{member.first_name} collects in person, with their own card and ID, "
            f"by {local_date(letter_expires_at(pick) - dt.timedelta(microseconds=1))}.",
            code="letter_proxy",
        )
    if not card_number:
        raise DomainError("Swipe the winner's card first.", code="letter_card_required")
    if card_number != member.card_number:
        raise DomainError(
            f"That card is not {member.full_name}'s: the letter is issued only to the winner, in person with their "
            "own card.",
            code="letter_card_mismatch",
        )
    if presented != normalise_id_number(member.id_number):
        raise DomainError(
            f"The ID shown ({mask_id_number(presented)}) is not {member.full_name}'s "
            f"({mask_id_number(member.id_number)}): the letter is issued only to the winner, in person.",
            code="letter_id_mismatch",
        )


def _next_number(prop, now: dt.datetime) -> str:
    """ "GRC-26-000123": the property's next number of the year, under the counter's row lock."""
    year = timezone.localtime(now).year
    LetterCounter.objects.bulk_create([LetterCounter(property=prop, year=year)], ignore_conflicts=True)
    counter = LetterCounter.objects.select_for_update().get(property=prop, year=year)
    counter.last += 1
    counter.save(update_fields=["last"])
    return f"{prop.code.upper()}-{year % 100:02d}-{counter.last:06d}"


def _letter_create(
    *, actor: Actor, pick: DrawPick, id_type_seen: str, now: dt.datetime, replaces: PrizeLetter | None = None
) -> PrizeLetter:
    """The letter of `pick`'s letterable lines, numbered and signed (the caller holds the pick's
    lock and has checked the refusal)."""
    draw = pick.draw
    lines = list(letterable_lines(pick))
    letter = PrizeLetter.objects.create(
        number=_next_number(draw.property, now),
        draw=draw,
        pick=pick,
        member=pick.member,
        property=draw.property,
        collection_place=f"{draw.series.promotion.collection_place}, {draw.property.name}",
        issued_at=now,
        issued_by=actor.label,
        issued_by_user=actor.user,
        id_type_seen=id_type_seen,
        expires_at=letter_expires_at(pick),
        replaces=replaces,
        render_queued_at=now,
    )
    LetterLine.objects.bulk_create(LetterLine(letter=letter, prize_line=line) for line in lines)
    letter.code = letter_codes.letter_code(letter)
    letter.save(update_fields=["code"])
    return letter


def _letter_data(letter: PrizeLetter) -> dict:
    return {
        "number": letter.number,
        "draw": letter.draw_id,
        "card_number": letter.member.card_number,
        "lines": [
            {"line": ll.prize_line_id, "kind": ll.prize_line.kind, "amount": rand_cents(ll.prize_line.amount_cents)}
            for ll in letter.lines.select_related("prize_line")
        ],
        "expires": local_datetime(letter.expires_at),
    }


def letter_issue(
    *,
    actor: Actor,
    pick_id: int,
    card_number: str,
    id_type_seen: str,
    id_number_presented: str,
    now: dt.datetime | None = None,
) -> PrizeLetter:
    """Issue the winner of `pick_id` their prize letter at the Rewards desk: the winner in person,
    their card swiped (`card_number`) and their ID checked against the member's. One letter per
    winner per draw, covering every money line of theirs in it."""
    now = now or timezone.now()
    with transaction.atomic():
        pick = _locked_pick(pick_id)
        check_staff_property(actor, pick.draw.property, **LETTERS)
        refusal = letter_issue_refusal(pick, now)
        if refusal:
            raise DomainError(refusal, code="letter_refused")
        _check_winner_in_person(
            pick, card_number=card_number, id_type_seen=id_type_seen, id_number_presented=id_number_presented
        )
        letter = _letter_create(actor=actor, pick=pick, id_type_seen=id_type_seen, now=now)
        audit_log(
            actor=actor,
            action="prize.letter_issued",
            obj=letter,
            data={**_letter_data(letter), "id_type_seen": id_type_seen},
        )
        letter_render_queue(letter)  # the worker renders its PDF once this commits
    return letter


# --- Void and reissue (a manager) -------------------------------------------------------------


def letter_void_refusal(actor: Actor, letter: PrizeLetter, now: dt.datetime) -> str | None:
    """Why `actor` may not void or reissue `letter` now, or None (the page's button and the service)."""
    if actor.user is None or not actor.user.has_perm("prizes.void_prizeletter"):
        return "Only a promotions manager voids or reissues a prize letter."
    return letter.state(now).void_refusal()


def _locked_letter(letter_id: int) -> PrizeLetter:
    PrizeLetter.objects.select_for_update().filter(pk=letter_id).exists()
    return PrizeLetter.objects.with_related().get(pk=letter_id)


def _void(*, actor: Actor, letter_id: int, reason: str, now: dt.datetime) -> PrizeLetter:
    reason = (reason or "").strip()
    if not reason:
        raise DomainError("Say why the letter is voided: the reason is kept on the letter.", code="no_reason")
    letter = _locked_letter(letter_id)
    check_staff_property(actor, letter.property, **LETTERS)
    refusal = letter_void_refusal(actor, letter, now)
    if refusal:
        raise DomainError(refusal, code="letter_void_refused")
    letter.status = LetterStatus.VOIDED
    letter.status_changed_at = letter.voided_at = now
    letter.voided_by, letter.voided_by_user, letter.void_reason = actor.label, actor.user, reason
    letter.save(
        update_fields=["status", "status_changed_at", "voided_at", "voided_by", "voided_by_user", "void_reason"]
    )
    LetterLine.objects.filter(letter=letter).update(live=False)  # free for the reissue
    return letter


def letter_void(*, actor: Actor, letter_id: int, reason: str, now: dt.datetime | None = None) -> PrizeLetter:
    """A manager voids a letter (lost, wrong, issued in error), with the reason: it stays on
    record, its code is refused at the cash desk, and its lines are free for a new letter."""
    now = now or timezone.now()
    with transaction.atomic():
        letter = _void(actor=actor, letter_id=letter_id, reason=reason, now=now)
        audit_log(
            actor=actor,
            action="prize.letter_voided",
            obj=letter,
            data={"number": letter.number, "draw": letter.draw_id, "reason": letter.void_reason},
        )
    return letter


def letter_reissue(
    *, actor: Actor, letter_id: int, reason: str, id_type_seen: str = "", now: dt.datetime | None = None
) -> PrizeLetter:
    """A manager voids a letter and issues its winner a new one at once: a new number and code,
    the same lines (less any paid meanwhile) and the same expiry (a reissue never extends it)."""
    now = now or timezone.now()
    with transaction.atomic():
        old = _void(actor=actor, letter_id=letter_id, reason=reason, now=now)
        pick = _locked_pick(old.pick_id)
        refusal = letter_issue_refusal(pick, now)
        if refusal:
            raise DomainError(refusal, code="letter_refused")
        new = _letter_create(
            actor=actor, pick=pick, id_type_seen=id_type_seen or old.id_type_seen, now=now, replaces=old
        )
        audit_log(
            actor=actor,
            action="prize.letter_reissued",
            obj=new,
            data={**_letter_data(new), "replaces": old.number, "reason": old.void_reason},
        )
        letter_render_queue(new)
    return new


# --- Expiry (the beat tick; every request checks letter.state(now) itself) ---------------------

EXPIRE_BATCH = 500


def letters_expire(*, now: dt.datetime | None = None) -> int:
    """Mark issued letters whose expiry has passed as expired; the number marked. Rows another
    transaction holds (a payout in progress) are skipped, for the next tick; run twice, the
    second finds nothing."""
    now = now or timezone.now()
    actor = Actor.system("tick")
    with transaction.atomic():
        due = list(
            PrizeLetter.objects.select_for_update(skip_locked=True)
            .filter(status=LetterStatus.ISSUED, expires_at__lte=now)
            .order_by("expires_at", "id")[:EXPIRE_BATCH]
        )
        for letter in due:
            letter.status, letter.status_changed_at = LetterStatus.EXPIRED, now
            audit_log(
                actor=actor,
                action="prize.letter_expired",
                obj=letter,
                data={"number": letter.number, "draw": letter.draw_id, "expires": local_datetime(letter.expires_at)},
            )
        PrizeLetter.objects.bulk_update(due, ["status", "status_changed_at"])
    return len(due)


# --- Verification (the cash desk) ----------------------------------------------------------------


def letter_verify_code(letter: PrizeLetter) -> bool:
    """Whether the letter's stored code is the one its fields give under the key: False for a
    letter altered in the database, or a code made up without the key."""
    return bool(letter.code) and hmac.compare_digest(letter.code, letter_codes.letter_code(letter))


def letter_from_scan(text: str) -> tuple[PrizeLetter | None, bool]:
    """The letter a scanned QR text ("PL1:<number>:<code>") or a keyed letter number names, and
    whether it is genuine: the scanned code is the letter's and its fields still give that code
    (a keyed number alone: its fields give its stored code). (None, False) for text that names
    no letter. Whether it may be paid is its state's say (letter.state(now).pay_refusal())."""
    parsed = letter_codes.parse_scan(text)
    if parsed is None:
        return None, False
    number, code = parsed
    letter = PrizeLetter.objects.with_related().filter(number=number).first()
    if letter is None:
        return None, False
    if code and not hmac.compare_digest(code, letter.code):
        return letter, False
    return letter, letter_verify_code(letter)


# --- Paid at the device (Royal Flush bonus jackpot sessions) --------------------------------------


def device_payout_refusal(
    actor: Actor, line: PrizeLine, *, series=None, corrected: bool | None = None, payout: Payout | None = ...
) -> str | None:
    """Why `actor` may not record `line` as paid at the device, or None. A page listing many
    lines passes what it already read (the draw's series, whether the line was corrected, its
    payout or None); the service reads them itself."""
    if actor.user is None or not actor.user.has_perm("prizes.record_device_payout"):
        return "Only the promotions team records a prize paid at the device."
    series = series or line.draw.series
    if not series.paid_at_device:
        return f"Prizes of {series.name} are paid by letter at the cash desk, not at the device."
    if line.kind not in LETTER_KINDS:
        return "A place or entries is not paid out: nothing to record."
    if line.source == LineSource.REVERSAL or line.amount_cents <= 0:
        return "This line is a correction: there is nothing to pay."
    if corrected is None:
        corrected = PrizeLine.objects.filter(reverses=line).exists()
    if corrected:
        return "This line was corrected: there is nothing to pay."
    if payout is ...:
        payout = Payout.objects.filter(prize_line=line).first()
    if payout is not None:
        return f"Already paid, by {payout.paid_by} on {local_datetime(payout.paid_at)}."
    return None


def device_payout_record(
    *, actor: Actor, prize_line_id: int, id_type_seen: str = "", now: dt.datetime | None = None
) -> Payout:
    """Record a Royal Flush bonus jackpot prize as paid at the device (r14, r29) by the member
    of staff who paid it (the actor): no letter. A line is paid once, whatever the path."""
    now = now or timezone.now()
    with transaction.atomic():
        line = PrizeLine.objects.select_related("draw", "draw__series", "draw__property", "member").get(
            pk=prize_line_id
        )
        check_staff_property(actor, line.draw.property, **PAYOUTS)
        refusal = device_payout_refusal(actor, line)
        if refusal:
            raise DomainError(refusal, code="payout_refused")
        try:
            with transaction.atomic():
                payout = Payout.objects.create(
                    prize_line=line,
                    letter=None,
                    property=line.draw.property,
                    kind=line.kind,
                    amount_cents=line.amount_cents,
                    paid_at=now,
                    paid_by=actor.label,
                    paid_by_user=actor.user,
                    where=PayoutPlace.DEVICE,
                    id_type_seen=id_type_seen,
                    handed_over=line.kind == "vehicle",
                )
        except IntegrityError:  # paid meanwhile by another request: the unique line decides
            raise DomainError(device_payout_refusal(actor, line) or "Already paid.", code="payout_refused") from None
        audit_log(
            actor=actor,
            action="prize.device_payout",
            obj=line,
            data={
                "draw": line.draw_id,
                "card_number": line.member.card_number,
                "words": line.words,
                "amount": rand_cents(line.amount_cents),
            },
        )
    return payout
