from django.db import migrations

FIRST_SERIAL = 100_000_000


def create_counter(apps, schema_editor):
    # The row exists before any desk issues a card, so two first sign-ups cannot race to create it.
    apps.get_model("members", "CardNumberCounter").objects.get_or_create(
        pk=1, defaults={"last_serial": FIRST_SERIAL - 1}
    )


class Migration(migrations.Migration):
    dependencies = [("members", "0002_trigram_name_index")]
    operations = [migrations.RunPython(create_counter, migrations.RunPython.noop)]
