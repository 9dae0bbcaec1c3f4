from django.db import migrations

# Partial-name lookup at the desk: search_name LIKE '%word%' uses this trigram index on
# PostgreSQL (about a millisecond among a million members instead of a full scan).
# SQLite, the zero-setup default of `make run`, has no trigram indexes and scans instead.


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS member_search_name_trgm ON members_member USING gin (search_name gin_trgm_ops)"
        )


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS member_search_name_trgm")


class Migration(migrations.Migration):
    dependencies = [("members", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
