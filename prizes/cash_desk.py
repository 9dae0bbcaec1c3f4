"""The cash desk pays a prize letter (issue 15, items 6-8): the cashier scans the letter's QR
code (or keys its number), checks the winner's ID by typing its last four characters, and pays
one group of the letter's lines: cash, +Play, a vehicle handed over, or another prize handed
over. Each group is paid and recorded on its own (cash and +Play are separate payouts, PRIZES.md
§3); the letter becomes PAID once its last group is paid.

Exactly once: the letter's row is locked for the whole payout, so two cashiers paying at once
queue and the second reads "already paid"; Payout.prize_line is unique, the last line of defence
(an insert that slips past the lock still fails, and is refused in the same words).

Time is the authority: a letter whose expiry has passed is refused on the request itself,
whatever the beat tick (letters_expire) has stored yet.
"""

import datetime as dt
import hmac
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.formats import local_datetime, rand_cents
from members.identity import IdType, normalise_id_number
from members.staff import staff_act_refusal
from prizes.letter_models import LetterLine, LetterStatus, Payout, PayoutPlace, PrizeLetter
from prizes.letter_services import PAYOUTS, letter_verify_code


@dataclass(frozen=True)
class Group:
    key: str
    kinds: tuple[str, ...]
    label: str  # "the cash of letter …"
    button: str
    handed_over: bool  # a thing handed over (recorded as such), not money counted out


# The order the cashier's page shows them in. "Other" prizes are things handed over (a voucher,
# a hamper), so they are recorded apart from the cash and +Play the daily summary adds up.
GROUPS = {
    "cash": Group("cash", ("cash",), "cash", "Pay the cash", False),
    "play": Group("play", ("play",), "+Play", "Record the +Play as paid", False),
    "vehicle": Group("vehicle", ("vehicle",), "vehicle", "Record as handed over", True),
    "other": Group("other", ("other",), "other prize", "Record as handed over", True),
}
ID_DIGITS = 4  # the cashier types the last four characters of the ID presented


def id_hint(id_number: str) -> str:
    """The winner's ID as the cash desk shows it: its first two characters, the rest hidden. The
    last four are what the cashier types from the document, so the page never shows them."""
    return id_number[:2] + "*" * max(len(id_number) - 2, 0)


@dataclass(frozen=True)
class Refusal:
    code: str
    message: str


def _scan_mismatch(letter: PrizeLetter, scanned_code: str | None) -> bool:
    """True when the letter is not genuine: the scanned code is not the letter's, or its stored
    fields no longer give its code (altered in the database, or made up without the key)."""
    if scanned_code and not hmac.compare_digest(scanned_code.lower(), letter.code.lower()):
        return True
    return not letter_verify_code(letter)


def letter_refusal(
    actor: Actor, letter: PrizeLetter, now: dt.datetime, *, scanned_code: str | None = None
) -> Refusal | None:
    """Why `actor` may not pay anything of `letter` now, or None: the page asks before showing
    the pay forms, the service again under the letter's lock."""
    if _scan_mismatch(letter, scanned_code):
        return Refusal(
            code="payout_code_invalid",
            message=f"The code of letter {letter.number} is not valid: the letter was altered or is not one we issued. "
            "Do not pay; call the promotions manager.",
        )
    refusal = staff_act_refusal(actor.user, letter.property, **PAYOUTS)
    if refusal:
        return Refusal(code="other_property", message=f"Letter {letter.number} is paid where it was won. {refusal}")
    state = letter.state(now)
    if state.is_voided:
        return Refusal(code="payout_letter_voided", message=state.pay_refusal())
    if state.is_expired:
        return Refusal(code="payout_letter_expired", message=state.pay_refusal())
    if state.status == LetterStatus.PAID:
        last = letter.payouts.order_by("-paid_at", "-id").first()
        by = f" Last paid by {last.paid_by} on {local_datetime(last.paid_at)}." if last else ""
        return Refusal(code="payout_already_paid", message=f"Letter {letter.number} is already paid.{by}")
    return None


def payable_lines(letter: PrizeLetter) -> list[LetterLine]:
    """The letter's lines the cash desk pays: its live lines not corrected since (a corrected
    line's reversal cancels it), with their payouts."""
    return list(
        letter.lines.filter(live=True, prize_line__reversed_by__isnull=True)
        .select_related("prize_line", "prize_line__payout")
        .order_by("id")
    )


def _payout_of(ll: LetterLine) -> Payout | None:
    try:
        return ll.prize_line.payout
    except Payout.DoesNotExist:
        return None


def group_refusal(letter: PrizeLetter, group: Group, lines: list[LetterLine]) -> Refusal | None:
    """Why this group of the letter cannot be paid, or None: there is none, or it is paid (by whom, when)."""
    mine = [ll for ll in lines if ll.prize_line.kind in group.kinds]
    if not mine:
        return Refusal(code="payout_no_such_prize", message=f"Letter {letter.number} has no {group.label} to pay.")
    paid = [p for p in (_payout_of(ll) for ll in mine) if p is not None]
    if len(paid) == len(mine):
        last = max(paid, key=lambda p: (p.paid_at, p.pk))
        return Refusal(
            code="payout_already_paid",
            message=f"The {group.label} of letter {letter.number} is already paid: "
            f"{rand_cents(sum(p.amount_cents for p in paid))} paid by {last.paid_by} "
            f"on {local_datetime(last.paid_at)}.",
        )
    return None


def id_refusal(letter: PrizeLetter, id_type_seen: str, id_last_digits: str, signature_acknowledged: bool):
    """The winner in person: an ID of a known type, its last four characters as typed by the
    cashier matching the member's ID (the one the letter was issued against), and their signature."""
    if id_type_seen not in IdType.values:
        return Refusal(code="payout_id_type", message="Choose the type of ID the winner shows.")
    typed = normalise_id_number(id_last_digits)
    if len(typed) != ID_DIGITS or not typed.isalnum():
        return Refusal(
            code="payout_id_digits",
            message=f"Type the last {ID_DIGITS} digits of the ID the winner shows, as printed on it.",
        )
    if not hmac.compare_digest(typed, normalise_id_number(letter.member.id_number)[-ID_DIGITS:]):
        return Refusal(
            code="payout_id_mismatch",
            message=f"The ID shown (ending {typed}) is not {letter.member.full_name}'s: the prize is paid only to the "
            "winner, in person, with their own ID. Do not pay.",
        )
    if not signature_acknowledged:
        return Refusal(
            code="payout_signature", message="The winner signs for receipt first: then tick that they signed."
        )
    return None


def _raise(refusal: Refusal | None) -> None:
    if refusal is not None:
        raise DomainError(refusal.message, code=refusal.code)


def _lock_letter(letter_id: int) -> PrizeLetter:
    """The letter, its row locked until the payout commits: concurrent payouts queue here."""
    PrizeLetter.objects.select_for_update().filter(pk=letter_id).exists()
    return PrizeLetter.objects.with_related().get(pk=letter_id)


def letter_pay(
    *,
    actor: Actor,
    letter_id: int,
    kind_group: str,
    id_type_seen: str,
    id_last_digits: str,
    signature_acknowledged: bool,
    scanned_code: str | None = None,
    now: dt.datetime | None = None,
) -> list[Payout]:
    """Pay every unpaid line of one group of the letter (one Payout per line) to the winner in
    person; the letter becomes PAID once nothing is left to pay. The payouts written."""
    group = GROUPS.get(kind_group)
    if group is None:
        raise DomainError("Choose what is paid: cash, +Play, a vehicle or another prize.", code="payout_no_such_prize")
    now = now or timezone.now()
    with transaction.atomic():
        letter = _lock_letter(letter_id)
        _raise(letter_refusal(actor, letter, now, scanned_code=scanned_code))
        lines = payable_lines(letter)
        _raise(group_refusal(letter, group, lines))
        _raise(id_refusal(letter, id_type_seen, id_last_digits, signature_acknowledged))
        payouts = []
        try:
            with transaction.atomic():
                for ll in lines:
                    if ll.prize_line.kind in group.kinds and _payout_of(ll) is None:
                        payouts.append(_payout_create(actor, letter, ll, group, now, id_type_seen, id_last_digits))
        except IntegrityError:  # paid meanwhile past the lock: the unique line decides
            refusal = group_refusal(letter, group, payable_lines(letter)) or Refusal(
                code="payout_already_paid", message=f"The {group.label} of letter {letter.number} is already paid."
            )
            raise DomainError(refusal.message, code=refusal.code) from None
        audit_log(
            actor=actor,
            action="prize.cash_desk_payout",
            obj=letter,
            data={
                "number": letter.number,
                "card_number": letter.member.card_number,
                "group": group.key,
                "what": group.label,
                "amount": rand_cents(sum(p.amount_cents for p in payouts)),
                "lines": [
                    {"line": p.prize_line_id, "kind": p.kind, "amount": rand_cents(p.amount_cents)} for p in payouts
                ],
                "id_type_seen": id_type_seen,
                "signature_acknowledged": True,
            },
        )
        if all(_payout_of(ll) is not None or ll.prize_line.kind in group.kinds for ll in lines):
            letter.status, letter.status_changed_at = LetterStatus.PAID, now
            letter.save(update_fields=["status", "status_changed_at"])
            audit_log(actor=actor, action="prize.letter_paid", obj=letter, data={"number": letter.number})
    return payouts


def _payout_create(actor, letter, ll, group, now, id_type_seen, id_last_digits) -> Payout:
    line = ll.prize_line
    return Payout.objects.create(
        prize_line=line,
        letter=letter,
        property=letter.property,
        kind=line.kind,
        amount_cents=line.amount_cents,
        paid_at=now,
        paid_by=actor.label,
        paid_by_user=actor.user,
        where=PayoutPlace.CASH_DESK,
        id_type_seen=id_type_seen,
        id_last_digits=normalise_id_number(id_last_digits),
        signature_acknowledged=True,
        handed_over=group.handed_over,
    )
