"""The points ledger with one secondary index besides its unique reference (issue 17, item 3).

Both (member_id, earned_at) and (property_id, earned_at) had a distinct key a row. A 200,000-row
file inserted in member order touched nearly every leaf of the first (301 MB at 10 M rows), and
in random order the recent end of the second; with 128 MB of shared buffers that was about
50,000 pages dirtied and written back, and 370-400 MB of WAL (mostly full-page images after
each checkpoint) per file. Now:

- points_member_idx (member_id): PostgreSQL stores each member once with the list of their rows
  (deduplication), 88 MB, and a new row's entry goes at the end of its member's list. One
  member's allocation and the member page read the same rows as before and filter earned_at.
- no index by property and time: a draw's allocation reads a quarter of the ledger at the
  bench's size (one property of four, a period as long as the history), which a parallel
  sequential scan reads as fast as the index did. The price: the whole-draw statement now reads
  the whole ledger whatever the period, so it grows with the ledger's history, not the period's
  rows (partitioning the ledger by month would bound it again).

A file now dirties about 25,000 pages and writes 80-200 MB of WAL, and the statement takes a
quarter less CPU (bench/README.md). The new index is built before the old ones go, so readers
always have one.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0012_staged_members_unlogged"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="pointsentry",
            index=models.Index(fields=["member"], name="points_member_idx"),
        ),
        migrations.RemoveIndex(
            model_name="pointsentry",
            name="points_member_time_idx",
        ),
        migrations.RemoveIndex(
            model_name="pointsentry",
            name="points_property_time_idx",
        ),
    ]
