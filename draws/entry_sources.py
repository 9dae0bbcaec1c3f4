"""Carried entries: entrants a draw takes from elsewhere (issue 14, item 6; DRAWS.md §1).

A finalist place or an entries prize won in one draw makes the member an entrant of a named
later draw. draws never imports the app that knows those prizes (prizes): it registers a source
here in its AppConfig.ready(), and the freeze (draws.services.freeze_entries) asks every source.

A source takes a draw and returns its `Carried` entries, or None when it carries nothing into
that draw. The freeze writes each carried member as one activation of channel "carried" after
the draw's own activations, so the entry list, its SHA-256, the exported CSV and verify_draw
hold the carried entrants exactly like ticket holders:
- a finalist draw (`only`) takes no tickets of its own: its entrants are its carried places;
- otherwise the carried tickets are added to the draw's activations (Royal Flush r34.1: a
  bonus-session winner's entries join the tickets they activated themselves, as a second range).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from draws.models import Draw


@dataclass(frozen=True)
class CarriedEntry:
    member_id: int
    tickets: int
    why: list[dict] = field(default_factory=list)  # where the tickets come from, kept on the activation


@dataclass(frozen=True)
class Carried:
    only: bool  # a finalist draw: its entrants are these alone
    entries: tuple[CarriedEntry, ...] = ()


EntrySource = Callable[[Draw], Carried | None]

_sources: list[EntrySource] = []


def register(source: EntrySource) -> None:
    if source not in _sources:
        _sources.append(source)


def carried_entries(draw: Draw) -> Carried | None:
    """Every source's entries into `draw`, one per member in the order first carried, or None
    when the draw takes activations as usual."""
    found = [carried for source in _sources if (carried := source(draw)) is not None]
    if not found:
        return None
    merged: dict[int, CarriedEntry] = {}
    for carried in found:
        for entry in carried.entries:
            before = merged.get(entry.member_id)
            if before is not None:
                entry = CarriedEntry(entry.member_id, before.tickets + entry.tickets, [*before.why, *entry.why])
            merged[entry.member_id] = entry
    return Carried(only=any(c.only for c in found), entries=tuple(e for e in merged.values() if e.tickets > 0))


def takes_carried_only(draw: Draw) -> bool:
    """A finalist draw: no tickets of its own, and its win-once scope is the draw itself (its
    finalists are by definition winners of the draws that carried them)."""
    carried = carried_entries(draw)
    return carried is not None and carried.only
