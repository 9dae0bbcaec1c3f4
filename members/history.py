"""The member's history on the member page: their record's changes, and what the apps above
members keep of them (activations and wins in draws, nominations and declines in proxies),
newest first in one list that pages.

members never imports those apps: each registers a source here in its AppConfig.ready() (as
members.lookup_targets is filled). A source answers for one member how many entries it has and
its newest `limit`, so a page of the merged list reads at most page x size rows of each.
"""

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from core.audit_words import Named, describe
from core.formats import local_date
from core.models import AuditEvent
from members.models import Member


@dataclass(frozen=True)
class HistoryEntry:
    at: dt.datetime
    kind: str  # a word the desk reads in the first column: "Activation", "Win", "Proxy", ...
    text: str
    url: str = ""  # where the entry is seen whole (a receipt, a draw), if the user may open it
    lines: tuple[str, ...] = field(default=())  # details under the text (a correction's fields)


@dataclass(frozen=True)
class Source:
    count: Callable[[Member], int]
    # (member, limit, user) -> the newest `limit` entries, newest first
    newest: Callable[[Member, int, object], list[HistoryEntry]]
    perm: str = ""  # shown only to users with this permission (the cash desk sees no registers)


_sources: dict[str, Source] = {}


def register(name: str, source: Source) -> None:
    _sources[name] = source


class MemberHistory:
    """The merged history as a sequence Django's Paginator can page: its length is the sum of the
    sources' counts, and a slice reads only the newest rows each source needs for it."""

    def __init__(self, member: Member, user=None) -> None:
        self.member, self.user = member, user
        self.sources = [s for s in _sources.values() if not s.perm or (user is not None and user.has_perm(s.perm))]
        self._count: int | None = None

    def count(self) -> int:
        if self._count is None:
            self._count = sum(source.count(self.member) for source in self.sources)
        return self._count

    __len__ = count

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index : index + 1][0]
        stop = self.count() if index.stop is None else index.stop
        entries = [e for source in self.sources for e in source.newest(self.member, stop, self.user)]
        entries.sort(key=lambda entry: entry.at, reverse=True)
        return entries[index.start or 0 : stop]


# --- members' own part: the record's audit events ------------------------------------------

FIELD_WORDS = {
    "first_name": "first name",
    "last_name": "last name",
    "id_type": "ID document",
    "id_number": "ID number",
    "date_of_birth": "date of birth",
    "phone": "phone",
    "email": "e-mail",
    "tier": "tier",
    "home_property": "home property",
    "app_registered_on": "app registration",
    "playtsogo_active_since": "playTSOGO activity",
}


def _record_events(member: Member):
    return AuditEvent.objects.filter(object_type="members.member", object_id=str(member.pk))


def _record_entries(member: Member, limit: int, user) -> list[HistoryEntry]:
    names = {("members.member", str(member.pk)): Named(member.full_name)}
    events = _record_events(member).order_by("-created_at", "-pk")[:limit]
    return [
        HistoryEntry(event.created_at, "Record", describe(event, names).text, lines=tuple(_change_lines(event)))
        for event in events
    ]


def correction_changes(event: AuditEvent) -> dict:
    """A correction's fields (member.updated's "changes"), each {"before", "after"}, in the form's
    order (the database keeps its own)."""
    changes = event.data.get("changes") if event.action == "member.updated" and isinstance(event.data, dict) else None
    if not isinstance(changes, dict):
        return {}
    order = {name: rank for rank, name in enumerate(FIELD_WORDS)}
    return {
        name: pair
        for name, pair in sorted(changes.items(), key=lambda item: order.get(item[0], len(order)))
        if isinstance(pair, dict)
    }


def _change_lines(event: AuditEvent) -> list[str]:
    """ "Phone: +27821234567 → +27831234567" for each field of a correction, in the form's order."""
    return [
        f"{FIELD_WORDS.get(name, name).capitalize()}: {shown_value(pair.get('before'))} \N{RIGHTWARDS ARROW} "
        f"{shown_value(pair.get('after'))}"
        for name, pair in correction_changes(event).items()
    ]


def shown_value(value) -> str:
    """A value of a correction as the member page writes it: dates as 15 Jun 1985."""
    if value in (None, ""):
        return "(empty)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str) and len(value) == 10:
        try:
            return local_date(dt.date.fromisoformat(value))
        except ValueError:
            pass
    return str(value)


register("record", Source(count=lambda member: _record_events(member).count(), newest=_record_entries))
