"""In a real Chromium: a guest signed up from the keyboard alone (the first field focused, the
date typed in one field, the phone as the clerk says it) to the printable welcome slip, and a
manager correcting a member's record (issue 9, items 4 and 10). Every page at 1024 x 768 without
sideways scrolling."""

import datetime as dt
import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from playwright.sync_api import expect

from core.audit import Actor
from core.roles import PROMOTIONS_MANAGER, REWARDS_DESK
from members.models import Member
from members.staff import staff_profile_set
from members.tests.factories import ExclusionFactory, MemberFactory
from testing.browser import PASSWORD, browser_fixture, log_in, page_fixture  # noqa: F401

pytestmark = pytest.mark.browser

DESK_SCREEN = {"width": 1024, "height": 768}


def fits_the_desk_screen(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_a_guest_is_signed_up_from_the_keyboard_and_gets_a_welcome_slip(page, live_server, user_for, reference_data):
    clerk = user_for(REWARDS_DESK, username="nomsa.desk", password=PASSWORD)
    staff_profile_set(actor=Actor.system("test"), user=clerk, home_property=reference_data["properties"]["GH"])
    page.set_viewport_size(DESK_SCREEN)
    log_in(page, clerk)

    page.goto(reverse("members:sign_up"))
    expect(page.locator("#id_first_name")).to_be_focused()
    expect(page.locator("#id_home_property")).to_have_value(str(reference_data["properties"]["GH"].pk))
    assert fits_the_desk_screen(page)
    page.keyboard.type("John")
    page.keyboard.press("Tab")
    page.keyboard.type("Smith")
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowDown")  # ID document: Passport
    page.keyboard.press("Tab")
    page.keyboard.type("A1234567")
    page.keyboard.press("Tab")
    expect(page.locator("#id_date_of_birth")).to_be_focused()
    page.keyboard.type("21/03/1979")  # one field: no day, month and year parts to tab through
    page.keyboard.press("Tab")
    expect(page.locator("#id_phone")).to_be_focused()
    page.keyboard.type("082 123 4567")
    page.keyboard.press("Enter")

    page.wait_for_url(re.compile(r"/welcome-slip/$"))
    member = Member.objects.get()
    assert (member.date_of_birth, member.phone, member.home_property.code) == (
        dt.date(1979, 3, 21),
        "+27821234567",
        "GH",
    )
    expect(page.locator("#slip-card-number")).to_have_text(member.card_number)
    expect(page.locator("#print-receipt")).to_be_focused()
    page.locator("#to-member").click()
    page.wait_for_url(f"{live_server.url}{reverse('members:detail', args=[member.pk])}")
    assert fits_the_desk_screen(page)


def test_a_manager_corrects_a_member_and_the_history_says_what_changed(page, live_server, user_for, reference_data):
    manager = user_for(PROMOTIONS_MANAGER, username="thabo.manager", password=PASSWORD)
    manager.user_permissions.add(Permission.objects.get(codename="change_member"))
    member = MemberFactory(first_name="Thandi", last_name="Nkosi", phone="+27821234567")
    ExclusionFactory(full_name="Someone Else")
    page.set_viewport_size(DESK_SCREEN)
    log_in(page, manager)

    page.goto(reverse("members:detail", args=[member.pk]))
    page.get_by_role("link", name="Correct the record").click()
    page.wait_for_url(re.compile(r"/edit/$"))
    expect(page.locator("#id_first_name")).to_be_focused()
    assert fits_the_desk_screen(page)
    page.locator("#id_last_name").fill("Nkosi-Dube")
    page.locator("#id_phone").fill("083 765 4321")
    page.locator("#id_app_registered_on").fill("1 Mar 2026")
    page.get_by_role("button", name="Save the changes").click()

    page.wait_for_url(f"{live_server.url}{reverse('members:detail', args=[member.pk])}")
    expect(page.get_by_role("alert").filter(has_text="Saved the last name")).to_be_visible()
    history = page.locator("#member-history")
    # Each change on its own line, in the form's order.
    expect(history.locator("tr").first).to_have_text(
        re.compile(
            r"Last name: Nkosi → Nkosi-Dube\s*Phone: \+27821234567 → \+27837654321\s*"
            r"App registration: \(empty\) → 01 Mar 2026"
        )
    )
    assert fits_the_desk_screen(page)

    for name in ("members:list", "members:exclusions", "members:imports"):
        page.goto(reverse(name))
        assert fits_the_desk_screen(page), name
