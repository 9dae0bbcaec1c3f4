"""Who may take part in a promotion at a given moment.

Every seed promotion opens with the same three rules: no one under 18; no one self-excluded
or under a Refusal of Entry order; no director, employee, agent or consultant of the company
or its marketing providers, nor their family ("connected persons").
"""

import datetime as dt
from dataclasses import dataclass, field

from django.utils import timezone

from core.formats import local_date
from members.identity import age_on
from members.models import Exclusion, Member


@dataclass(frozen=True)
class Eligibility:
    reasons: list[str] = field(default_factory=list)

    @property
    def eligible(self) -> bool:
        return not self.reasons


def person_refusals(
    *,
    id_number: str,
    date_of_birth: dt.date,
    at: dt.datetime,
    until: dt.datetime | None = None,
    id_type: str | None = None,
) -> list[str]:
    """The reasons a person may not take part at `at` (or at any moment from `at` to `until`),
    empty when they may: under 18 on the last day, or an exclusion in force at any moment of the
    span. The allocation statement (draws.allocation) applies the same rule in SQL; a test over
    generated members holds the two equal.

    `id_type` is not used: an exclusion bars the document number whatever type it was
    recorded or presented as (issue 6, 2.1).
    """
    reasons = []
    until = max(until or at, at)
    day = timezone.localdate(until)
    age = age_on(date_of_birth, day)
    if age < 18:
        turns_18 = (
            date_of_birth.replace(year=date_of_birth.year + 18)
            if not (date_of_birth.month == 2 and date_of_birth.day == 29)
            else dt.date(date_of_birth.year + 18, 3, 1)
        )
        reasons.append(f"Under 18 (aged {age}; turns 18 on {local_date(turns_18)}).")
    exclusions = Exclusion.objects.for_identity(id_number).in_force_during(at, until).order_by("starts_at")
    for exclusion in exclusions:
        since = timezone.localdate(exclusion.starts_at)
        until = f" until {exclusion.until_label}" if exclusion.ends_at else ""
        reasons.append(f"{exclusion.get_kind_display()} since {local_date(since)}{until}: {exclusion.reason}")
    return reasons


def member_eligibility(member: Member | None, at: dt.datetime | None = None) -> Eligibility:
    if member is None:
        return Eligibility(["Not a member: sign the guest up for a rewards card first."])
    at = at or timezone.now()
    return Eligibility(person_refusals(id_number=member.id_number, date_of_birth=member.date_of_birth, at=at))
