"""The desk's proxy and decline pages, and the stage team's list of a draw."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from draws.services import activation_create
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory, sa_id_for
from promotions.tests.factories import make_series
from proxies.models import DeclineRegistration, ProxyNomination
from proxies.tests.factories import decline, nominate

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2026, 3, 4, 10, 0, tzinfo=SAST)  # the draws are at 12:00: proxies open 08:00-11:45
NOMINEE_ID = sa_id_for(dt.date(1985, 6, 15), 4321)


def _participant(card: str, draw, **kwargs):
    member = MemberFactory(card_number=card, **kwargs)
    PointsEntryFactory(member=member, points=500, earned_at=NOW - dt.timedelta(days=1))
    activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number=card, channel="ehost")
    return member


@pytest.fixture
def world(reference_data):
    with time_machine.travel(NOW, tick=False):
        windows = [{"day": -1, "open": "00:00", "close_before": 5}]
        draw = make_draw(make_series(windows=windows), NOW + dt.timedelta(hours=2))
        other_draw = make_draw(make_series(windows=windows), NOW + dt.timedelta(hours=2))
        no_proxies = make_series(windows=windows)
        no_proxies.proxies_allowed = False  # as DayTime PlayTime: a decline register only
        no_proxies.save()
        decline_only = make_draw(no_proxies, NOW + dt.timedelta(hours=2))
        member = _participant("7000000001", draw, first_name="Sipho", last_name="Dlamini")
        PointsEntryFactory(member=member, points=500, earned_at=NOW - dt.timedelta(days=1))
        activation_create(
            actor=Actor.system("test"), draw_id=decline_only.pk, card_number="7000000001", channel="ehost"
        )
        yield {"draw": draw, "other_draw": other_draw, "decline_only": decline_only, "member": member}


def _typed_nominee(draw, **overrides):
    return {
        "draws": [draw.pk],
        "nominee_name": "Lerato Khumalo",
        "nominee_id_type": "sa_id",
        "nominee_id_number": NOMINEE_ID,
        "nominee_phone": "+27821234567",
    } | overrides


SIGNED = {"participant_id_seen": "on", "nominee_id_seen": "on", "form_signed": "on"}


def _print_and_sign(desk, member, signed=SIGNED):
    """Steps 2 and 3: the form printed (its PDF opened), then the signatures confirmed."""
    assert desk.get(reverse("proxies:nominate_form_pdf", args=[member.pk]))["Content-Type"] == "application/pdf"
    return desk.post(reverse("proxies:nominate_sign", args=[member.pk]), signed)


def test_the_nominate_page_lists_only_the_draws_that_can_take_a_proxy_now(desk, world):
    response = desk.get(reverse("proxies:member_nominate", args=[world["member"].pk]))
    offered = [pk for pk, _ in response.context["form"].fields["draws"].choices]
    # Not the draw without tickets of the member's, nor the draw whose series takes no proxies.
    assert offered == [world["draw"].pk]
    assert "open until Wed 04 Mar 2026 11:45" in response.content.decode()


def test_the_nominate_page_offers_no_button_once_the_proxy_window_closed(desk, world):
    with time_machine.travel(dt.datetime(2026, 3, 4, 11, 45, tzinfo=SAST), tick=False):
        response = desk.get(reverse("proxies:member_nominate", args=[world["member"].pk]))
    assert response.context["draws"] == []
    assert b"nominate-button" not in response.content and b'id="no-draws"' in response.content


def test_the_desk_nominates_a_typed_in_proxy_prints_the_form_and_registers_it_once_signed(desk, world):
    url = reverse("proxies:member_nominate", args=[world["member"].pk])
    with time_machine.travel(NOW, tick=False):
        response = desk.post(url, _typed_nominee(world["draw"]))
        assert response["Location"] == reverse("proxies:nominate_sign", args=[world["member"].pk])
        assert not ProxyNomination.objects.exists()  # nothing registered before the form is signed
        response = _print_and_sign(desk, world["member"])
    nomination = ProxyNomination.objects.get(participant=world["member"])
    assert response.status_code == 302 and response["Location"] == reverse("proxies:nomination", args=[nomination.pk])
    assert (nomination.nominee_name, nomination.nominee_id_number, nomination.nominee_member) == (
        "Lerato Khumalo",
        NOMINEE_ID,
        None,
    )
    page = desk.get(response["Location"]).content.decode()
    assert "Print the proxy form" in page and reverse("proxies:nomination_pdf", args=[nomination.pk]) in page
    assert NOMINEE_ID not in page and NOMINEE_ID[-4:] in page  # masked


def test_the_desk_finds_a_member_proxy_by_a_card_swipe(desk, world):
    proxy = MemberFactory(card_number="7000000099", first_name="Ayanda", last_name="Zulu")
    data = _typed_nominee(world["draw"], nominee_name="", nominee_id_type="", nominee_id_number="")
    data["lookup"] = ";7000000099?"
    with time_machine.travel(NOW, tick=False):
        desk.post(reverse("proxies:member_nominate", args=[world["member"].pk]), data)
        _print_and_sign(desk, world["member"])
    nomination = ProxyNomination.objects.get(participant=world["member"])
    assert (nomination.nominee_member, nomination.nominee_name) == (proxy, "Ayanda Zulu")


def test_it_refuses_a_proxy_neither_swiped_nor_typed_in(desk, world):
    data = _typed_nominee(world["draw"], nominee_name="", nominee_id_number="")
    with time_machine.travel(NOW, tick=False):
        response = desk.post(reverse("proxies:member_nominate", args=[world["member"].pk]), data)
    assert response.status_code == 200
    assert "Swipe the proxy&#x27;s card, or type their full name, ID number." in response.content.decode()
    assert not ProxyNomination.objects.exists()


def test_the_services_refusal_shows_on_the_form_in_its_own_words(desk, world):
    # The nominee has tickets in the draw: a proxy may not take part in it.
    _participant("7000000002", world["draw"], first_name="Lerato", last_name="Khumalo", id_number=NOMINEE_ID)
    with time_machine.travel(NOW, tick=False):
        response = desk.post(
            reverse("proxies:member_nominate", args=[world["member"].pk]), _typed_nominee(world["draw"])
        )
    assert response.status_code == 200
    assert "a proxy may not take part in the draw they stand in for" in response.context["form"].non_field_errors()[0]
    assert b'id="refusal"' in response.content
    assert not ProxyNomination.objects.exists()


def test_it_refuses_a_nomination_without_both_ids_seen_and_the_form_signed(desk, world):
    with time_machine.travel(NOW, tick=False):
        desk.post(reverse("proxies:member_nominate", args=[world["member"].pk]), _typed_nominee(world["draw"]))
        response = _print_and_sign(desk, world["member"], {k: v for k, v in SIGNED.items() if k != "form_signed"})
    assert "the proxy form signed by both" in response.context["form"].non_field_errors()[0]
    assert not ProxyNomination.objects.exists()


def test_it_refuses_a_draw_the_page_did_not_offer(desk, world):
    with time_machine.travel(NOW, tick=False):
        response = desk.post(
            reverse("proxies:member_nominate", args=[world["member"].pk]), _typed_nominee(world["decline_only"])
        )
    assert response.context["form"].errors["draws"]
    assert not ProxyNomination.objects.exists()


def test_the_decline_page_lists_only_the_draws_that_can_take_one_and_asks_for_no_one_else(desk, world):
    with time_machine.travel(NOW, tick=False):
        response = desk.get(reverse("proxies:member_decline", args=[world["member"].pk]))
    form = response.context["form"]
    assert sorted(pk for pk, _ in form.fields["draws"].choices) == sorted([world["draw"].pk, world["decline_only"].pk])
    assert set(form.fields) == {"draws", "id_seen"}  # no field for anyone acting on their behalf


def test_the_desk_registers_a_decline_in_person(desk, world):
    url = reverse("proxies:member_decline", args=[world["member"].pk])
    with time_machine.travel(NOW, tick=False):
        refused = desk.post(url, {"draws": [world["decline_only"].pk]})
        assert "check their own ID document first" in refused.context["form"].non_field_errors()[0]
        response = desk.post(url, {"draws": [world["decline_only"].pk], "id_seen": "on"})
        assert response["Location"] == reverse("members:detail", args=[world["member"].pk])
        again = desk.get(url)
    registration = DeclineRegistration.objects.get()
    assert (registration.member, registration.draw) == (world["member"], world["decline_only"])
    assert [pk for pk, _ in again.context["form"].fields["draws"].choices] == [world["draw"].pk]


def test_revoking_a_nomination_keeps_it_with_the_reason(desk, world):
    with time_machine.travel(NOW, tick=False):
        nomination = nominate(participant=world["member"], draw=world["draw"], now=NOW)
        response = desk.post(
            reverse("proxies:nomination_revoke", args=[nomination.pk]), {"reason": "The participant came back."}
        )
    assert response["Location"] == reverse("members:detail", args=[world["member"].pk])
    nomination.refresh_from_db()
    assert (nomination.is_live, nomination.revoke_reason) == (False, "The participant came back.")


def test_revoking_without_a_reason_is_refused_with_a_message(desk, world):
    with time_machine.travel(NOW, tick=False):
        nomination = nominate(participant=world["member"], draw=world["draw"], now=NOW)
        response = desk.post(reverse("proxies:nomination_revoke", args=[nomination.pk]), {"reason": " "}, follow=True)
    assert "Say why" in response.content.decode()
    nomination.refresh_from_db()
    assert nomination.is_live


def test_withdrawing_a_decline_keeps_it_with_the_reason(desk, world):
    with time_machine.travel(NOW, tick=False):
        registration = decline(member=world["member"], draw=world["draw"], now=NOW)
        desk.post(
            reverse("proxies:decline_revoke", args=[registration.pk]),
            {"reason": "Will be present.", "card": world["member"].card_number},
        )
    registration.refresh_from_db()
    assert (registration.is_live, registration.revoke_reason) == (False, "Will be present.")


def test_the_register_lists_and_counts_the_draws_nominations_and_declines(auditor, world):
    with time_machine.travel(NOW, tick=False):
        other = _participant("7000000003", world["draw"], first_name="Zanele", last_name="Mthembu")
        revoked = nominate(participant=other, draw=world["draw"], now=NOW)
        revoked.revoked_at, revoked.revoke_reason = NOW, "Changed their mind."
        revoked.save()
        nominate(participant=world["member"], draw=world["draw"], now=NOW)
        decline(member=other, draw=world["draw"], now=NOW)
    response = auditor.get(reverse("proxies:draw_register", args=[world["draw"].pk]))
    page = response.content.decode()
    assert "Proxies: 1 · Declines: 1" in page
    assert "Sipho Dlamini" in page and "…0001" in page and "Lerato Khumalo" in page
    assert "Revoked" in page and "Changed their mind." in page
    printed = auditor.get(reverse("proxies:draw_register", args=[world["draw"].pk]), {"print": "1"})
    assert printed.templates[0].name == "proxies/register_print.html"
    assert "Proxies: 1 · Declines: 1" in printed.content.decode()


def test_the_draw_page_counts_proxies_and_declines_with_a_link_to_the_register(manager, world):
    with time_machine.travel(NOW, tick=False):
        nominate(participant=world["member"], draw=world["draw"], now=NOW)
    page = manager.get(reverse("draws:detail", args=[world["draw"].pk])).content.decode()
    assert "Proxies: 1 · Declines: 0" in page
    assert reverse("proxies:draw_register", args=[world["draw"].pk]) in page


@pytest.mark.parametrize(
    ("role", "buttons", "section"),
    [(REWARDS_DESK, True, True), (PROMOTIONS_MANAGER, False, True), (AUDITOR, False, True), (CASH_DESK, False, False)],
)
def test_the_member_page_shows_live_proxies_and_the_buttons_to_the_desk_only(role, buttons, section, client_for, world):
    with time_machine.travel(NOW, tick=False):
        page = client_for(role).get(reverse("members:detail", args=[world["member"].pk])).content.decode()
        assert "Nominate a proxy" in page if buttons else "Nominate a proxy" not in page
        nominate(participant=world["member"], draw=world["draw"], now=NOW)
        page = client_for(role).get(reverse("members:detail", args=[world["member"].pk])).content.decode()
    assert ('id="member-proxies"' in page, "Lerato Khumalo" in page) == (section, section)
    assert ("Register a decline" in page, "Revoke" in page) == (buttons,) * 2
    # Nominated for the one draw that takes a proxy: no button, the reason in its place.
    assert "Nominate a proxy" not in page
    assert ("already nominated Lerato Khumalo" in page) == buttons


@pytest.mark.parametrize("role", [PROMOTIONS_MANAGER, AUDITOR, CASH_DESK])
def test_only_the_desk_may_nominate_decline_or_print_a_form(role, client_for, world):
    with time_machine.travel(NOW, tick=False):
        nomination = nominate(participant=world["member"], draw=world["draw"], now=NOW)
        http = client_for(role)
        urls = [
            reverse("proxies:member_nominate", args=[world["member"].pk]),
            reverse("proxies:member_decline", args=[world["member"].pk]),
            reverse("proxies:nomination_pdf", args=[nomination.pk]),
        ]
        assert [http.get(url).status_code for url in urls] == [403, 403, 403]
        revoke = http.post(reverse("proxies:nomination_revoke", args=[nomination.pk]), {"reason": "No."})
    assert revoke.status_code == 403
    assert ProxyNomination.objects.live().count() == 1


def test_the_cashier_may_not_see_the_register(cashier, world):
    assert cashier.get(reverse("proxies:draw_register", args=[world["draw"].pk])).status_code == 403


def test_a_draw_not_open_for_proxies_yet_is_listed_with_the_reason_not_offered(desk, world):
    draw, member = world["draw"], world["member"]
    with time_machine.travel(NOW.replace(hour=7, minute=30), tick=False):
        page = desk.get(reverse("proxies:member_nominate", args=[member.pk])).content.decode()
    assert f'value="{draw.pk}"' not in page
    assert "Proxy nominations for" in page and "open at Wed 04 Mar 2026 08:00" in page
    # ... and a draw whose promotion has no proxies says so.
    assert "has no proxies for" in page


def test_the_draw_page_of_a_draw_without_proxies_shows_no_proxy_window(manager, world):
    page = manager.get(reverse("draws:detail", args=[world["decline_only"].pk])).content.decode()
    assert "None: this promotion has a decline register only" in page
    other = manager.get(reverse("draws:detail", args=[world["draw"].pk])).content.decode()
    assert "None: this promotion has a decline register only" not in other


def test_the_register_shows_the_proxys_id_by_its_last_four_only(auditor, world):
    with time_machine.travel(NOW, tick=False):
        nomination = nominate(participant=world["member"], draw=world["draw"], now=NOW)
    page = auditor.get(reverse("proxies:draw_register", args=[world["draw"].pk])).content.decode()
    printed = auditor.get(reverse("proxies:draw_register", args=[world["draw"].pk]), {"print": "1"}).content.decode()
    for shown in (page, printed):
        assert f"South African ID …{nomination.nominee_id_number[-4:]}" in shown
        assert nomination.nominee_id_number not in shown


def test_a_member_in_draws_without_proxies_is_offered_decline_only_with_the_reason(desk, reference_data):
    # As DayTime PlayTime: the series takes no proxies, only declines.
    with time_machine.travel(NOW, tick=False):
        series = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
        series.proxies_allowed = False
        series.save()
        draw = make_draw(series, NOW + dt.timedelta(hours=2))
        member = _participant("7000000050", draw)
        page = desk.get(reverse("members:detail", args=[member.pk])).content.decode()
        assert 'id="nominate-link"' not in page and 'id="decline-link"' in page
        assert "No proxy now: Test promotion has no proxies for" in page
        decline(member=member, draw=draw, now=NOW)
        page = desk.get(reverse("members:detail", args=[member.pk])).content.decode()
    assert 'id="decline-link"' not in page and "has already declined to be present" in page


def test_no_nominate_button_once_the_proxy_window_closed_nor_without_draws(desk, world):
    # 11:55: proxies closed at 11:45, 15 minutes before the draw; declines take one until it starts.
    with time_machine.travel(dt.datetime(2026, 3, 4, 11, 55, tzinfo=SAST), tick=False):
        page = desk.get(reverse("members:detail", args=[world["member"].pk])).content.decode()
    assert 'id="nominate-link"' not in page and 'id="decline-link"' in page
    assert "No proxy now: Proxy nominations for" in page and "closed at Wed 04 Mar 2026 11:45" in page
    stranger = MemberFactory(card_number="7000000060")
    page = desk.get(reverse("members:detail", args=[stranger.pk])).content.decode()
    assert 'id="nominate-link"' not in page and 'id="decline-link"' not in page
    assert "No proxy now: No draw in the next two days could take a proxy." in page
