"""The points ledger's indexes (issue 17, item 3; migrations 0013 and 0014): cheap to insert
into, and still bounded by time for a draw's allocation."""

import datetime as dt

import pytest
from django.db import connection

from members.tests.factories import MemberFactory

pytestmark = pytest.mark.django_db


def _indexes() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'members_pointsentry'")
        return dict(cursor.fetchall())


def test_the_ledger_is_indexed_by_member_and_by_time_in_blocks():
    indexes = _indexes()
    assert "USING btree (member_id)" in indexes["points_member_idx"]
    assert "USING brin (earned_at)" in indexes["points_time_brin"]
    assert "autosummarize='on'" in indexes["points_time_brin"]
    assert not any("(property_id, earned_at)" in definition for definition in indexes.values())


def test_a_month_of_time_ordered_points_is_read_through_the_time_index(reference_data):
    """Points arrive in daily files, so the ledger's blocks follow earned_at: a draw's period then
    reads its own blocks, not the ledger's whole history."""
    member = MemberFactory()
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO members_pointsentry (member_id, property_id, earned_at, points, reference)
               SELECT %s, %s, %s + g * interval '5 minutes', 10, 'brin-' || g FROM generate_series(1, 60000) g""",
            [member.pk, member.home_property_id, dt.datetime(2024, 1, 1, tzinfo=dt.UTC)],
        )
        cursor.execute("ANALYZE members_pointsentry")
        cursor.execute(
            "EXPLAIN SELECT member_id, sum(points) FROM members_pointsentry"
            " WHERE earned_at >= %s AND earned_at < %s GROUP BY member_id",
            [dt.datetime(2024, 4, 1, tzinfo=dt.UTC), dt.datetime(2024, 5, 1, tzinfo=dt.UTC)],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "points_time_brin" in plan, plan
