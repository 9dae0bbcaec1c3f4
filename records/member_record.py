"""A member's own record (POPIA section 23): a member who asks what the casino holds about them
gets it as an A4 PDF from the Rewards desk, in person, their ID seen. The disclosure is the
state change: it is refused without the clerk's confirmation, and each one given is in the
audit log (`disclosure.member_record`: who, to which member, when, the PDF's SHA-256).

Member records are group-wide (README, Roles): a clerk at any property may give one, as they
may look the member up or correct their phone. Auditors read the audit event, never the record."""

import hashlib
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from core.pdf import render_pdf
from members.identity import normalise_id_number
from members.models import Member
from records.member_record_data import LIST_LIMIT, POINT_LINES, member_record
from records.member_record_perms import PERMISSION

ACTION = "disclosure.member_record"


@dataclass(frozen=True)
class Disclosure:
    member: Member
    pdf: bytes
    sha256: str

    @property
    def filename(self) -> str:
        return f"member-record-{self.member.card_number}.pdf"


def member_record_refusal(actor: Actor) -> str | None:
    """Why `actor` may not give a member their record, or None (the member page's button)."""
    if actor.user is None or not actor.user.has_perm(PERMISSION):
        return "Only the Rewards desk or a promotions manager gives a member their own record."
    return None


def _check_the_member(member: Member, *, identified_by: str, in_person: bool) -> None:
    """The member themself, at the desk: the clerk confirms it, and the card swiped or the ID
    number typed is theirs (never someone asking on their behalf)."""
    if not in_person:
        raise DomainError(
            f"Confirm that {member.full_name} is here in person and that you have seen their ID document: "
            "their record is given only to them.",
            code="record_not_confirmed",
        )
    given = normalise_id_number(identified_by or "")
    if not given:
        raise DomainError(
            f"Swipe {member.first_name}'s card or type the number on the ID document they show.",
            code="record_not_confirmed",
        )
    if given not in (member.card_number, normalise_id_number(member.id_number)):
        raise DomainError(
            f"That card or ID number is not {member.full_name}'s: the record is given only to the member, "
            "with their own card or ID.",
            code="record_not_the_member",
        )


def member_record_issue(*, actor: Actor, member_id: int, identified_by: str, in_person: bool) -> Disclosure:
    """The member's record as a PDF, for the member in person; audited with the PDF's SHA-256."""
    refusal = member_record_refusal(actor)
    if refusal:
        raise DomainError(refusal, code="not_allowed")
    now = timezone.now()
    with transaction.atomic():
        member = Member.objects.get(pk=member_id)
        _check_the_member(member, identified_by=identified_by, in_person=in_person)
        record = member_record(member_id)
        pdf = render_pdf(
            "records/member_record_pdf.html",
            {
                "record": record,
                "member": record.member,
                "produced_at": timezone.localtime(now),
                "produced_by": _name(actor),
                "point_lines_shown": POINT_LINES,
                "list_limit": LIST_LIMIT,
            },
            css="css/member_record.css",
        )
        digest = hashlib.sha256(pdf).hexdigest()
        # Written only once the PDF exists: a failed render discloses nothing and logs nothing.
        audit_log(
            actor=actor,
            action=ACTION,
            obj=member,
            data={"card_number": member.card_number, "sha256": digest, "bytes": len(pdf)},
        )
    return Disclosure(member, pdf, digest)


def _name(actor: Actor) -> str:
    user = actor.user
    if user is None:
        return actor.label
    full = user.get_full_name()
    return f"{full} ({user.get_username()})" if full else user.get_username()
