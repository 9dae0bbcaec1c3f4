import django.db.models.deletion
from django.db import migrations, models

# A plain members file's rows, cell by cell as the file has them (issue 17, item 3): COPY writes
# them here and one statement checks them (members.imports). Unlogged, like the other staging
# tables: a crash of PostgreSQL empties it, and the import whose worker stopped is run again from
# the start, whose first step clears the job's staged rows anyway.


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE members_importstagedmembertext SET UNLOGGED")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE members_importstagedmembertext SET LOGGED")


class Migration(migrations.Migration):
    dependencies = [("members", "0013_points_ledger_member_index")]

    operations = [
        migrations.CreateModel(
            name="ImportStagedMemberText",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("line", models.PositiveIntegerField()),
                ("plain", models.BooleanField()),
                ("card_number", models.TextField()),
                ("first_name", models.TextField()),
                ("last_name", models.TextField()),
                ("id_type", models.TextField()),
                ("id_number", models.TextField()),
                ("date_of_birth", models.TextField()),
                ("tier", models.TextField()),
                ("property", models.TextField()),
                ("phone", models.TextField()),
                ("email", models.TextField()),
                ("app_registered_on", models.TextField()),
                (
                    "job",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="members.importjob",
                    ),
                ),
            ],
        ),
        migrations.RunPython(forward, backward),
    ]
