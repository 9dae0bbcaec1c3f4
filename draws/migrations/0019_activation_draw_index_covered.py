"""Issue 17: the activation table's index on draw_id alone goes; the unique index of
activation_first_serial (draw_id, first_serial) leads with draw_id and serves every read by draw
(and the foreign key's checks). One fewer index entry written under the draw's row lock."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("draws", "0018_draw_guard_counter_fast_path"),
    ]

    operations = [
        migrations.AlterField(
            model_name="activation",
            name="draw",
            field=models.ForeignKey(
                db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="activations", to="draws.draw"
            ),
        ),
    ]
