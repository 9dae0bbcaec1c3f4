import django.utils.timezone
from django.db import migrations, models


def active_since_today(apps, schema_editor):
    """A member marked active on online betting (playTSOGO) before the date was kept is known to
    be active today, no earlier: his add-ons count from today."""
    Member = apps.get_model("members", "Member")
    Member.objects.filter(online_betting_active=True).update(playtsogo_active_since=django.utils.timezone.localdate())


def active_again(apps, schema_editor):
    Member = apps.get_model("members", "Member")
    Member.objects.filter(playtsogo_active_since__isnull=False).update(online_betting_active=True)


class Migration(migrations.Migration):
    dependencies = [("members", "0008_member_contact_permission_and_row_text")]

    operations = [
        migrations.AddField(
            model_name="member",
            name="playtsogo_active_since",
            field=models.DateField(
                blank=True,
                help_text="Registered and active on playTSOGO online betting since; empty: not active.",
                null=True,
            ),
        ),
        migrations.RunPython(active_since_today, active_again),
        migrations.RemoveField(model_name="member", name="online_betting_active"),
    ]
