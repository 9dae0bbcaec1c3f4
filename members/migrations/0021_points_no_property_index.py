"""The points ledger loses its property index (issue 17, item 3).

Every imported row paid an entry in points_property_idx (0.6-0.9 s of the floor's 5.9 s of CPU
for 200,000 rows, measured under load; quiet runs showed no difference beyond their noise). Nothing
needs it since 0019: the primary key (property_id, reference, earned_at) leads
with property_id, so a property's rows in a month are found through the key, and a draw's
allocation reads its earning period's months (0018) mostly in sequence anyway. Reversed, the
index is built again on every month.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0020_points_refs_check_by_merge"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="pointsentry", name="points_property_idx"),
    ]
