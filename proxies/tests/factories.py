"""Nominations and declines made through the services, as the desk makes them."""

import datetime as dt
import uuid

from core.audit import Actor
from members.models import Member
from members.tests.factories import sa_id_for
from proxies.models import DeclineRegistration, ProxyNomination
from proxies.services import Nominee, decline_register, proxy_nominate


def desk_actor() -> Actor:
    from conftest import make_user
    from core.roles import REWARDS_DESK

    return Actor.for_user(make_user(REWARDS_DESK))


def nominee_for(member: Member | None = None, *, name: str = "Lerato Khumalo", born=dt.date(1985, 6, 15)) -> Nominee:
    """A member as nominee, or a person without a card."""
    if member is not None:
        return Nominee(member.full_name, member.id_type, member.id_number, member.phone, member)
    return Nominee(name, "sa_id", sa_id_for(born, 4321), "+27821234567")


def nominate(*, participant: Member, draw, nominee: Member | Nominee | None = None, now=None, actor=None):
    (nomination,) = proxy_nominate(
        actor=actor or desk_actor(),
        participant=participant,
        draw_ids=[draw.pk],
        nominee=nominee if isinstance(nominee, Nominee) else nominee_for(nominee),
        participant_id_seen=True,
        nominee_id_seen=True,
        form_signed=True,
        now=now,
    )
    return nomination


def decline(*, member: Member, draw, now=None, actor=None):
    (registration,) = decline_register(
        actor=actor or desk_actor(), member=member, draw_ids=[draw.pk], id_seen=True, now=now
    )
    return registration


def _desk_user():
    return desk_actor().user


def nomination_on_record(*, draw, member: Member, at, revoked_at=None, nominee: Nominee | None = None):
    """A nomination as the services leave it, registered (and revoked) at the given times: for
    record tests whose picks are inserted without the engine, after the draw has started."""
    nominee = nominee or nominee_for()
    user = _desk_user()
    return ProxyNomination.objects.create(
        draw=draw,
        participant=member,
        nominee_name=nominee.name,
        nominee_id_type=nominee.id_type,
        nominee_id_number=nominee.id_number,
        participant_id_seen=True,
        nominee_id_seen=True,
        form_signed=True,
        batch=uuid.uuid4(),
        registered_by=user,
        registered_at=at,
        revoked_at=revoked_at,
        revoked_by=user if revoked_at else None,
        revoke_reason="The participant will be there after all." if revoked_at else "",
    )


def decline_on_record(*, draw, member: Member, at, revoked_at=None):
    """A decline as the services leave it, at the given times (see nomination_on_record)."""
    user = _desk_user()
    return DeclineRegistration.objects.create(
        draw=draw,
        member=member,
        id_seen=True,
        batch=uuid.uuid4(),
        registered_by=user,
        registered_at=at,
        revoked_at=revoked_at,
        revoked_by=user if revoked_at else None,
        revoke_reason="The participant will be there after all." if revoked_at else "",
    )
