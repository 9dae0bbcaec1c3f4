# The audit log pages by keyset on (created_at, id) within any filter (issue 17, item 4; core.paging).

import django.db.models.functions.datetime
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0005_audit_seal"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="auditevent",
            name="audit_action_idx",
        ),
        migrations.RemoveIndex(
            model_name="auditevent",
            name="audit_actor_idx",
        ),
        migrations.RemoveIndex(
            model_name="auditevent",
            name="audit_object_idx",
        ),
        migrations.AlterField(
            model_name="auditevent",
            name="created_at",
            field=models.DateTimeField(db_default=django.db.models.functions.datetime.Now(), editable=False),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["-created_at", "-id"], name="audit_time_key_idx"),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["action", "-created_at", "-id"], name="audit_action_key_idx"),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["actor_label", "-created_at", "-id"], name="audit_actor_key_idx"),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["object_type", "object_id", "-created_at", "-id"], name="audit_object_key_idx"),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["action"], name="audit_action_prefix_idx", opclasses=["varchar_pattern_ops"]),
        ),
    ]
