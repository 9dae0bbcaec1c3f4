"""A RAPS upload qualifies its list without holding the draw's lock (issue 13, item 12): the tick
and the draw page are not kept waiting while 100,000 rows are checked. Under the lock the status
and the previous list are checked again. Real connections: the check is made from another one."""

import threading

import pytest
from django.db import DatabaseError, connection, transaction

from draws import raps
from draws.models import Draw, DrawStatus, RapsList
from draws.tests.raps_fixtures import closed_session, csv_text, floor_players, floor_rows, upload
from testing.db import triggers_off

pytestmark = pytest.mark.django_db(transaction=True)


def lock_from_another_connection(draw_id: int) -> str:
    """Try to take the draw's row lock at once from another connection: "free" or "locked"."""
    found = {}

    def probe():
        try:
            with transaction.atomic():
                Draw.objects.select_for_update(nowait=True).filter(pk=draw_id).first()
            found["lock"] = "free"
        except DatabaseError:
            found["lock"] = "locked"
        finally:
            connection.close()

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join(timeout=30)
    return found["lock"]


def test_the_list_is_qualified_while_the_draw_is_not_locked(reference_data, monkeypatch):
    draw = closed_session()
    real_qualify = raps.raps_qualify
    seen = []

    def qualify_and_probe(**kwargs):
        seen.append(lock_from_another_connection(draw.pk))
        return real_qualify(**kwargs)

    monkeypatch.setattr(raps, "raps_qualify", qualify_and_probe)
    raps_list = upload(draw, csv_text(*floor_rows(floor_players())))
    assert seen == ["free"]
    assert raps_list.entries.count() == 10


def test_a_draw_started_while_the_list_was_qualified_refuses_it_under_the_lock(reference_data, monkeypatch):
    draw = closed_session()
    real_qualify = raps.raps_qualify

    def qualify_while_the_draw_starts(**kwargs):
        result = real_qualify(**kwargs)
        with triggers_off():  # as if another manager's upload and Start came in between
            Draw.objects.filter(pk=draw.pk).update(status=DrawStatus.RUNNING)
        return result

    monkeypatch.setattr(raps, "raps_qualify", qualify_while_the_draw_starts)
    with pytest.raises(raps.DomainError) as refused:
        upload(draw, csv_text(*floor_rows(floor_players())))
    assert refused.value.code == "raps_not_open"
    assert not RapsList.objects.filter(draw=draw).exists()
