"""RAPS sessions in the engine (DRAWS.md §5): pools drawn to their quotas with k per pool, and
a player who is the registered proxy of another participant is redrawn (the gap issue 7 left)."""

import datetime as dt

import pytest
import time_machine

from draws.engine import draw_start, pick_outcome_record
from draws.models import Draw, DrawPick, DrawStatus, PickOutcome, RapsEntry, RapsPool
from draws.selection import raps_row
from draws.services import draw_close_window
from draws.tests.builders import MANAGER, rig_seed
from draws.tests.factories import make_draw
from draws.tests.raps_fixtures import SESSION, UPLOAD_AT, closed_session, csv_text, player, raps_series, upload
from proxies.tests.factories import nominate

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def during_the_session():
    with time_machine.travel(UPLOAD_AT + dt.timedelta(minutes=1), tick=False):
        yield


def slot_and_table_players(slots: int, tables: int) -> list[str]:
    rows = [f"{player(f'71000000{n:02d}').card_number},slot,S{n:02d},500.00" for n in range(slots)]
    rows += [f"{player(f'72000000{n:02d}').card_number},table,T{n:02d},500.00" for n in range(tables)]
    return rows


def pin_raps_seed(draw: Draw, pool: str, row: int) -> None:
    """A seed whose pick k=1 of `pool` is `row`, so the test knows who is drawn first."""
    size = RapsEntry.objects.filter(raps_list__draw=draw, pool=pool).count()
    for i in range(100_000):
        seed = i.to_bytes(32, "big")
        if raps_row(seed=seed, list_sha256=draw.entries_sha256, pool=pool, k=1, pool_size=size) == row:
            rig_seed(draw, seed)
            return
    raise AssertionError("no seed found")


def run(draw: Draw) -> Draw:
    while (pick := DrawPick.objects.filter(draw=draw, outcome="").first()) is not None:
        pick_outcome_record(
            actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
        )
    return Draw.objects.get(pk=draw.pk)


def test_slots_are_drawn_to_their_quota_then_tables_each_with_its_own_k(reference_data):
    draw = closed_session(raps_series(winners=5))
    upload(draw, csv_text(*slot_and_table_players(4, 3)), slot_quota=3, table_quota=2)
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    draw = run(draw)
    picks = list(draw.picks.all())
    assert draw.status == DrawStatus.DRAWN and draw.winners_wanted == 5
    pools = [p.pool for p in picks if p.is_winner()]
    assert pools == [RapsPool.SLOT] * 3 + [RapsPool.TABLE] * 2
    for pool in (RapsPool.SLOT, RapsPool.TABLE):
        in_pool = [p for p in picks if p.pool == pool]
        assert [p.k for p in in_pool] == list(range(1, len(in_pool) + 1))
        size = RapsEntry.objects.filter(raps_list__draw=draw, pool=pool).count()
        seed = bytes.fromhex(draw.seed_hex)
        assert all(
            p.serial == raps_row(seed=seed, list_sha256=draw.entries_sha256, pool=pool, k=p.k, pool_size=size)
            for p in in_pool
        )
        rows = {e.row: e.member_id for e in RapsEntry.objects.filter(raps_list__draw=draw, pool=pool)}
        assert all(rows[p.serial] == p.member_id for p in in_pool)


def test_a_pool_whose_players_have_all_won_is_passed_over(reference_data):
    draw = closed_session(raps_series(winners=3))
    upload(draw, csv_text(*slot_and_table_players(1, 3)), slot_quota=2, table_quota=1)
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    draw = run(draw)
    winners = [p for p in draw.picks.all() if p.is_winner()]
    # One slot player can win once: the second slot place is not filled; the table's is.
    assert [p.pool for p in winners] == [RapsPool.SLOT, RapsPool.TABLE]
    assert draw.status == DrawStatus.RUNNING  # the manager ends it with the reason


def test_the_proxy_of_another_participant_playing_in_the_session_is_redrawn(reference_data):
    series = raps_series(winners=2)
    with time_machine.travel(SESSION - dt.timedelta(hours=6), tick=False):
        draw = make_draw(series, SESSION)
        participant = player("7300000001")
        nominee = player("7300000002")
        # Through the desk's service: RAPS participants have no tickets; the nominee has none either.
        nomination = nominate(participant=participant, draw=draw, nominee=nominee)
    assert nomination.nominee_member == nominee
    with time_machine.travel(SESSION, tick=False):
        assert draw_close_window(draw_id=draw.pk)
    rows = [f"{nominee.card_number},slot,S01,900.00", *slot_and_table_players(3, 2)]
    upload(draw, csv_text(*rows), slot_quota=1, table_quota=1)
    draw.refresh_from_db()
    nominee_row = RapsEntry.objects.get(raps_list__draw=draw, member=nominee).row
    pin_raps_seed(draw, RapsPool.SLOT, nominee_row)
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    first = draw.picks.get(seq=1)
    assert (first.member, first.outcome) == (nominee, PickOutcome.REDRAW_IS_PROXY)
    assert participant.card_number in first.reason
    assert draw.picks.get(seq=2).member != nominee


def test_a_started_sessions_list_is_kept_by_the_database(reference_data):
    from django.db import DatabaseError, connection, transaction

    draw = closed_session(raps_series(winners=2))
    upload(draw, csv_text(*slot_and_table_players(3, 2)), slot_quota=1, table_quota=1)
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    for statement in (
        "UPDATE draws_rapsentry SET member_id = member_id WHERE raps_list_id IN "
        "(SELECT id FROM draws_rapslist WHERE draw_id = %s)",
        "DELETE FROM draws_rapslist WHERE draw_id = %s",
    ):
        with pytest.raises(DatabaseError, match="has started"), transaction.atomic(), connection.cursor() as c:
            c.execute(statement, [draw.pk])
