"""The points ledger's indexes (issue 17, item 3; migration 0013): the member's keyed by member
alone, and a draw's allocation still bounded by its earning period."""

import datetime as dt

import pytest
from django.db import connection

from members.tests.factories import MemberFactory

pytestmark = pytest.mark.django_db


def test_the_ledger_is_indexed_by_member_and_by_property_and_time():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'members_pointsentry'")
        indexes = dict(cursor.fetchall())
    assert indexes["points_member_idx"].endswith("USING btree (member_id)")
    assert indexes["points_property_time_idx"].endswith("USING btree (property_id, earned_at)")
    assert "points_member_time_idx" not in indexes


def test_a_draws_period_is_read_through_the_property_and_time_index(reference_data):
    """Years of history do not make a draw's allocation read them all."""
    member = MemberFactory()
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO members_pointsentry (member_id, property_id, earned_at, points, reference)
               SELECT %s, %s, %s + g * interval '30 minutes', 10, 'history-' || g FROM generate_series(1, 40000) g""",
            [member.pk, member.home_property_id, dt.datetime(2024, 1, 1, tzinfo=dt.UTC)],
        )
        cursor.execute("ANALYZE members_pointsentry")
        cursor.execute(
            "EXPLAIN SELECT member_id, sum(points) FROM members_pointsentry"
            " WHERE property_id = %s AND earned_at >= %s AND earned_at < %s GROUP BY member_id",
            [member.home_property_id, dt.datetime(2025, 3, 1, tzinfo=dt.UTC), dt.datetime(2025, 3, 8, tzinfo=dt.UTC)],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "points_property_time_idx" in plan, plan
