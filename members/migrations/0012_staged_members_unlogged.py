import django.db.models.deletion
from django.db import migrations, models

# A members file's rows wait in members_importstagedmember until the file is found clean, then
# move to members_member in one statement and are deleted. Unlogged: written without WAL, like
# the temporary table of a bare COPY. A crash of PostgreSQL empties it, and that loses nothing:
# the import whose worker stopped is run again from the start, and its first step clears the
# job's staged rows anyway (members.services._import_file).


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE members_importstagedmember SET UNLOGGED")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE members_importstagedmember SET LOGGED")


class Migration(migrations.Migration):
    dependencies = [("members", "0011_points_ledger_bulk_checks")]
    operations = [
        migrations.AlterField(
            model_name="importstagedmember",
            name="job",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="members.importjob",
            ),
        ),
        migrations.RunPython(forward, backward),
    ]
