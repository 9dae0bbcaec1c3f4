"""The activation API's cost in SQL, pinned so that it cannot creep back (issue 17, item 1:
at most 6 SQL statements a request). Measured on a worker's second request, as on a busy
floor: the first one also reads the device token and the draw into the worker's copies."""

import datetime as dt

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from draws.models import Activation
from draws.tests.factories import make_draw
from draws.tests.test_api import DRAW_AT, IN_WINDOW, draw, ehost, member, post  # noqa: F401 (fixtures)
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db


def _control(sql: str) -> bool:
    """BEGIN and COMMIT, or their savepoints inside the test's own transaction."""
    return sql in ("BEGIN", "COMMIT", "ROLLBACK") or sql.startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))


def _statements(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if not _control(q["sql"])]


@pytest.fixture
def warm(ehost, draw, member):  # noqa: F811
    """The worker has served another member of the same draw already (copies filled)."""
    other = MemberFactory(card_number="5000000009")
    PointsEntryFactory(member=other, points=300, earned_at=DRAW_AT - dt.timedelta(days=1))
    with time_machine.travel(IN_WINDOW, tick=False):
        assert post(ehost, {"card_number": "5000000009", "draw_id": draw.pk}).status_code == 201
        assert ehost.get("/api/v1/members/5000000009/draws").status_code == 200
    return ehost


@time_machine.travel(IN_WINDOW, tick=False)
def test_one_activation_sends_two_statements_and_holds_the_draw_lock_for_one(warm, draw):  # noqa: F811
    with CaptureQueriesContext(connection) as queries:
        response = post(warm, {"card_number": "5000000001", "draw_id": draw.pk})
    assert response.status_code == 201, response.json()
    sent = [q["sql"] for q in queries.captured_queries]
    statements = _statements(queries)
    # The first look (which says whether to read the exclusions, and counts the member's tickets
    # with the worker's copy of the draw), and the one statement that takes the serials and writes.
    assert len(statements) == 2, "\n".join(statements)
    assert "LEFT JOIN LATERAL" in statements[0], statements[0]
    # The lock is taken by the statement that writes the activation and its audit event; after
    # it nothing but the end of its savepoint (here, inside the test's transaction).
    locked = next(i for i, sql in enumerate(sent) if "SET next_serial" in sql)
    assert "INSERT INTO draws_activation" in sent[locked] and "INSERT INTO core_auditevent" in sent[locked]
    assert all(_control(sql) for sql in sent[locked + 1 :]) and len(sent) <= locked + 2, "\n".join(sent)
    assert Activation.objects.filter(member__card_number="5000000001").count() == 1


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_refused_activation_is_as_cheap(warm, draw):  # noqa: F811
    assert post(warm, {"card_number": "5000000001", "draw_id": draw.pk}).status_code == 201
    with CaptureQueriesContext(connection) as queries:
        response = post(warm, {"card_number": "5000000001", "draw_id": draw.pk})
    assert (response.status_code, response.json()["code"]) == (409, "already_activated")
    assert len(queries.captured_queries) <= 1, "\n".join(q["sql"] for q in queries.captured_queries)


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_kiosks_open_draws_send_three_statements_for_one_draw(warm, draw):  # noqa: F811
    with CaptureQueriesContext(connection) as queries:
        response = warm.get("/api/v1/members/5000000001/draws")
    assert response.status_code == 200
    assert [row["draw_id"] for row in response.json()] == [draw.pk]
    # The member, the open draws with the member's activations (and whether an exclusion may bar
    # the member), and the allocation.
    assert len(queries.captured_queries) <= 3, "\n".join(q["sql"] for q in queries.captured_queries)


@time_machine.travel(IN_WINDOW, tick=False)
def test_two_open_draws_cost_one_statement_more_and_each_shows_its_own(warm, draw):  # noqa: F811
    other = make_draw(make_series(points_per_ticket=50), DRAW_AT + dt.timedelta(hours=1))
    assert warm.get("/api/v1/members/5000000001/draws").status_code == 200  # the new draw into the copies
    with CaptureQueriesContext(connection) as queries:
        rows = warm.get("/api/v1/members/5000000001/draws").json()
    # 420 points: 4 tickets at 100 a ticket, 8 at 50.
    assert [(row["draw_id"], row["tickets_available"]) for row in rows] == [(draw.pk, 4), (other.pk, 8)]
    assert len(queries.captured_queries) <= 4, "\n".join(q["sql"] for q in queries.captured_queries)
