"""Reads for the members desk."""

import re
from dataclasses import dataclass

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from core.prepared import prepared_cursor
from members.identity import normalise_id_number
from members.models import Exclusion, ExclusionQuerySet, Member, Tier

LOOKUP_LIMIT = 50

# A magnetic-stripe reader types the track as keystrokes, e.g. ";1000000017?" (track 2)
# or "%B1000000017^SURNAME/NAME^...?" (track 1), then Enter.
_TRACK2 = re.compile(r"^;(\d+)(?:=[^?]*)?\?$")
_TRACK1 = re.compile(r"^%B(\d+)\^.*\?$")


def member_with_tier_sql(member: str = "m", tier: str = "t") -> tuple[str, str]:
    """(columns, FROM clause) of a member row with its tier row, for member_with_tier_from_row:
    the devices' hot reads build the two model instances without the ORM's query building."""
    columns = [f"{member}.{f.column}" for f in Member._meta.concrete_fields]
    columns += [f"{tier}.{f.column}" for f in Tier._meta.concrete_fields]
    tables = f"{Member._meta.db_table} {member} JOIN {Tier._meta.db_table} {tier} ON {tier}.id = {member}.tier_id"
    return ", ".join(columns), tables


def member_with_tier_from_row(row) -> tuple[Member, tuple]:
    """The member (with `.tier`) from the start of a row of member_with_tier_sql's columns, and
    the rest of the row."""
    member_fields, tier_fields = Member._meta.concrete_fields, Tier._meta.concrete_fields
    split, end = len(member_fields), len(member_fields) + len(tier_fields)
    member = Member.from_db("default", [f.attname for f in member_fields], row[:split])
    member.tier = Tier.from_db("default", [f.attname for f in tier_fields], row[split:end])
    return member, tuple(row[end:])


def member_by_card(card_number: str) -> Member | None:
    """The member with this card number, with their tier (a device's swipe)."""
    columns, tables = member_with_tier_sql()
    with prepared_cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {tables} WHERE m.card_number = %s", [card_number])  # noqa: S608
        row = cursor.fetchone()
    return member_with_tier_from_row(row)[0] if row else None


@dataclass(frozen=True)
class LookupResult:
    query: str
    matched_by: str  # "card", "id_number", "name" or "" when nothing could be searched
    members: list[Member]
    truncated: bool = False
    hint: str = ""


def normalise_lookup(raw: str) -> str:
    text = (raw or "").strip()
    for track in (_TRACK2, _TRACK1):
        match = track.match(text)
        if match:
            return match.group(1)
    return text


def member_lookup(raw: str, *, limit: int = LOOKUP_LIMIT) -> LookupResult:
    """Find members by card swipe, card number, ID number or part of their name.

    Card and ID numbers match exactly (unique indexes); names match every word typed,
    anywhere in "first last" (trigram index on PostgreSQL).
    """
    query = normalise_lookup(raw)
    if not query:
        return LookupResult(query, "", [])
    members = Member.objects.with_related()
    if " " not in query:
        # One statement for card or ID number: most of a lookup's cost is the ORM, not the index.
        number = normalise_id_number(query)
        found = list(members.filter(Q(card_number=query) | Q(id_number=number)))
        cards = [m for m in found if m.card_number == query]
        if cards:
            return LookupResult(query, "card", cards)
        if found or query.isdigit():
            return LookupResult(query, "id_number", found)

    words = [word for word in query.lower().split() if word]
    if max(len(word) for word in words) < 3:
        return LookupResult(query, "", [], hint="Type at least 3 letters of a name, or swipe the card.")
    for word in words:
        members = members.filter(search_name__contains=word)
    # No ORDER BY in SQL: sorting every match of a common fragment ("and": 90,000 members)
    # costs 200 ms; the first limit+1 matches are sorted here. When more match, the desk is
    # asked to type more, so which 50 are shown does not matter.
    found = sorted(members.order_by()[: limit + 1], key=lambda m: (m.last_name, m.first_name, m.pk))
    return LookupResult(query, "name", found[:limit], truncated=len(found) > limit)


@dataclass(frozen=True)
class MemberList:
    members: "QuerySet[Member]"
    hint: str = ""


def members_list(*, query: str = "", home_property=None, tier=None, app: str = "") -> MemberList:
    """Members for the list page, newest first (the primary key's order: no sort of a million
    rows), filtered by home property, tier and app registration, and searched like the lookup:
    a card or ID number exactly, or every word typed somewhere in the name."""
    members = Member.objects.with_related().order_by("-pk")
    if home_property is not None:
        members = members.filter(home_property=home_property)
    if tier is not None:
        members = members.filter(tier=tier)
    if app in ("yes", "no"):
        members = members.filter(app_registered_on__isnull=app == "no")
    query = normalise_lookup(query)
    if not query:
        return MemberList(members)
    if " " not in query and any(char.isdigit() for char in query):
        return MemberList(members.filter(Q(card_number=query) | Q(id_number=normalise_id_number(query))))
    words = query.lower().split()
    if max(len(word) for word in words) < 3:
        return MemberList(members.none(), hint="Type at least 3 letters of a name, or a card or ID number.")
    for word in words:
        members = members.filter(search_name__contains=word)
    return MemberList(members)


EXCLUSION_STATUSES = ("in_force", "ended", "future")


def _exclusion_status(status: str, at) -> Q:
    if status == "in_force":
        return Q(starts_at__lte=at) & (Q(ends_at__isnull=True) | Q(ends_at__gt=at))
    if status == "ended":
        return Q(ends_at__lte=at)
    if status == "future":
        return Q(starts_at__gt=at)
    return Q()


@dataclass(frozen=True)
class ExclusionList:
    exclusions: ExclusionQuerySet
    counts: dict  # status -> how many match the search and kind, and "all"


def exclusions_list(*, query: str = "", status: str = "in_force", kind: str = "", at) -> ExclusionList:
    """Exclusions in force, ended, starting later or all, optionally of one kind, by ID number
    (typed with or without spaces, any document type) or part of the name; each with the id of
    the member holding that number (member_id, None for a guest without a card), and the counts
    of each status for the same search."""
    found = Exclusion.objects.all()
    query = (query or "").strip()
    if query:
        found = found.filter(Q(id_number=normalise_id_number(query)) | Q(full_name__icontains=query))
    if kind:
        found = found.filter(kind=kind)
    counts = found.aggregate(
        all=Count("pk"), **{name: Count("pk", filter=_exclusion_status(name, at)) for name in EXCLUSION_STATUSES}
    )
    holder = Member.objects.filter(id_number=OuterRef("id_number")).values("pk")[:1]
    listed = (
        found.filter(_exclusion_status(status, at))
        .select_related("recorded_by", "ended_by")
        .annotate(member_id=Subquery(holder))
        .order_by("-ends_at" if status == "ended" else "-starts_at", "-pk")
    )
    return ExclusionList(listed, counts)
