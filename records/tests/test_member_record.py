"""A member's own record (POPIA s23; records/member_record.py): the PDF holds every section of
what the casino keeps about the member and nothing of anyone else, is given only once the clerk
confirms the member is there with their ID, only by the desk and managers, and is audited."""

import datetime as dt
import hashlib
import time

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from draws.engine import draw_start
from draws.services import activation_create
from draws.tests.builders import MANAGER, closed_draw, sast
from draws.tests.factories import make_draw
from members.models import PointsEntry
from members.services import member_update
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory
from prizes import cash_desk
from prizes.letter_services import letter_issue
from prizes.tests.conftest import DRAW_AT, cash, record_next_winner
from prizes.tests.letter_helpers import presented, store
from promotions.tests.factories import make_series
from proxies.tests.factories import decline, nominate
from records.member_record import ACTION, member_record_issue
from testing.pdf import pdf_pages, pdf_text

pytestmark = pytest.mark.django_db

PAY_AT = DRAW_AT + dt.timedelta(days=1)
REGISTERS_AT = sast(2026, 3, 4, 10, 0)  # the draw day's proxy and decline windows are open
PRINTED_AT = sast(2026, 3, 5, 9, 30)


def _actor(user_for, role, **kwargs) -> Actor:
    return Actor.for_user(user_for(role, **kwargs))


@pytest.fixture
def story(reference_data, user_for):
    """The member (card 7000000001) with points, an ended exclusion, a tier corrected by a
    manager, tickets in three draws, a win with its prize line, letter and payout, a proxy
    nominated, a decline, and named as another participant's proxy. Another winner of the same
    draw and that participant hold data of their own that must not show."""
    tiers = reference_data["tiers"]
    member = MemberFactory(card_number="7000000001", first_name="Naledi", last_name="Mokoena")
    other = MemberFactory(card_number="7000000002", first_name="Sipho", last_name="Otherwinner")
    ExclusionFactory(
        id_number=member.id_number,
        full_name=member.full_name,
        reason="Asked for a break.",
        starts_at=sast(2020, 1, 1, 0, 0),
        ends_at=sast(2021, 1, 1, 0, 0),
    )
    member_update(actor=_actor(user_for, PROMOTIONS_MANAGER), member_id=member.pk, tier=tiers["QUEEN"])
    desk = _actor(user_for, REWARDS_DESK, properties=["GRC"])
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):
        series = make_series()
        series.winners_per_draw = 2
        series.save()
        draw, _ = closed_draw(series, DRAW_AT, [3, 5], members=[member, other])
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
        picks = {pick.member_id: pick for pick in (record_next_winner(draw), record_next_winner(draw))}
        store(draw, picks[member.pk], cash(500_000, "Podium 1"))
        store(draw, picks[other.pk], cash(200_000, "Podium 2"))
        letter = letter_issue(actor=desk, **presented(picks[member.pk]))
        other_letter = letter_issue(actor=desk, **presented(picks[other.pk]))
    cashier = _actor(user_for, CASH_DESK, properties=["GRC"])
    cash_desk.letter_pay(
        actor=cashier,
        letter_id=letter.pk,
        now=PAY_AT,
        kind_group="cash",
        id_type_seen="sa_id",
        id_last_digits=member.id_number[-4:],
        signature_acknowledged=True,
        scanned_code=letter.code.upper(),
    )
    participant = MemberFactory(card_number="7000000003", first_name="Pieter", last_name="Participant")
    nominee = MemberFactory(card_number="7000000004", first_name="Lerato", last_name="Nominee")
    with time_machine.travel(REGISTERS_AT, tick=False):
        for someone in (member, participant, other):
            PointsEntryFactory(member=someone, points=500)
        later = make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}])
        nominated, declined, stood_in = (
            make_draw(later, REGISTERS_AT + dt.timedelta(hours=hours)) for hours in (2, 2.5, 3)
        )
        system = Actor.system("test")
        for draw_, card in ((nominated, member), (declined, member), (stood_in, participant), (stood_in, other)):
            activation_create(actor=system, draw_id=draw_.pk, card_number=card.card_number, channel="ehost")
        nominate(participant=member, draw=nominated, nominee=nominee, now=REGISTERS_AT, actor=desk)
        decline(member=member, draw=declined, now=REGISTERS_AT, actor=desk)
        nominate(participant=participant, draw=stood_in, nominee=member, now=REGISTERS_AT, actor=desk)
    return {
        "member": member,
        "other": other,
        "participant": participant,
        "nominee": nominee,
        "letter": letter,
        "other_letter": other_letter,
        "draws": (draw, nominated, declined, stood_in),
    }


def _issue(actor, member, *, identified_by=None, in_person=True, at=PRINTED_AT):
    with time_machine.travel(at, tick=False):
        return member_record_issue(
            actor=actor,
            member_id=member.pk,
            identified_by=member.card_number if identified_by is None else identified_by,
            in_person=in_person,
        )


def _section(text: str, heading: str, next_heading: str) -> str:
    start = text.index(heading)
    return text[start : text.index(next_heading, start)]


def test_the_pdf_holds_every_section_of_the_member_and_nothing_of_others(story, user_for):
    member, other = story["member"], story["other"]
    given = _issue(_actor(user_for, REWARDS_DESK, first_name="Zanele", last_name="Desk"), member)
    text = pdf_text(given.pdf, flat=True)

    # The member's details, the ID number in full (it is their own).
    details = _section(text, "Your details", "Tier history")
    for value in ("Naledi", "Mokoena", "7000000001", member.id_number, "01 Jan 1980", "Queen", "Gold Reef City"):
        assert value in details, value
    assert "Ten Queen" in _section(text, "Tier history", "Exclusions")  # from, to
    assert "Self-excluded" in _section(text, "Exclusions", "Points") and "Asked for a break." in text
    points = _section(text, "Points", "Tickets activated")
    assert "500 points in all" in points and "March 2026" in points
    tickets = _section(text, "Tickets activated", "Draws you were picked in")
    assert tickets.count("eHost kiosk") == 2 and "VIP / Rewards desk" in tickets  # two by kiosk, the won draw's
    picks = _section(text, "Draws you were picked in", "Prizes won")
    assert "Present: a winner" in picks
    prizes = _section(text, "Prizes won", "Prize letters")
    assert "Podium 1" in prizes and "R 5,000.00" in prizes and "Podium 2" not in prizes
    letters = _section(text, "Prize letters", "Prizes paid")
    assert story["letter"].number in letters and "Paid" in letters
    assert "R 5,000.00" in _section(text, "Prizes paid", "Proxies you nominated")
    proxies = _section(text, "Proxies you nominated", "Draws where you were named as a proxy")
    assert "Lerato Nominee" in proxies and story["nominee"].id_number not in proxies  # the nominee's ID masked
    named = _section(text, "Draws where you were named as a proxy", "Declines to be present")
    assert "None." not in named and "not named here" in named
    assert "None." not in _section(text, "Declines to be present", "Your record's history")
    history = _section(text, "Your record's history", "End of the record")
    assert "changed the record of Naledi Mokoena" in history
    assert "Zanele Desk" in text and "Thu 05 Mar 2026 09:30" in text  # the footer: by whom, when

    # Nothing of the other winner, the participant the member stood in for, or their letters.
    for someone in (other, story["participant"]):
        for value in (someone.last_name, someone.card_number, someone.id_number):
            assert value not in text, value
    assert story["other_letter"].number not in text and "R 2,000.00" not in text
    width, height = (float(v) for v in pdf_pages(given.pdf)[0].mediabox[2:])
    assert (round(width), round(height)) == (595, 842)  # A4 in points


def test_each_record_given_is_in_the_audit_log_with_its_pdf_s_hash(story, user_for):
    desk = _actor(user_for, REWARDS_DESK)
    given = _issue(desk, story["member"])
    [event] = AuditEvent.objects.filter(action=ACTION)
    assert (event.actor, event.object_type, event.object_id) == (desk.user, "members.member", str(story["member"].pk))
    assert event.data["sha256"] == hashlib.sha256(given.pdf).hexdigest() == given.sha256


@pytest.mark.parametrize(
    ("in_person", "identified_by", "code"),
    [
        (False, None, "record_not_confirmed"),  # the ID-seen box not ticked
        (True, "", "record_not_confirmed"),
        (True, "7000000002", "record_not_the_member"),  # someone else's card
    ],
)
def test_refused_unless_the_member_is_there_with_their_own_card_or_id(story, user_for, in_person, identified_by, code):
    with pytest.raises(DomainError) as refused:
        _issue(_actor(user_for, REWARDS_DESK), story["member"], identified_by=identified_by, in_person=in_person)
    assert refused.value.code == code
    assert not AuditEvent.objects.filter(action=ACTION).exists()


def test_the_id_number_shown_identifies_the_member_too(story, user_for):
    member = story["member"]
    spaced = f"{member.id_number[:6]} {member.id_number[6:]}"
    assert _issue(_actor(user_for, PROMOTIONS_MANAGER), member, identified_by=spaced).pdf.startswith(b"%PDF")


def test_auditors_and_the_cash_desk_may_not_print_it(story, user_for):
    for role in (AUDITOR, CASH_DESK):
        with pytest.raises(DomainError) as refused:
            _issue(_actor(user_for, role), story["member"])
        assert refused.value.code == "not_allowed"


def test_a_clerk_of_another_property_gives_it_too_member_records_are_group_wide(story, user_for):
    montecasino = _actor(user_for, REWARDS_DESK, properties=["MC"])
    assert story["member"].home_property.code == "GRC"
    assert _issue(montecasino, story["member"]).pdf.startswith(b"%PDF")


# --- The page ------------------------------------------------------------------------------


def test_the_desk_confirms_then_the_pdf_downloads_and_the_auditor_reads_the_event(reference_data, client_for):
    member = MemberFactory(card_number="7000000009")
    desk = client_for(REWARDS_DESK)
    page = desk.get(reverse("members:detail", kwargs={"member_id": member.pk})).content.decode()
    url = reverse("records:member_record", kwargs={"member_id": member.pk})
    assert f'href="{url}"' in page and "Member's own record (POPIA)" in page

    refused = desk.post(url, {"identified_by": member.card_number})  # the box not ticked
    assert refused.status_code == 200 and "have seen their ID document" in refused.content.decode()
    assert not AuditEvent.objects.filter(action=ACTION).exists()

    response = desk.post(url, {"identified_by": member.card_number, "in_person": "on"})
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'attachment; filename="member-record-7000000009.pdf"'
    assert member.id_number in pdf_text(response.content)
    event = AuditEvent.objects.get(action=ACTION)
    assert event.data["sha256"] == hashlib.sha256(response.content).hexdigest()

    auditor = client_for(AUDITOR)
    member_page = auditor.get(reverse("members:detail", kwargs={"member_id": member.pk})).content.decode()
    assert f'href="{url}"' not in member_page
    assert auditor.get(url).status_code == 403 and auditor.post(url).status_code == 403
    log = auditor.get(reverse("audit")).content.decode()
    assert "their own record (POPIA)" in log


def test_a_swipe_in_the_field_is_its_card_number(reference_data, client_for):
    member = MemberFactory(card_number="7000000010")
    stripe = f"%B{member.card_number}^MOKOENA/NALEDI^2812101?"
    response = client_for(REWARDS_DESK).post(
        reverse("records:member_record", kwargs={"member_id": member.pk}), {"identified_by": stripe, "in_person": "on"}
    )
    assert response["Content-Type"] == "application/pdf"


# --- Bounded ---------------------------------------------------------------------------------


def test_ten_thousand_point_lines_make_a_few_pages_that_say_they_are_cut(reference_data, user_for):
    member = MemberFactory(card_number="7000000011")
    properties = list(reference_data["properties"].values())
    start = sast(2024, 1, 1, 10, 0)
    PointsEntry.objects.bulk_create(
        PointsEntry(
            member=member,
            property=properties[i % 2],
            earned_at=start + dt.timedelta(hours=7 * i),
            points=10,
            reference=f"P{i}",
        )
        for i in range(10_000)
    )
    began = time.perf_counter()
    given = _issue(_actor(user_for, REWARDS_DESK), member)
    seconds = time.perf_counter() - began
    text = pdf_text(given.pdf, flat=True)
    assert "100,000 points in all, from 10,000 lines" in text
    assert "The newest 200 of your 10,000 point lines are listed" in text
    pages = len(pdf_pages(given.pdf))
    print(f"10,000 point lines: {pages} pages, {len(given.pdf):,} bytes, {seconds:.2f} s")
    assert pages <= 15
