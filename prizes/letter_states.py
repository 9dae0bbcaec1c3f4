"""What a prize letter is now and what may be done with it: the one home of its rules, as
draws/states.py is a draw's. Time is the authority: a letter still stored as issued whose
`expires_at` has passed is expired for every page and service at once, whatever the tick did.

    issued ─(the cash desk pays every line)→ PAID
    issued ─(a manager voids it, with the reason; a reissue voids and issues anew)→ VOIDED
    issued ─(its expiry passes: on the request itself; the tick stores it)→ EXPIRED
"""

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from core.formats import local_date, local_datetime
from prizes.letter_models import LetterStatus, PrizeLetter

BADGE_STYLES = {
    LetterStatus.ISSUED: "text-bg-primary",
    LetterStatus.PAID: "text-bg-success",
    LetterStatus.VOIDED: "text-bg-danger",
    LetterStatus.EXPIRED: "text-bg-secondary",
}


def days_left_words(expires_at: dt.datetime, now: dt.datetime) -> str:
    """ "Last day today", "1 day left", "12 days left" (Johannesburg days)."""
    last_day = timezone.localtime(expires_at - dt.timedelta(microseconds=1)).date()
    days = (last_day - timezone.localtime(now).date()).days
    if days <= 0:
        return "Last day today"
    return f"{days} day{'s' if days != 1 else ''} left"


@dataclass(frozen=True)
class LetterState:
    letter: PrizeLetter
    now: dt.datetime

    @property
    def status(self) -> str:
        """The stored status, or expired once its time has passed while it was still issued."""
        if self.letter.status == LetterStatus.ISSUED and self.now >= self.letter.expires_at:
            return LetterStatus.EXPIRED
        return self.letter.status

    @property
    def is_payable(self) -> bool:
        return self.status == LetterStatus.ISSUED

    @property
    def is_expired(self) -> bool:
        return self.status == LetterStatus.EXPIRED

    @property
    def is_voided(self) -> bool:
        return self.status == LetterStatus.VOIDED

    @property
    def badge(self) -> str:
        return LetterStatus(self.status).label

    @property
    def badge_style(self) -> str:
        return BADGE_STYLES[self.status]

    @property
    def words(self) -> str:
        """One sentence for the desk and the cash desk."""
        letter = self.letter
        if self.status == LetterStatus.ISSUED:
            return (
                f"To be collected at {letter.collection_place} by {local_date(letter.last_day())} "
                f"({days_left_words(letter.expires_at, self.now).lower()})."
            )
        if self.status == LetterStatus.PAID:
            when = f" on {local_datetime(letter.status_changed_at)}" if letter.status_changed_at else ""
            return f"Paid{when}."
        if self.status == LetterStatus.VOIDED:
            return f"Voided on {local_datetime(letter.voided_at)} by {letter.voided_by}: {letter.void_reason}"
        return f"Expired: not collected by {local_date(letter.last_day())}."

    @property
    def days_left(self) -> str:
        return days_left_words(self.letter.expires_at, self.now) if self.is_payable else ""

    def pay_refusal(self) -> str | None:
        """Why the cash desk may not pay this letter now (its lines and the ID are checked by
        the payout itself), or None."""
        if self.status == LetterStatus.PAID:
            return f"Letter {self.letter.number} is already paid."
        if self.status == LetterStatus.VOIDED:
            replaced = getattr(self.letter, "replaced_by", None)
            new = f" Its replacement is letter {replaced.number}." if replaced else ""
            return f"Letter {self.letter.number} was voided: it is not paid.{new}"
        if self.status == LetterStatus.EXPIRED:
            return (
                f"Letter {self.letter.number} expired: the prize had to be collected by "
                f"{local_date(self.letter.last_day())}."
            )
        return None

    def void_refusal(self) -> str | None:
        """Why a manager may not void (or reissue) this letter now, or None."""
        if self.status == LetterStatus.VOIDED:
            return f"Letter {self.letter.number} is already voided."
        if self.status == LetterStatus.PAID:
            return f"Letter {self.letter.number} is paid: a paid letter stays as it is."
        if self.status == LetterStatus.EXPIRED:
            return (
                f"Letter {self.letter.number} expired on {local_date(self.letter.last_day())}: "
                "the prize can no longer be collected, so there is nothing to void or reissue."
            )
        return None
