from django.db import migrations

# Two activations of one draw never share a serial: the database refuses overlapping ranges
# (PostgreSQL only; the serial counter's row lock already prevents it on every database).


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS btree_gist")
        schema_editor.execute(
            "ALTER TABLE draws_activation ADD CONSTRAINT activation_serials_disjoint "
            "EXCLUDE USING gist (draw_id WITH =, int8range(first_serial, last_serial, '[]') WITH &&)"
        )


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE draws_activation DROP CONSTRAINT IF EXISTS activation_serials_disjoint")


class Migration(migrations.Migration):
    dependencies = [("draws", "0002_initial")]
    operations = [migrations.RunPython(forward, backward)]
