"""PostgreSQL itself keeps a complete draw's prize lines as they are (migration 0002), whoever
asks: each attempt runs AS THE APPLICATION'S DATABASE ROLE (core/tests/test_audit_role.py).
A correction is a reversing line of exactly the negative amount."""

import pytest
from django.db import DatabaseError

from core.tests.test_audit_role import as_app_role
from draws.tests.builders import MANAGER
from prizes.models import PrizeLine
from prizes.services import prize_lines_store
from prizes.tests.conftest import cash

pytestmark = pytest.mark.django_db

REFUSED = "refused"


def attempt(sql: str, params=()) -> None:
    with pytest.raises(DatabaseError, match=REFUSED), as_app_role() as cursor:
        cursor.execute(sql, params)


@pytest.fixture
def line_of_complete(complete) -> PrizeLine:
    draw, winner, _ = complete
    return prize_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[cash(800_000)])[0]


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE prizes_prizeline SET amount_cents = 8000000 WHERE id = %s",
        "UPDATE prizes_prizeline SET words = 'Podium 1' WHERE id = %s",
        "DELETE FROM prizes_prizeline WHERE id = %s",
    ],
)
def test_a_line_of_a_complete_draw_is_never_changed_or_deleted(line_of_complete, sql):
    attempt(sql, [line_of_complete.pk])
    assert PrizeLine.objects.get(pk=line_of_complete.pk).amount_cents == 800_000


INSERT = (
    "INSERT INTO prizes_prizeline (draw_id, pick_id, member_id, kind, amount_cents, source, words, data, "
    "reverses_id, reason, created_at, created_by) VALUES (%s, %s, %s, %s, %s, %s, 'x', '{}', %s, %s, now(), 'sql')"
)


@pytest.mark.parametrize(
    ("kind", "amount"),
    [("cash", -8_000_000), ("cash", -1), ("play", -800_000)],  # more, less, another kind
)
def test_a_reversal_is_exactly_the_negative_of_its_line(line_of_complete, kind, amount):
    line = line_of_complete
    attempt(INSERT, [line.draw_id, line.pick_id, line.member_id, kind, amount, "reversal", line.pk, "Because."])


def test_the_exact_reversal_is_accepted(line_of_complete):
    line = line_of_complete
    with as_app_role() as cursor:
        cursor.execute(
            INSERT, [line.draw_id, line.pick_id, line.member_id, "cash", -800_000, "reversal", line.pk, "Because."]
        )
    assert PrizeLine.objects.filter(reverses=line).exists()


def test_a_line_names_a_pick_of_its_own_draw_and_its_member(line_of_complete, running):
    line = line_of_complete
    other_member = type(line.member).objects.exclude(pk=line.member_id).first()
    attempt(INSERT, [line.draw_id, line.pick_id, other_member.pk, "cash", 100, "board", None, ""])


def test_no_line_before_the_draw_starts(reference_data):
    from draws.models import Activation
    from draws.tests.builders import closed_draw
    from prizes.tests.conftest import DRAW_AT
    from promotions.tests.factories import make_series

    draw, [member] = closed_draw(make_series(), DRAW_AT, [3])
    # No pick exists before the start: any pick id is refused first by the draw's status.
    attempt(INSERT, [draw.pk, 1, member.pk, "cash", 100, "board", None, ""])
    assert Activation.objects.filter(draw=draw).exists()


def test_a_running_draws_line_may_still_be_changed(running):
    draw, winner = running
    [line] = prize_lines_store(actor=MANAGER, draw=draw, pick=winner, specs=[cash(800_000)])
    with as_app_role() as cursor:
        cursor.execute("UPDATE prizes_prizeline SET amount_cents = 700000 WHERE id = %s", [line.pk])
    assert PrizeLine.objects.get(pk=line.pk).amount_cents == 700_000
