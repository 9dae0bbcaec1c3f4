"""What the proxy and decline registers say about a draw's winners, for the engine and the stage.

proxies sits above draws and keeps those registers; draws never imports it. proxies fills this
registry in its AppConfig.ready() (as members.lookup_targets is filled by the apps above
members), and draws asks it: a live nomination of a winner, a live decline, whether a member is
the live proxy of another participant, and every registration of a draw (live or revoked) for
its exported record. With no provider registered (draws alone), the registers are empty.
"""

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class NominationInfo:
    """A live nomination, as the conductor checks it against the ID in hand."""

    nomination_id: int
    nominee_name: str
    id_last_four: str


@dataclass(frozen=True)
class ProxyOf:
    """The member is the live proxy of this participant in the draw."""

    nomination_id: int
    participant_card: str


@dataclass(frozen=True)
class RegisterCounts:
    """How many live nominations and declines a draw has."""

    nominations: int = 0
    declines: int = 0


@dataclass(frozen=True)
class Registration:
    """One nomination or decline of a draw as the record keeps it (docs/draw-records-registers.md):
    who, when, by whom, and whether and when it was revoked. A nomination also names its nominee
    (the name and the ID number's last four: never the whole number)."""

    member_id: int
    card_number: str
    registered_at: dt.datetime
    registered_by: str
    revoked_at: dt.datetime | None = None
    revoked_by: str = ""
    nominee_name: str = ""
    nominee_id_last4: str = ""


@dataclass(frozen=True)
class Registrations:
    """A draw's proxy register (its nominations) and decline register, live and revoked, each in
    the order they were registered."""

    proxy: list[Registration] = field(default_factory=list)
    decline: list[Registration] = field(default_factory=list)


@dataclass(frozen=True)
class Provider:
    # (draw, member) -> the member's live nomination for this draw, or None
    live_nomination: Callable[..., NominationInfo | None]
    # (draw, member) -> whether the member is on this draw's decline register (live)
    live_decline: Callable[..., bool]
    # (draw, member) -> the participant this member represents in this draw, or None
    proxy_of: Callable[..., ProxyOf | None]
    # (draw ids) -> {draw id: RegisterCounts} of the live nominations and declines, in one read
    counts: Callable[..., dict[int, "RegisterCounts"]]
    # (draw) -> every nomination and decline of the draw, revoked ones included
    registrations: Callable[..., Registrations]
    # (draw parameter name, member alias) -> a SQL condition, true when that member is the live
    # proxy of another participant in that draw: proxy_of folded into a bigger statement
    proxy_of_sql: Callable[[str, str], str] | None = None


_provider: Provider | None = None


def register_provider(provider: Provider) -> None:
    global _provider
    _provider = provider


def live_nomination(draw, member) -> NominationInfo | None:
    return _provider.live_nomination(draw, member) if _provider else None


def live_decline(draw, member) -> bool:
    return bool(_provider and _provider.live_decline(draw, member))


def proxy_of(draw, member) -> ProxyOf | None:
    return _provider.proxy_of(draw, member) if _provider else None


def proxy_of_sql(draw_param: str, member_alias: str) -> str:
    """proxy_of as a SQL condition on the members_member row `member_alias` and the draw id in
    the named parameter `draw_param` (activation's one-statement checks); FALSE with no provider."""
    if _provider is None or _provider.proxy_of_sql is None:
        return "FALSE"
    return _provider.proxy_of_sql(draw_param, member_alias)


def counts(draw_ids) -> dict[int, RegisterCounts]:
    """Each draw's live nominations and declines (a draw without any is left out)."""
    ids = list(draw_ids)
    return _provider.counts(ids) if _provider and ids else {}


def registrations(draw) -> Registrations:
    """Every nomination and decline of the draw, live or revoked (the exported record's registers)."""
    return _provider.registrations(draw) if _provider else Registrations()
