"""What the header lookup can land on besides a member: a receipt, later a letter. The apps above
members know those numbers; each one that does has a `desk_lookup.py` module that registers a
resolver here, found the way the admin finds `admin.py`, so members never imports a higher app.

A resolver takes the scrubbed query and the user and returns the address to go to, or None.
"""

from collections.abc import Callable

from django.contrib.auth.models import AbstractBaseUser
from django.utils.module_loading import autodiscover_modules

Resolver = Callable[[str, AbstractBaseUser], str | None]

_resolvers: list[Resolver] = []
_discovered = False


def register(resolver: Resolver) -> Resolver:
    if resolver not in _resolvers:
        _resolvers.append(resolver)
    return resolver


def resolve(query: str, user) -> str | None:
    global _discovered
    if not _discovered:
        autodiscover_modules("desk_lookup")
        _discovered = True
    for resolver in _resolvers:
        url = resolver(query, user)
        if url:
            return url
    return None
