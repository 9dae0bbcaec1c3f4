"""Who did something, and the one way services write the audit log."""

import difflib
import functools
import hashlib
import ipaddress
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import models
from django.http import HttpRequest

from core.models import AuditEvent
from core.swipe import mask_swipes_in


@dataclass(frozen=True)
class Actor:
    """The person, device or job on whose behalf a service acts."""

    label: str
    user: AbstractBaseUser | None = None
    ip: str | None = None

    @classmethod
    def from_request(cls, request: HttpRequest) -> "Actor":
        user = request.user if request.user.is_authenticated else None
        label = user.get_username() if user else "anonymous"
        return cls(label=label, user=user, ip=client_ip(request))

    @classmethod
    def for_user(cls, user: AbstractBaseUser, ip: str | None = None) -> "Actor":
        return cls(label=user.get_username(), user=user, ip=ip)

    @classmethod
    def system(cls, name: str) -> "Actor":
        return cls(label=f"system:{name}")


def client_ip(request: HttpRequest) -> str | None:
    """The address of whoever sent the request, as far as we can know it.

    X-Forwarded-For is written by the client as much as by proxies, so it is read only when
    the request came straight from one of settings.TRUSTED_PROXIES; then the client is the
    right-most hop that is not itself a trusted proxy (everything left of it is the client's
    own say). Anything that is not an IP address is never returned.
    """
    remote = _valid_ip(request.META.get("REMOTE_ADDR", ""))
    if remote is None or not _is_trusted_proxy(remote):
        return str(remote) if remote is not None else None
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    client = remote
    for hop in reversed(hops):
        ip = _valid_ip(hop)
        if ip is None:
            break  # a trusted proxy never writes garbage: this hop and all left of it are made up
        client = ip
        if not _is_trusted_proxy(ip):
            break
    return str(client)


def _valid_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    # An IPv4 client seen through an IPv6 socket: store the address people recognise.
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


@functools.cache
def _trusted_networks(proxies: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def _is_trusted_proxy(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return any(ip in network for network in _trusted_networks(tuple(settings.TRUSTED_PROXIES)))


def audit_log(
    *,
    actor: Actor,
    action: str,
    obj: models.Model | None = None,
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    """Record one event. Call it inside the service's transaction so both land or neither.
    A card swipe in any text of `data` is kept only as "(card swipe)" (core.swipe): the stripe
    holds a member's name, and the audit log is append-only."""
    return AuditEvent.objects.create(
        actor=actor.user,
        actor_label=actor.label,
        action=action,
        object_type=obj._meta.label_lower if obj is not None else "",
        object_id=str(obj.pk) if obj is not None else "",
        data=mask_swipes_in(data or {}),
        ip=actor.ip,
    )


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def text_change(before: str, after: str, *, limit: int = 4000) -> dict[str, Any]:
    """A long text's change as the audit log keeps it: both SHA-256 digests (which prove
    exactly which text was in force) and a unified diff, cut at `limit` characters so a
    rewritten rule book cannot bloat the log."""
    diff = "".join(
        difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True), "before", "after", n=1)
    )
    return {
        "sha256_before": text_sha256(before),
        "sha256_after": text_sha256(after),
        "diff": diff[:limit],
        "diff_truncated": len(diff) > limit,
    }
