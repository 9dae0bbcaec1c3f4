"""Who did something, and the one way services write the audit log."""

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import models
from django.http import HttpRequest

from core.models import AuditEvent


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
    # Behind our reverse proxy the client is the hop the proxy appended: the last one. Earlier
    # hops are whatever the client chose to send, so they are never trusted.
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    ip = forwarded.split(",")[-1].strip() if forwarded else request.META.get("REMOTE_ADDR")
    return ip or None


def audit_log(
    *,
    actor: Actor,
    action: str,
    obj: models.Model | None = None,
    data: dict[str, Any] | None = None,
) -> AuditEvent:
    """Record one event. Call it inside the service's transaction so both land or neither."""
    return AuditEvent.objects.create(
        actor=actor.user,
        actor_label=actor.label,
        action=action,
        object_type=obj._meta.label_lower if obj is not None else "",
        object_id=str(obj.pk) if obj is not None else "",
        data=data or {},
        ip=actor.ip,
    )
