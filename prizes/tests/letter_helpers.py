"""Shared pieces of the prize letter tests: a complete draw whose winners have prize lines."""

import datetime as dt

from core.audit import Actor
from draws.models import Draw, DrawPick
from draws.tests.builders import MANAGER
from prizes.lines import LineKind, LineSource, LineSpec
from prizes.services import prize_lines_store
from prizes.tests.conftest import DRAW_AT

# The test promotion collects in 15 days (the default): a draw on Wed 15 Oct 2025 is collected
# until the end of Thu 30 Oct 2025, Johannesburg time.
LAST_MOMENT = dt.datetime(2025, 10, 30, 23, 59, 59, tzinfo=DRAW_AT.tzinfo)
EXPIRES_AT = dt.datetime(2025, 10, 31, 0, 0, tzinfo=DRAW_AT.tzinfo)


def store(draw: Draw, pick: DrawPick, *specs: LineSpec):
    return prize_lines_store(actor=MANAGER, draw=draw, pick=pick, specs=list(specs))


def play(amount_cents: int) -> LineSpec:
    return LineSpec(LineKind.PLAY, amount_cents, LineSource.ADD_ON, "+Play (app)")


def place() -> LineSpec:
    return LineSpec(LineKind.PLACE, 0, LineSource.BOARD, "A place in the car draw")


def desk_actor_for(user_for) -> Actor:
    from core.roles import REWARDS_DESK

    return Actor.for_user(user_for(REWARDS_DESK))


def presented(pick: DrawPick, **overrides) -> dict:
    """What the winner presents at the desk: their card and their SA ID."""
    member = pick.member
    return {
        "pick_id": pick.pk,
        "card_number": member.card_number,
        "id_type_seen": "sa_id",
        "id_number_presented": member.id_number,
        **overrides,
    }
