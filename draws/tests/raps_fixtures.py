"""A RAPS session closed at its start (the decline register's end), members to put on its
list, and the list as CSV text: shared by the test_raps*.py files."""

import datetime as dt

from core.audit import Actor
from draws.models import Draw, DrawPick
from draws.raps import raps_list_upload
from draws.services import draw_close_window
from draws.tests.factories import make_draw
from members.models import Tier
from members.tests.factories import MemberFactory
from promotions.tests.factories import make_series
from testing.db import triggers_off

SAST = dt.timezone(dt.timedelta(hours=2))
SESSION = dt.datetime(2026, 7, 4, 18, 0, tzinfo=SAST)  # Prive Powerplay's first RAPS Saturday
UPLOAD_AT = SESSION + dt.timedelta(minutes=5)
HEADER = "card_number,device_type,device_id,spend\n"
ACTOR = Actor.system("test")


def raps_series(*, winners: int = 10, tiers=("TEN", "JACK", "QUEEN", "KING", "ACE"), **fields):
    series = make_series(
        tiers=tiers, desk_tiers=(), windows=[{"day": 0, "open": "08:00", "close_before": 0}], period_kind="none"
    )
    for name, value in {"method": "raps", "winners_per_draw": winners, "win_once_scope": "session", **fields}.items():
        setattr(series, name, value)
    series.save()
    return series


def closed_session(series=None, at: dt.datetime = SESSION) -> Draw:
    """A RAPS draw whose decline register closed at its start: the tick has closed it."""
    draw = make_draw(series or raps_series(), at)
    assert draw_close_window(draw_id=draw.pk, now=at)
    return Draw.objects.get(pk=draw.pk)


def player(card: str, tier: str = "ACE", **kwargs):
    return MemberFactory(card_number=card, tier=Tier.objects.get(code=tier), **kwargs)


def csv_text(*rows: str) -> str:
    return HEADER + "".join(f"{row}\n" for row in rows)


def upload(draw: Draw, text: str, **overrides):
    arguments = {
        "actor": ACTOR,
        "draw_id": draw.pk,
        "file_name": "session.csv",
        "text": text,
        "min_spend_cents": 0,
        "excluded_devices": [],
        "slot_quota": 6,
        "table_quota": 4,
        "now": UPLOAD_AT,
    } | overrides
    return raps_list_upload(**arguments)


def make_pick(draw: Draw, member) -> DrawPick:
    """A pick written directly, as the engine would record one (in a session that is only closed:
    the database takes a pick only while the draw runs, so the triggers are off for it)."""
    with triggers_off():
        return DrawPick.objects.create(
            draw=draw,
            seq=1,
            pool="slot",
            k=1,
            serial=1,
            member=member,
            card_number=member.card_number,
            picked_at=UPLOAD_AT,
            picked_by="manager",
        )


def floor_players():
    """Six slot and four table players, enough for the 6 + 4 quotas (see floor_rows)."""
    return [player(f"70000000{n:02d}") for n in range(10)]


def floor_rows(members) -> list[str]:
    return [f"{m.card_number},slot,S{n},100.00" for n, m in enumerate(members[:6])] + [
        f"{m.card_number},table,T{n},100.00" for n, m in enumerate(members[6:])
    ]
