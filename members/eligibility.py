"""Who may take part in a promotion at a given moment: the one rule, in Python and in SQL.

Every seed promotion opens with the same three rules: no one under 18; no one self-excluded
or under a Refusal of Entry order; no director, employee, agent or consultant of the company
or its marketing providers, nor their family ("connected persons").

`person_standing` says it in words for the desk, the kiosk and the stage; `eligible_sql` is its
twin for set-based statements (the ticket allocation, a RAPS list's bulk check). Both read a
span of time: a person may take part from `at` to `until` when they are 18 on the day of
`until` (Johannesburg) and no exclusion of their document number is in force at any moment of
the span. draws/tests/test_eligibility_agrees.py holds the two equal over generated members.
"""

import datetime as dt
import re
from dataclasses import dataclass, field

from django.utils import timezone

from core.formats import local_date
from members.identity import age_on
from members.models import Exclusion, Member

ADULT_AGE = 18


@dataclass(frozen=True)
class Eligibility:
    reasons: list[str] = field(default_factory=list)

    @property
    def eligible(self) -> bool:
        return not self.reasons


@dataclass(frozen=True)
class PersonStanding:
    """Why a person may not take part, by kind (the draw record keeps only the kind)."""

    under_age: str = ""  # the reason in words, or empty
    exclusions: tuple[str, ...] = ()

    @property
    def reasons(self) -> list[str]:
        return ([self.under_age] if self.under_age else []) + list(self.exclusions)


def _span(at: dt.datetime, until: dt.datetime | None) -> tuple[dt.datetime, dt.datetime]:
    return at, max(until or at, at)


def adult_born_by(day: dt.date) -> dt.date:
    """The last birth date of someone who is 18 on `day` (born on 29 February: 1 March counts)."""
    try:
        return day.replace(year=day.year - ADULT_AGE)
    except ValueError:  # `day` is 29 February
        return day.replace(year=day.year - ADULT_AGE, day=28)


def person_standing(
    *,
    id_number: str,
    date_of_birth: dt.date,
    at: dt.datetime,
    until: dt.datetime | None = None,
    check_exclusions: bool = True,
) -> PersonStanding:
    """The one rule, in words: under 18 on the day of `until` (or `at`), and each exclusion of
    this document number in force at any moment from `at` to `until`. An exclusion bars the
    number whatever document type it was recorded or presented as (issue 6, 2.1).
    `check_exclusions=False`: the caller has just asked the database (exclusion_possible_sql)
    and no exclusion of this number is in force at `at` or later, so there is none to word."""
    at, until = _span(at, until)
    under_age = ""
    age = age_on(date_of_birth, timezone.localdate(until))
    if age < ADULT_AGE:
        turns_18 = (
            date_of_birth.replace(year=date_of_birth.year + ADULT_AGE)
            if not (date_of_birth.month == 2 and date_of_birth.day == 29)
            else dt.date(date_of_birth.year + ADULT_AGE, 3, 1)
        )
        under_age = f"Under 18 (aged {age}; turns 18 on {local_date(turns_18)})."
    exclusions = []
    if check_exclusions:
        for exclusion in Exclusion.objects.for_identity(id_number).in_force_during(at, until).order_by("starts_at"):
            since = timezone.localdate(exclusion.starts_at)
            ends = f" until {exclusion.until_label}" if exclusion.ends_at else ""
            exclusions.append(f"{exclusion.get_kind_display()} since {local_date(since)}{ends}: {exclusion.reason}")
    return PersonStanding(under_age, tuple(exclusions))


def person_refusals(
    *,
    id_number: str,
    date_of_birth: dt.date,
    at: dt.datetime,
    until: dt.datetime | None = None,
    id_type: str | None = None,
    check_exclusions: bool = True,
) -> list[str]:
    """The reasons a person may not take part at `at` (or at any moment from `at` to `until`),
    empty when they may (person_standing, in words). `id_type` is not used: see person_standing."""
    standing = person_standing(
        id_number=id_number, date_of_birth=date_of_birth, at=at, until=until, check_exclusions=check_exclusions
    )
    return standing.reasons


_ALIAS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def eligible_params(*, at: dt.datetime, until: dt.datetime | None = None, prefix: str = "elig") -> dict:
    """The values of eligible_sql's parameters for the span from `at` to `until`."""
    at, until = _span(at, until)
    return {f"{prefix}_born_by": adult_born_by(timezone.localdate(until)), f"{prefix}_at": at, f"{prefix}_until": until}


def eligible_sql(
    member_alias: str, *, at: dt.datetime, until: dt.datetime | None = None, prefix: str = "elig", every_member=False
):
    """The SQL twin of person_standing: a condition, true when the members_member row aliased
    `member_alias` may take part from `at` to `until`, and its named parameters (pyformat,
    each name starting with `prefix`). Returns (sql, params).

    `every_member`: the same rule for a statement over every member in member id order (a whole
    draw's allocation, with hash joins off), with the exclusion register read from its side: each
    exclusion in force finds its member by document number, one index probe each (OFFSET 0 keeps
    PostgreSQL from turning that into a walk of every member's number), and the members it bars
    are merged away by id. Otherwise the register is probed once per member row."""
    if not _ALIAS.fullmatch(member_alias) or not _ALIAS.fullmatch(prefix):
        raise ValueError("eligible_sql takes a plain table alias and parameter prefix")
    params = eligible_params(at=at, until=until, prefix=prefix)
    m, e, em = member_alias, f"e_{prefix}", f"em_{prefix}"
    if every_member:
        barred = f"""FROM members_exclusion {e}
        CROSS JOIN LATERAL (SELECT {em}.id FROM members_member {em} WHERE {em}.id_number = {e}.id_number OFFSET 0) {em}
        WHERE {em}.id = {m}.id"""  # noqa: S608 (checked identifiers)
    else:
        barred = f"FROM members_exclusion {e} WHERE {e}.id_number = {m}.id_number"
    sql = f"""({m}.date_of_birth <= %({prefix}_born_by)s AND NOT EXISTS (
        SELECT 1 {barred}
          AND {e}.starts_at <= %({prefix}_until)s AND ({e}.ends_at IS NULL OR {e}.ends_at > %({prefix}_at)s)))"""
    return sql, params


def exclusion_possible_sql(member_alias: str, at_param: str) -> str:
    """A SQL condition: some exclusion of the document number of the members_member row aliased
    `member_alias` is in force at the moment `at_param` (a placeholder) or later. It ignores when
    exclusions start, so it is true whenever person_standing from that moment could find one;
    false lets person_standing skip its own query (check_exclusions=False)."""
    if not _ALIAS.fullmatch(member_alias):
        raise ValueError("exclusion_possible_sql takes a plain table alias")
    return f"""EXISTS (SELECT 1 FROM members_exclusion x WHERE x.id_number = {member_alias}.id_number
          AND (x.ends_at IS NULL OR x.ends_at > {at_param}))"""  # noqa: S608 (checked alias; the value a placeholder)


def member_eligibility(member: Member | None, at: dt.datetime | None = None) -> Eligibility:
    if member is None:
        return Eligibility(["Not a member: sign the guest up for a rewards card first."])
    at = at or timezone.now()
    return Eligibility(person_refusals(id_number=member.id_number, date_of_birth=member.date_of_birth, at=at))
