"""Draws with entries, made quickly for the draw engine's tests: activations written straight
to the table (the engine only reads them), then the real window close freezes the entries."""

import datetime as dt

from core.audit import Actor
from draws.models import Activation, Channel, Draw
from draws.services import draw_close_window
from draws.tests.factories import make_draw
from members.models import Member
from members.tests.factories import MemberFactory
from promotions.models import DrawSeries

SAST = dt.timezone(dt.timedelta(hours=2))


def sast(*args) -> dt.datetime:
    """A Johannesburg time: sast(2025, 10, 16, 20, 0)."""
    return dt.datetime(*args, tzinfo=SAST)


MANAGER = Actor.system("test-manager")


def add_entries(draw: Draw, tickets: list[int], members: list[Member] | None = None) -> list[Member]:
    """One activation per number in `tickets`, serials 1..N in order; new members unless given."""
    members = members or [MemberFactory() for _ in tickets]
    first = draw.next_serial
    for member, count in zip(members, tickets, strict=True):
        Activation.objects.create(
            draw=draw,
            member=member,
            channel=Channel.DESK,
            first_serial=first,
            last_serial=first + count - 1,
            tickets=count,
            receipt_number=f"T{draw.pk}-{first}",
            activated_at=draw.tickets_open_at,
        )
        first += count
    Draw.objects.filter(pk=draw.pk).update(next_serial=first)
    return members


def closed_draw(
    series: DrawSeries, at: dt.datetime, tickets: list[int], members: list[Member] | None = None, windows=None
) -> tuple[Draw, list[Member]]:
    """A draw at `at` whose entries (one activation per number in `tickets`) are frozen; with the
    series' windows unless `windows` are given."""
    draw = make_draw(series, at, windows=windows) if windows else make_draw(series, at)
    members = add_entries(draw, tickets, members)
    assert draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    draw.refresh_from_db()
    return draw, members


def pin_seed(draw: Draw, wanted, picks: int = 3) -> None:
    """Give a closed draw a seed whose first `picks` serials satisfy `wanted(serials)`, so a test
    can stage "the winner is drawn again" without depending on chance."""

    from draws.selection import electronic_serial

    for i in range(100_000):
        seed = i.to_bytes(32, "big")
        serials = [
            electronic_serial(seed=seed, entries_sha256=draw.entries_sha256, k=k, tickets_total=draw.tickets_total)
            for k in range(1, picks + 1)
        ]
        if wanted(serials):
            rig_seed(draw, seed)
            return
    raise AssertionError("No seed gives those serials.")


def rig_seed(draw: Draw, seed: bytes) -> None:
    """Make `seed` the closed draw's seed as if chance had given it when its entries froze: the
    draw, the commitment the database recorded and the audit event of the freeze (for a RAPS
    session, of its last upload) all say so. Done as the suite's superuser with the triggers off:
    the database refuses a new seed on a frozen draw to everyone else (test_app_role_attacks)."""
    import hashlib

    from core.models import AuditEvent
    from draws.models import DrawCommitment
    from testing.db import triggers_off

    digest = hashlib.sha256(seed).hexdigest()
    action = "draw.raps_list_uploaded" if draw.method == "raps" else "draw.entries_frozen"
    events = AuditEvent.objects.filter(object_type="draws.draw", object_id=str(draw.pk), action=action)
    event = (events.order_by("-created_at", "-id") if draw.method == "raps" else events.order_by("created_at", "id"))[0]
    with triggers_off():
        Draw.objects.filter(pk=draw.pk).update(seed_hex=seed.hex(), seed_sha256=digest)
        last = DrawCommitment.objects.filter(draw=draw).order_by("-id")[0]
        DrawCommitment.objects.filter(pk=last.pk).update(seed_sha256=digest)
        AuditEvent.objects.filter(pk=event.pk).update(data={**event.data, "seed_sha256": digest})
    draw.refresh_from_db()
