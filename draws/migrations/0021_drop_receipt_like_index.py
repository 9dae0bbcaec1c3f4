from django.db import migrations

# The activation table's index for receipt_number LIKE 'prefix%' (Django makes one beside the
# unique index of every CharField on PostgreSQL). Nothing searches receipts by prefix: a receipt
# is found whole, through the unique index. Dropped (issue 17, item 1): every activation wrote an
# entry into it under the draw's row lock. As members 0015 did for card numbers.


def _like_index(schema_editor) -> str:
    return schema_editor._create_index_name("draws_activation", ["receipt_number"], suffix="_like")


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(_like_index(schema_editor))}")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        name = schema_editor.quote_name(_like_index(schema_editor))
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON draws_activation (receipt_number varchar_pattern_ops)"
        )


class Migration(migrations.Migration):
    dependencies = [("draws", "0020_activation_epoch")]
    operations = [migrations.RunPython(forward, backward)]
