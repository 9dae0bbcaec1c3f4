"""The desk's member forms: dates typed as text in one field, phones cleaned, focus on the
first field, the clerk's property preselected (issue 9, 4)."""

import datetime as dt

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.urls import reverse

from core.audit import Actor
from core.roles import REWARDS_DESK
from members.forms import MemberContactForm, SignUpForm, TextDateField
from members.staff import staff_profile_set

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "typed",
    [
        "1985-06-15",
        "15/06/1985",
        "15/6/1985",
        "15-06-1985",
        "15.06.1985",
        "15 Jun 1985",
        "15 jun 1985",
        "15 June 1985",
        "15-Jun-1985",
        "  15   Jun  1985 ",
    ],
)
def test_a_date_is_read_in_every_way_a_clerk_types_it(typed):
    assert TextDateField().clean(typed) == dt.date(1985, 6, 15)


@pytest.mark.parametrize("typed", ["06/15/1985", "15/06/85", "31/02/1985", "yesterday", "1985"])
def test_a_date_that_cannot_be_read_says_how_to_type_it(typed):
    with pytest.raises(ValidationError) as refused:
        TextDateField().clean(typed)
    assert "Type the date as 15/06/1985, 15 Jun 1985 or 1985-06-15." in refused.value.messages


def test_a_date_before_1900_is_refused_as_a_slip():
    with pytest.raises(ValidationError) as refused:
        TextDateField().clean("15/06/1885")
    assert "between 1900 and 2100" in refused.value.messages[0]


def test_the_date_is_one_text_field_not_the_browsers_three_part_picker():
    html = str(SignUpForm()["date_of_birth"])
    assert 'type="text"' in html and 'type="date"' not in html and "min=" not in html


def test_a_date_already_on_record_is_shown_as_it_is_read():
    html = str(SignUpForm(initial={"date_of_birth": dt.date(1985, 6, 15)})["date_of_birth"])
    assert 'value="15 Jun 1985"' in html


def test_the_phone_is_cleaned_to_plus_27_on_the_form():
    form = MemberContactForm({"phone": "082 123 4567", "email": ""})
    assert form.is_valid() and form.cleaned_data["phone"] == "+27821234567"


def test_a_phone_that_is_not_one_is_refused_on_the_form():
    form = MemberContactForm({"phone": "call reception", "email": ""})
    assert not form.is_valid() and "is not a phone number" in form.errors["phone"][0]


def test_the_sign_up_page_puts_the_focus_on_the_first_name(desk, reference_data):
    content = desk.get(reverse("members:sign_up")).content.decode()
    first = content.index('name="first_name"')
    tag = content[content.rindex("<input", 0, first) : content.index(">", first)]
    assert "autofocus" in tag
    assert content.count("autofocus") == 1  # no other field takes it (the header's swipe field yields)


def test_the_sign_up_page_preselects_the_clerks_property(user_for, reference_data, client):
    clerk = user_for(REWARDS_DESK)
    staff_profile_set(actor=Actor.system("test"), user=clerk, home_property=reference_data["properties"]["GH"])
    client.force_login(clerk)
    content = client.get(reverse("members:sign_up")).content.decode()
    gh = reference_data["properties"]["GH"].pk
    assert f'<option value="{gh}" selected>' in content


def test_a_clerk_without_a_property_picks_it(client, user_for, reference_data):
    client.force_login(user_for(REWARDS_DESK, properties=()))
    content = client.get(reverse("members:sign_up")).content.decode()
    assert '<option value="" selected>' in content


def test_the_desks_narrower_permission_exists_for_the_role_to_hold():
    assert Permission.objects.filter(codename="change_member_contact", content_type__app_label="members").exists()
