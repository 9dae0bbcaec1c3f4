"""One member per document number whatever its type, and exclusions matched on the number
alone (issue 6, 2.1). Types of numbers that are valid SA IDs are corrected first."""

from django.db import migrations, models
from stdnum.za import idnr

_THIRTEEN_DIGITS = r"^[0-9]{13}$"


def correct_sa_id_types(apps, schema_editor):
    """A 13-digit number with a valid SA ID check digit and birth date is an SA ID, whatever
    type the desk picked when it was entered."""
    for model_name in ("Member", "Exclusion"):
        model = apps.get_model("members", model_name)
        rows = model.objects.filter(id_number__regex=_THIRTEEN_DIGITS).exclude(id_type="sa_id")
        ids = [pk for pk, number in rows.values_list("pk", "id_number") if idnr.is_valid(number)]
        model.objects.filter(pk__in=ids).update(id_type="sa_id")


def refuse_duplicate_numbers(apps, schema_editor):
    """Say which members share a number, instead of the database's bare unique-index error:
    they must be merged by hand before this migration can run."""
    Member = apps.get_model("members", "Member")
    duplicates = list(
        Member.objects.values("id_number")
        .annotate(n=models.Count("pk"))
        .filter(n__gt=1)
        .values_list("id_number", flat=True)[:20]
    )
    if duplicates:
        masked = ", ".join("*" * (len(n) - 4) + n[-4:] for n in duplicates)
        raise RuntimeError(
            "Members share an ID number under different ID types (numbers ending "
            f"{masked}). Merge or correct them, then migrate again."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0003_card_number_counter_row"),
    ]

    operations = [
        # The old (type, number) constraint goes first: correcting a type may make two rows
        # equal under it, and those are exactly the duplicates to report.
        migrations.RemoveConstraint(
            model_name="member",
            name="member_unique_identity",
        ),
        migrations.RunPython(correct_sa_id_types, migrations.RunPython.noop),
        migrations.RunPython(refuse_duplicate_numbers, migrations.RunPython.noop),
        migrations.RemoveIndex(
            model_name="exclusion",
            name="exclusion_identity_idx",
        ),
        migrations.RemoveIndex(
            model_name="member",
            name="member_id_number_idx",
        ),
        migrations.AddIndex(
            model_name="exclusion",
            index=models.Index(fields=["id_number"], name="exclusion_id_number_idx"),
        ),
        migrations.AddConstraint(
            model_name="member",
            constraint=models.UniqueConstraint(fields=("id_number",), name="member_unique_id_number"),
        ),
    ]
