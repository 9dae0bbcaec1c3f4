"""A BRIN index on the points ledger's earned_at (issue 17, item 3, after 0013).

0013 left the ledger with no index by time, so a draw's whole-draw allocation reads the whole
ledger whatever its earning period: it would grow with years of history, not with the period.
Points arrive in daily files, so the ledger's physical order follows earned_at, and a BRIN index
(a few pages for the whole table: one summary per 128 pages) lets that statement skip the blocks
of other months. Inserting costs next to nothing (at most the last range's summary), unlike the
btree on (property_id, earned_at) that 0013 dropped for the import's sake. Where the rows are not
in time order (bench/fill.py writes them at random) PostgreSQL's estimate sees it and scans the
table as before. autosummarize: autovacuum summarises each new range as it fills; until then an
unsummarised range is always read, so a query never misses rows.
"""

from django.db import migrations

from core.migration_sql import postgresql_only

FORWARD = """
CREATE INDEX points_time_brin ON @schema@.members_pointsentry USING brin (earned_at) WITH (autosummarize = on);
"""
BACKWARD = "DROP INDEX IF EXISTS @schema@.points_time_brin;"


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0013_points_ledger_member_index"),
    ]

    operations = [
        postgresql_only(FORWARD, BACKWARD, in_schema=True),
    ]
