from django.db import migrations

# The members table's index for card_number LIKE 'prefix%' (Django makes one beside the unique
# index of every CharField on PostgreSQL). Nothing searches card numbers by prefix: a swipe, the
# lookup and the lists match them whole, through the unique index. Dropped (issue 17, item 3):
# each of a members import's rows paid for it, about a fifteenth of the insert.


def _like_index(schema_editor) -> str:
    return schema_editor._create_index_name("members_member", ["card_number"], suffix="_like")


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(_like_index(schema_editor))}")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        name = schema_editor.quote_name(_like_index(schema_editor))
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON members_member (card_number varchar_pattern_ops)")


class Migration(migrations.Migration):
    dependencies = [("members", "0014_staged_member_text")]
    operations = [migrations.RunPython(forward, backward)]
