import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("draws", "0005_draw_one_draw_per_series_per_moment"),
    ]

    operations = [
        migrations.CreateModel(
            name="DrawStanding",
            fields=[
                (
                    "draw",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="standing",
                        serialize=False,
                        to="draws.draw",
                    ),
                ),
                ("computed_at", models.DateTimeField(blank=True, null=True)),
                (
                    "requested_at",
                    models.DateTimeField(blank=True, help_text="Queued for recounting since.", null=True),
                ),
                ("members", models.PositiveIntegerField(default=0)),
                ("members_with_tickets", models.PositiveIntegerField(default=0)),
                ("tickets", models.PositiveBigIntegerField(default=0)),
                ("top", models.JSONField(default=list)),
                (
                    "error",
                    models.TextField(blank=True, help_text="Why the last count failed (e.g. an unreadable rule)."),
                ),
            ],
        ),
    ]
