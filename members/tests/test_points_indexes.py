"""The points ledger's layout (issue 17, item 3; migrations 0013, 0018, 0019, 0021, 0022): partitioned by
month of earned_at, the member's index keyed by member alone, no property index (the key leads with
property_id), and a draw's allocation bounded by its earning period: it reads the period's months
only."""

import datetime as dt
import threading
import time

import pytest
from django.db import IntegrityError, connection, transaction

from members.tests.factories import MemberFactory

pytestmark = pytest.mark.django_db


def partition_of(cursor, reference: str) -> str:
    cursor.execute("SELECT tableoid::regclass::text FROM members_pointsentry WHERE reference = %s", [reference])
    return cursor.fetchone()[0]


def test_the_ledger_is_partitioned_by_month_keyed_by_reference_and_indexed_by_member():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_partkeydef('members_pointsentry'::regclass)")
        assert cursor.fetchone()[0] == "RANGE (earned_at)"
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'members_pointsentry'")
        indexes = dict(cursor.fetchall())
    assert indexes["points_member_idx"].endswith("USING btree (member_id)")
    # The casino's reference is the primary key (migration 0019): no id, no index of its own.
    assert indexes["members_pointsentry_pkey"].endswith("USING btree (property_id, reference, earned_at)")
    assert "CREATE UNIQUE INDEX" in indexes["members_pointsentry_pkey"]
    assert len(indexes) == 2, indexes  # no points_property_idx (0021): the key leads with property_id
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = 'members_pointsentry'::regclass"
            " AND attnum > 0 AND NOT attisdropped"
        )
        assert "id" not in {name for (name,) in cursor.fetchall()}


def test_the_staged_points_have_no_reference_index_on_postgresql():
    """Migration 0022: the whole-file statements never use it, and every staged row paid for it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'members_importstagedpoints'")
        assert {name for (name,) in cursor.fetchall()} == {"members_importstagedpoints_pkey"}


def test_a_draws_period_reads_only_its_months(reference_data):
    """Years of history do not make a draw's allocation read them all."""
    member = MemberFactory()
    start = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT members_points_month(m) FROM generate_series(%s, %s, interval '1 month') m",
            [start, dt.datetime(2026, 4, 1, tzinfo=dt.UTC)],
        )
        cursor.execute(
            """INSERT INTO members_pointsentry (member_id, property_id, earned_at, points, reference)
               SELECT %s, %s, %s + g * interval '30 minutes', 10, 'history-' || g FROM generate_series(1, 40000) g""",
            [member.pk, member.home_property_id, start],
        )
        cursor.execute("ANALYZE members_pointsentry")
        cursor.execute(
            "EXPLAIN SELECT member_id, sum(points) FROM members_pointsentry"
            " WHERE property_id = %s AND earned_at >= %s AND earned_at < %s GROUP BY member_id",
            [member.home_property_id, dt.datetime(2025, 3, 1, tzinfo=dt.UTC), dt.datetime(2025, 3, 8, tzinfo=dt.UTC)],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
        assert partition_of(cursor, "history-1") == "members_pointsentry_2024_01"
    assert "members_pointsentry_2025_03" in plan, plan
    assert "members_pointsentry_2025_02" not in plan and "members_pointsentry_2025_04" not in plan, plan
    assert "members_pointsentry_default" not in plan, plan


def test_a_row_of_a_month_not_yet_made_waits_in_the_default_partition_until_it_is(reference_data):
    member = MemberFactory()
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO members_pointsentry (member_id, property_id, earned_at, points, reference)"
            " VALUES (%s, %s, '2019-05-31 23:00:00+00', 10, 'early')",
            [member.pk, member.home_property_id],
        )
        assert partition_of(cursor, "early") == "members_pointsentry_default"
        cursor.execute("SELECT members_points_month('2019-05-31 23:30:00+00')::text")
        assert cursor.fetchone()[0] == "members_pointsentry_2019_05"
        assert partition_of(cursor, "early") == "members_pointsentry_2019_05"
        cursor.execute("SELECT members_points_month('2019-05-01 00:00:00+00')::text")  # made once
        assert cursor.fetchone()[0] == "members_pointsentry_2019_05"
        cursor.execute("SELECT count(*) FROM members_pointsentry_default")
        assert cursor.fetchone()[0] == 0


@pytest.mark.django_db(transaction=True)
def test_two_sessions_making_the_same_month_at_once_both_get_it():
    """Both find it missing, one makes it; the other waits on the ledger's lock, then finds it."""
    both_looked = threading.Barrier(2, timeout=30)
    made, failures = [], []

    def make() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                both_looked.wait()
                cursor.execute("SELECT members_points_month('2018-02-10 12:00:00+00')::text")
                made.append(cursor.fetchone()[0])
                time.sleep(0.2)  # the month made but not committed: the other session waits for it
        except Exception as error:
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=make) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    assert made == ["members_pointsentry_2018_02"] * 2


def test_a_month_made_after_the_ledger_was_keyed_refuses_a_reference_twice_at_one_moment(reference_data):
    """The primary key (property, reference, earned_at) reaches the partitions members_points_month makes."""
    member = MemberFactory()
    insert = (
        "INSERT INTO members_pointsentry (member_id, property_id, earned_at, points, reference)"
        " VALUES (%s, %s, '2017-08-09 10:00:00+00', 10, 'twice')"
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT members_points_month('2017-08-09 10:00:00+00')::text")
        assert cursor.fetchone()[0] == "members_pointsentry_2017_08"
        cursor.execute(insert, [member.pk, member.home_property_id])
        with pytest.raises(IntegrityError, match="members_pointsentry_2017_08_pkey"), transaction.atomic():
            cursor.execute(insert, [member.pk, member.home_property_id])
