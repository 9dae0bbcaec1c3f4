"""A member's tier and properties without per-row foreign keys (issue 17, item 3; migration
0017): the statement's triggers refuse what a foreign key refused, with its error code."""

import pytest
from django.db import IntegrityError, connection, transaction

from members.models import Member, Property, Tier
from members.tests.factories import MemberFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's triggers"),
]

MISSING = 987654321


def insert_copy(member: Member, **changes) -> None:
    """One INSERT ... SELECT of a copy of `member` (a new card and number), as an import writes."""
    columns = {"tier_id": "tier_id", "home_property_id": "home_property_id", "playing_property_id": "NULL"}
    columns |= dict.fromkeys(changes, "%s")
    sql = (
        "INSERT INTO members_member (card_number, first_name, last_name, search_name, id_type, id_number,"  # noqa: S608
        f" date_of_birth, phone, email, playing_now, created_at, {', '.join(columns)})"
        " SELECT card_number || '9', first_name, last_name, search_name, id_type, id_number || '9',"
        f" date_of_birth, phone, email, false, created_at, {', '.join(columns.values())}"
        " FROM members_member WHERE id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*changes.values(), member.pk])


def test_a_member_of_no_tier_or_property_is_refused(reference_data):
    member = MemberFactory()
    for changes, missing in (
        ({"tier_id": MISSING}, "tier"),
        ({"home_property_id": MISSING}, "property"),
        ({"playing_property_id": MISSING}, "property"),
    ):
        with pytest.raises(IntegrityError, match=f"{missing} {MISSING} does not exist"), transaction.atomic():
            insert_copy(member, **changes)
    for field in ("tier_id", "home_property_id", "playing_property_id"):
        with pytest.raises(IntegrityError, match=f"{MISSING} does not exist"), transaction.atomic():
            Member.objects.filter(pk=member.pk).update(**{field: MISSING})
    insert_copy(member, playing_property_id=member.home_property_id)  # what exists goes in
    assert Member.objects.count() == 2


def test_a_tier_or_property_a_member_names_cannot_be_deleted(reference_data):
    member = MemberFactory()
    playing = Property.objects.exclude(pk=member.home_property_id).first()
    Member.objects.filter(pk=member.pk).update(playing_property=playing)
    for table, pk in (
        ("members_tier", member.tier_id),
        ("members_property", member.home_property_id),
        ("members_property", playing.pk),
    ):
        refused = pytest.raises(IntegrityError, match="is still named by members_member")
        with refused, transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {table} WHERE id = %s", [pk])  # noqa: S608
    # Django sets playing_property to NULL first (SET_NULL), then the property may go.
    playing.delete()
    member.refresh_from_db()
    assert member.playing_property_id is None
    assert Tier.objects.filter(pk=member.tier_id).exists()


def test_the_control_without_the_statement_trigger_a_member_of_no_tier_gets_in(reference_data):
    """What refuses it is the trigger: no foreign key does any more."""
    member = MemberFactory()
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE members_member DISABLE TRIGGER members_member_refs_insert")
    insert_copy(member, tier_id=MISSING)
    assert Member.objects.filter(tier_id=MISSING).exists()


def test_only_members_playing_now_are_in_the_playing_property_index():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'members_member'")
        indexes = dict(cursor.fetchall())
    partial = "(playing_property_id) WHERE (playing_property_id IS NOT NULL)"
    assert indexes["member_playing_property_idx"].endswith(partial)
    assert not any(name.startswith("members_member_playing_property_id") for name in indexes)
