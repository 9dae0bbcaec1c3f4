"""conftest.reference_rows(): the tests' shortcut leaves exactly what members.demo.ensure_reference_data() would."""

import pytest

from conftest import reference_rows
from members.demo import ensure_reference_data
from members.models import Property, Tier


def stored():
    return list(Property.objects.order_by("pk").values_list("pk", "code", "name")), list(
        Tier.objects.order_by("pk").values_list("pk", "code", "name", "rank")
    )


@pytest.mark.django_db
def test_into_empty_tables_it_adds_the_rows_ensure_reference_data_adds():
    properties, tiers = reference_rows()
    assert [p.pk for p in properties] == [pk for pk, *_ in stored()[0]]
    before = stored()
    assert ensure_reference_data() == (properties, tiers)
    assert stored() == before, "ensure_reference_data() had something to change after the shortcut"


@pytest.mark.django_db
def test_with_the_rows_there_it_returns_them_and_changes_nothing():
    expected = ensure_reference_data()
    before = stored()
    assert reference_rows() == expected
    assert stored() == before


@pytest.mark.django_db
def test_a_renamed_property_is_named_back_as_ensure_reference_data_does():
    ensure_reference_data()
    Property.objects.filter(code="GH").update(name="Renamed")
    properties, _ = reference_rows()
    assert [(p.code, p.name) for p in properties][1] == ("GH", "Golden Horse")
    assert Property.objects.get(code="GH").name == "Golden Horse"


@pytest.mark.django_db
def test_a_missing_tier_is_put_back_as_ensure_reference_data_does():
    ensure_reference_data()
    Tier.objects.filter(code="ACE").delete()
    _, tiers = reference_rows()
    assert [(t.code, t.rank) for t in tiers][-1] == ("ACE", 5)
    assert Tier.objects.filter(code="ACE").exists()
