"""What promotions needs to know of the draws scheduled for its series, without reaching into
draws (which sits above it): draws fills this registry in its AppConfig.ready(), as proxies
fills draws.registers. With no provider (promotions alone), a series has no draws.
"""

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    # (promotion, first_moment, after_last_moment) -> (count, first scheduled_at) of its draws
    # that are not cancelled and fall outside [first_moment, after_last_moment)
    draws_outside: Callable[..., tuple[int, dt.datetime | None]]
    # (series, lock) -> whether a draw of the series still taking tickets holds activated ones;
    # with lock=True those draws' rows are locked first
    has_tickets_out: Callable[..., bool]
    # (series) -> whether the series has draws that are not cancelled
    has_live_draws: Callable[..., bool]
    # (series ids) -> {series id: number of draws}
    draw_counts: Callable[[Iterable[int]], dict[int, int]]


_provider: Provider | None = None


def register_provider(provider: Provider) -> None:
    global _provider
    _provider = provider


def draws_outside(promotion, first: dt.datetime, after_last: dt.datetime) -> tuple[int, dt.datetime | None]:
    return _provider.draws_outside(promotion, first, after_last) if _provider else (0, None)


def has_tickets_out(series, *, lock: bool = False) -> bool:
    return bool(_provider and _provider.has_tickets_out(series, lock))


def has_live_draws(series) -> bool:
    return bool(_provider and _provider.has_live_draws(series))


def draw_counts(series_ids: Iterable[int]) -> dict[int, int]:
    return _provider.draw_counts(list(series_ids)) if _provider else {}
