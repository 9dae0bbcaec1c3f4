"""The points ledger's two secondary indexes with few distinct keys (issue 17, item 3).

(member_id, earned_at) and (property_id, earned_at) had a distinct key a row: a 200,000-row file
sorted by member touched nearly every leaf of the first (301 MB at 10 M rows) and, in random
order, the recent end of the second; with 128 MB of shared buffers that was about 140,000
pages dirtied and 450 MB of WAL (mostly full-page images) per file. Keyed by member_id alone,
and by property_id and the UTC day, PostgreSQL deduplicates the keys (88 MB and 67 MB) and a
new row's entry joins the end of its key's list of rows: about 26,000 pages dirtied, 2.5 times
less WAL, a third less CPU. The readers filter earned_at on the rows they fetch; a draw's
allocation bounds its period by day to use points_property_day_idx (draws.allocation).

The new indexes are built before the old ones go, so readers always have one.
"""

from django.db import migrations, models

import core.db_functions


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0012_staged_members_unlogged"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="pointsentry",
            index=models.Index(fields=["member"], name="points_member_idx"),
        ),
        migrations.AddIndex(
            model_name="pointsentry",
            index=models.Index(
                models.F("property"), core.db_functions.UtcDate("earned_at"), name="points_property_day_idx"
            ),
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
