# The list pages by keyset (issue 17, item 4; core.paging): an index in its order.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("draws", "0016_winners_wanted_raised"),
        ("members", "0010_list_keyset_index"),
        ("promotions", "0004_collection_rules"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="draw",
            index=models.Index(fields=["scheduled_at", "id"], name="draw_time_key_idx"),
        ),
    ]
