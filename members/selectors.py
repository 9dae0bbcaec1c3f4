"""Reads for the members desk."""

import re
from dataclasses import dataclass

from django.db.models import Q

from members.identity import normalise_id_number
from members.models import Exclusion, ExclusionQuerySet, Member

LOOKUP_LIMIT = 50

# A magnetic-stripe reader types the track as keystrokes, e.g. ";1000000017?" (track 2)
# or "%B1000000017^SURNAME/NAME^...?" (track 1), then Enter.
_TRACK2 = re.compile(r"^;(\d+)(?:=[^?]*)?\?$")
_TRACK1 = re.compile(r"^%B(\d+)\^.*\?$")


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


def exclusions_in_force(*, query: str, at) -> ExclusionQuerySet:
    """Exclusions in force at `at`, optionally those of one ID number (typed with or without
    spaces, any document type) or with part of the name."""
    in_force = Exclusion.objects.in_force_at(at).select_related("recorded_by")
    if query:
        in_force = in_force.filter(Q(id_number=normalise_id_number(query)) | Q(full_name__icontains=query))
    return in_force
