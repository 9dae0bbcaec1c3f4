"""A proxy nomination between "Print the form" and "Register the proxy".

The desk prints the form, both parties sign it, then the clerk confirms: nothing is registered
before the signatures, so the printed form never claims a registration or a signature that has
not happened. The details checked for printing wait in the clerk's session (server-side, gone
at logout or after the idle timeout), one per participant; confirming registers exactly what
was printed, and is refused until that form has been printed.
"""

import datetime as dt
from dataclasses import dataclass

from members.models import Member
from proxies.services import Nominee

SESSION_KEY = "proxy_drafts"


@dataclass(frozen=True)
class Draft:
    draw_ids: list[int]
    nominee: Nominee
    printed: bool


def draft_save(session, *, participant: Member, draw_ids: list[int], nominee: Nominee) -> None:
    """Keep the checked details for printing; a new draft for the participant replaces the last
    (changed details need a new print)."""
    drafts = dict(session.get(SESSION_KEY, {}))
    drafts[str(participant.pk)] = {
        "draws": sorted(draw_ids),
        "name": nominee.name,
        "id_type": nominee.id_type,
        "id_number": nominee.id_number,
        "phone": nominee.phone,
        "date_of_birth": nominee.date_of_birth.isoformat() if nominee.date_of_birth else None,
        "member": nominee.member.pk if nominee.member else None,
        "printed": False,
    }
    session[SESSION_KEY] = drafts


def draft_of(session, participant: Member) -> Draft | None:
    data = session.get(SESSION_KEY, {}).get(str(participant.pk))
    if not data:
        return None
    member = Member.objects.filter(pk=data["member"]).first() if data["member"] else None
    born = dt.date.fromisoformat(data["date_of_birth"]) if data["date_of_birth"] else None
    nominee = Nominee(data["name"], data["id_type"], data["id_number"], data["phone"], member, born)
    return Draft(list(data["draws"]), nominee, bool(data["printed"]))


def draft_printed(session, participant: Member) -> None:
    drafts = dict(session.get(SESSION_KEY, {}))
    if str(participant.pk) in drafts:
        drafts[str(participant.pk)] = {**drafts[str(participant.pk)], "printed": True}
        session[SESSION_KEY] = drafts


def draft_clear(session, participant: Member) -> None:
    drafts = dict(session.get(SESSION_KEY, {}))
    if drafts.pop(str(participant.pk), None) is not None:
        session[SESSION_KEY] = drafts
