"""Draws with entries, made quickly for the draw engine's tests: activations written straight
to the table (the engine only reads them), then the real window close freezes the entries."""

import datetime as dt

from core.audit import Actor
from draws.models import Activation, Channel, Draw
from draws.services import draw_close_window
from members.models import Member
from members.tests.factories import MemberFactory
from promotions.models import DrawSeries
from promotions.tests.factories import make_draw

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
    series: DrawSeries, at: dt.datetime, tickets: list[int], members: list[Member] | None = None
) -> tuple[Draw, list[Member]]:
    """A draw at `at` whose entries (one activation per number in `tickets`) are frozen."""
    draw = make_draw(series, at)
    members = add_entries(draw, tickets, members)
    assert draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    draw.refresh_from_db()
    return draw, members


def pin_seed(draw: Draw, wanted, picks: int = 3) -> None:
    """Give a closed draw a seed whose first `picks` serials satisfy `wanted(serials)`, so a test
    can stage "the winner is drawn again" without depending on chance."""
    import hashlib

    from draws.selection import electronic_serial

    for i in range(100_000):
        seed = i.to_bytes(32, "big")
        serials = [
            electronic_serial(seed=seed, entries_sha256=draw.entries_sha256, k=k, tickets_total=draw.tickets_total)
            for k in range(1, picks + 1)
        ]
        if wanted(serials):
            Draw.objects.filter(pk=draw.pk).update(seed_hex=seed.hex(), seed_sha256=hashlib.sha256(seed).hexdigest())
            draw.refresh_from_db()
            return
    raise AssertionError("No seed gives those serials.")
