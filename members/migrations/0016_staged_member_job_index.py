# The staged members need no index on job alone: both of the table's indexes lead with job_id,
# and each index costs every staged row (issue 17, item 3).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0015_drop_card_number_like_index"),
    ]

    operations = [
        migrations.AlterField(
            model_name="importstagedmember",
            name="job",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="members.importjob",
            ),
        ),
    ]
