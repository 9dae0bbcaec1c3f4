# The list pages by keyset (issue 17, item 4; core.paging): an index in its order.

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0009_member_playtsogo_active_since"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddIndex(
            model_name="importjob",
            index=models.Index(fields=["-created_at", "-id"], name="import_time_key_idx"),
        ),
    ]
