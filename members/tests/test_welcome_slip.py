"""The printable welcome slip with the new card number (issue 9, 4)."""

import pytest
from django.urls import reverse

from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER
from members.tests.factories import MemberFactory

pytestmark = pytest.mark.django_db


def test_the_slip_shows_the_card_number_name_and_casino(desk, reference_data):
    member = MemberFactory(first_name="Naledi", last_name="Mokoena", home_property=reference_data["properties"]["GH"])
    content = desk.get(reverse("members:welcome_slip", args=[member.pk])).content.decode()
    assert f'id="slip-card-number">{member.card_number}<' in content
    assert "Naledi Mokoena" in content and "Golden Horse" in content
    assert member.id_number not in content  # nothing of the ID document on paper


def test_the_slip_prints_with_a_button_and_a_static_script_only(desk, reference_data):
    member = MemberFactory()
    content = desk.get(reverse("members:welcome_slip", args=[member.pk])).content.decode()
    assert 'id="print-receipt"' in content and "js/receipt.js" in content  # the receipt's print button script
    assert "<script>" not in content and "onclick" not in content and "style=" not in content  # the CSP
    assert reverse("members:detail", args=[member.pk]) in content  # the member page a click away
    assert reverse("members:sign_up") in content  # and the next guest


def test_the_member_page_offers_the_slip_to_the_desk(desk, reference_data):
    member = MemberFactory()
    assert (
        reverse("members:welcome_slip", args=[member.pk])
        in desk.get(reverse("members:detail", args=[member.pk])).content.decode()
    )


@pytest.mark.parametrize("role", [PROMOTIONS_MANAGER, AUDITOR, CASH_DESK])
def test_only_the_desk_prints_welcome_slips(role, client_for, reference_data):
    member = MemberFactory()
    client = client_for(role)
    assert client.get(reverse("members:welcome_slip", args=[member.pk])).status_code == 403
    assert (
        reverse("members:welcome_slip", args=[member.pk])
        not in client.get(reverse("members:detail", args=[member.pk])).content.decode()
    )
