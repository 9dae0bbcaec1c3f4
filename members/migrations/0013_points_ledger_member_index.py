"""The points ledger's member index keyed by member alone (issue 17, item 3).

(member_id, earned_at) had a distinct key a row. A 200,000-row file inserted in member order
touched nearly every leaf of it (301 MB at 10 M rows); with 128 MB of shared buffers that was
tens of thousands of pages dirtied and written back, and hundreds of MB of WAL (mostly full-page
images after each checkpoint) per file. points_member_idx (member_id) stores each member once
with the list of their rows (deduplication), 88 MB, and a new row's entry goes at the end of its
member's list. One member's allocation and the member page read the same rows as before and
filter earned_at.

(property_id, earned_at) stays: without it a draw's allocation reads the whole ledger whatever
its earning period, which grows with years of history (tried, and measured in bench/README.md:
dropping it too made the import faster still but left the whole-draw statement unbounded).
The new index is built before the old one goes, so readers always have one.
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
    ]
