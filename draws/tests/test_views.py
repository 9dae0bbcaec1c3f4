import datetime as dt
import html

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.audit import Actor
from core.models import AuditEvent
from draws.allocation import allocation_overview, draw_allocations
from draws.models import Activation, Channel, Draw, DrawStatus
from draws.services import activation_create, draw_close_window, draw_standing_refresh
from draws.tests.factories import make_draw
from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from testing.db import triggers_off

pytestmark = pytest.mark.django_db

DASH = "\N{EN DASH}"  # between the first and last of a range, as the pages print it
SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)  # a Wednesday 13h00 cash draw, tickets 08h00-12h55
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)


@pytest.fixture
def series(reference_data):
    return make_series(period_kind="days_before", period_days=7, points_per_ticket=100)


@pytest.fixture
def draw(series):
    return make_draw(series, DRAW_AT)


@pytest.fixture
def queen(reference_data):
    member = MemberFactory(
        tier=reference_data["tiers"]["QUEEN"], card_number="4000000001", first_name="Naledi", last_name="Mokoena"
    )
    PointsEntryFactory(member=member, points=550, earned_at=DRAW_AT - dt.timedelta(days=2))
    return member


@pytest.fixture
def ten(reference_data):
    member = MemberFactory(
        tier=reference_data["tiers"]["TEN"], card_number="4000000002", first_name="Sipho", last_name="Dlamini"
    )
    PointsEntryFactory(member=member, points=800, earned_at=DRAW_AT - dt.timedelta(days=1))
    return member


def text(response) -> str:
    return html.unescape(response.content.decode())


def activate(draw, member, at=IN_WINDOW, channel=Channel.EHOST):
    return activation_create(
        actor=Actor.system("test"), draw_id=draw.pk, card_number=member.card_number, channel=channel, now=at
    )


# --- The VIP desk activates tickets ----------------------------------------------------------


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_desk_activates_a_queen_members_tickets_and_lands_on_the_receipt(desk, draw, queen):
    url = reverse("draws:activate", args=[draw.pk])
    standing = desk.get(url, {"card": ";4000000001?"}, follow=True)  # as the stripe reader types it
    assert standing.status_code == 200 and standing.redirect_chain[0][0].endswith("?card=4000000001")
    page = text(standing)
    assert "Naledi Mokoena" in page and "550" in page
    assert "Activate 5 tickets" in page

    response = desk.post(url, {"card": "4000000001"})

    activation = Activation.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("draws:receipt", args=[activation.pk])
    assert (activation.channel, activation.first_serial, activation.last_serial) == (Channel.DESK, 1, 5)
    assert activation.user is not None and activation.user.groups.filter(name="rewards_desk").exists()
    event = AuditEvent.objects.get(action="tickets.activated")
    assert event.actor_label == activation.user.get_username()
    receipt = text(desk.get(response["Location"]))
    assert f"1 {DASH} 5" in receipt and activation.receipt_number in receipt and "Naledi Mokoena" in receipt


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_ten_tier_member_is_refused_at_the_desk_with_a_clerk_readable_message(desk, draw, ten):
    response = desk.post(reverse("draws:activate", args=[draw.pk]), {"card": ";4000000002?"})
    assert response.status_code == 200
    assert (
        "The desk prints tickets only for Queen, King, Ace members in this draw; send the member to an eHost."
        in text(response)
    )
    assert not Activation.objects.exists()


@time_machine.travel(dt.datetime(2025, 10, 15, 7, 30, tzinfo=SAST), tick=False)
def test_the_desk_is_told_when_the_ticket_window_opens(desk, draw, queen):
    response = desk.post(reverse("draws:activate", args=[draw.pk]), {"card": "4000000001"})
    assert "can be activated from Wed 15 Oct 2025 08:00" in text(response)
    assert not Activation.objects.exists()


@time_machine.travel(IN_WINDOW, tick=False)
def test_an_unknown_card_is_named_on_the_desk_page(desk, draw):
    response = desk.get(reverse("draws:activate", args=[draw.pk]), {"card": ";9999999999?"}, follow=True)
    assert response.status_code == 200
    assert "No member has card number 9999999999." in text(response)


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_desk_page_shows_why_an_excluded_member_has_no_tickets(desk, draw, queen):
    ExclusionFactory(
        id_type=queen.id_type, id_number=queen.id_number, reason="Refusal of Entry 7/2025", starts_at=IN_WINDOW
    )
    page = text(desk.get(reverse("draws:activate", args=[draw.pk]), {"card": "4000000001"}))
    assert "Refusal of Entry 7/2025" in page
    assert "Activate" not in page.split('id="standing"')[1]


@time_machine.travel(IN_WINDOW, tick=False)
def test_a_member_who_already_activated_is_offered_the_receipt_again(desk, draw, queen):
    activation = activate(draw, queen)
    page = text(desk.get(reverse("draws:activate", args=[draw.pk]), {"card": "4000000001"}))
    assert "Already activated 5 tickets" in page
    assert reverse("draws:receipt", args=[activation.pk]) in page
    assert 'id="activate-button"' not in page


# --- The draw page ---------------------------------------------------------------------------


def test_the_draw_page_shows_the_draw_its_windows_and_rule(auditor, draw):
    page = text(auditor.get(reverse("draws:detail", args=[draw.pk])))
    assert draw.name in page and "Gold Reef City" in page and "Test promotion" in page
    assert "Electronic (TEEDS)" in page
    assert f"Wed 15 Oct 2025 08:00 {DASH} Wed 15 Oct 2025 12:55" in page  # the ticket window, local time
    assert f"Wed 15 Oct 2025 08:00 {DASH} Wed 15 Oct 2025 12:45" in page  # proxies close 15 minutes before
    assert f"Wed 08 Oct 2025 13:00 {DASH} Wed 15 Oct 2025 13:00" in page  # the 7 days before the draw
    assert "100 points per ticket, every tier." in page


def test_the_draw_page_puts_the_earning_rule_in_words(auditor, reference_data):
    series = make_series(
        points_per_ticket=200,
        points_per_ticket_by_tier={"KING": 150, "QUEEN": 180},
        free_tickets_by_tier={"ACE": 20},
        free_tickets_by_weekday={"4": {"ACE": 50}},
        bonus_app_registered=5,
        cap=4000,
        assumptions="The cap was not in the published table: 4,000 as in the 2024 campaign.",
    )
    page = text(auditor.get(reverse("draws:detail", args=[make_draw(series, DRAW_AT).pk])))
    assert "Points per ticket: Queen 180, King 150; other tiers 200." in page
    assert "Free tickets: Ace 20." in page
    assert "Free tickets when activated on Fridays: Ace 50." in page
    assert "Bonus tickets: 5 if registered on the app." in page
    assert "At most 4,000 tickets per patron." in page
    assert "4,000 as in the 2024 campaign" in page


def test_an_equal_opportunity_draw_page_gives_every_member_the_same_tickets(auditor, queen, ten, reference_data):
    draw = make_draw(make_series(equal_opportunity_tickets=200), DRAW_AT)
    draw_standing_refresh(draw_id=draw.pk, now=IN_WINDOW)  # the tick's background count
    page = text(auditor.get(reverse("draws:detail", args=[draw.pk])))
    assert "Equal opportunity: every eligible member gets 200 tickets." in page
    assert 'id="tickets-available">400<' in page


def test_the_draw_page_shows_the_allocation_breakdown(auditor, draw, queen, ten, reference_data):
    MemberFactory(card_number="4000000003")  # a home member with no points: eligible, 0 tickets
    activate(draw, queen)
    draw_standing_refresh(draw_id=draw.pk, now=IN_WINDOW)
    page = text(auditor.get(reverse("draws:detail", args=[draw.pk])))
    allocations = page.split('id="allocations"')[1].split("</table>")[0]
    assert allocations.index("Sipho Dlamini") < allocations.index("Naledi Mokoena")  # the most tickets first
    assert "4000000002" in allocations and "800" in allocations
    assert 'id="members-with-tickets">2<' in page
    assert 'id="tickets-available">13<' in page
    assert 'id="members-without-tickets">1<' in page
    activations = page.split('id="activations"')[1]
    assert reverse("draws:receipt", args=[Activation.objects.get().pk]) in activations
    assert f"1{DASH}5" in activations


def test_the_allocation_overview_agrees_with_draw_allocations(draw, reference_data):
    for n in range(60):
        PointsEntryFactory(member=MemberFactory(), points=37 * n + 1, earned_at=DRAW_AT - dt.timedelta(days=1))
    every = draw_allocations(draw, at=IN_WINDOW)
    overview = allocation_overview(draw, at=IN_WINDOW)
    assert overview.members == len(every)
    assert overview.members_with_tickets == sum(1 for a in every if a.tickets > 0)
    assert overview.tickets == sum(a.tickets for a in every)
    assert len(overview.top) == 50
    expected = sorted((a for a in every if a.tickets), key=lambda a: (-a.tickets, a.member_id))[:50]
    assert [row.allocation for row in overview.top] == expected
    assert all(row.member.pk == row.allocation.member_id for row in overview.top)


def test_the_draw_page_costs_the_same_queries_for_2_or_30_activations(manager, draw, reference_data):
    def member_with_points(n):
        member = MemberFactory(card_number=f"42000000{n:02d}")
        PointsEntryFactory(member=member, points=100 + n * 10, earned_at=DRAW_AT - dt.timedelta(days=1))
        return member

    url = reverse("draws:detail", args=[draw.pk])
    for n in range(2):
        activate(draw, member_with_points(n))
    manager.get(url)
    with CaptureQueriesContext(connection) as two:
        assert manager.get(url).status_code == 200
    for n in range(2, 30):
        activate(draw, member_with_points(n))
    with CaptureQueriesContext(connection) as thirty:
        response = manager.get(url)
    assert response.context["activations"].count() == 30
    assert len(thirty) == len(two), [q["sql"][:80] for q in thirty.captured_queries]
    # The page's budget (+1: its proxy and decline counts; +2: the user's properties, which say
    # whether it offers the draw's buttons; +3: the prize boards' required settings, for the
    # panel and the Start button; +1: whether the series has Golden Horse vault jackpots, asked
    # once for both; +1: whether a jackpot is shared out at this draw, TH r135; +1: whether it
    # is the last finalist draw filling a car draw, TH r69), whatever the number of members,
    # points or activations.
    assert len(two) <= 25


def test_a_raps_draw_page_has_no_tickets_to_allocate_or_activate(desk, series):
    series.method = "raps"
    series.save()
    page = text(desk.get(reverse("draws:detail", args=[make_draw(series, DRAW_AT).pk])))
    assert "there are no tickets to activate" in page
    assert 'id="allocations"' not in page and "Activate tickets at the desk" not in page


def test_the_seed_stays_secret_until_the_draw_is_drawn(auditor, draw, queen):
    activate(draw, queen)
    draw_close_window(draw_id=draw.pk, now=DRAW_AT)
    draw.refresh_from_db()
    page = text(auditor.get(reverse("draws:detail", args=[draw.pk])))
    assert draw.entries_sha256 in page and draw.seed_sha256 in page
    assert draw.seed_hex not in page
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=draw.pk).update(status=DrawStatus.DRAWN)
    assert draw.seed_hex in text(auditor.get(reverse("draws:detail", args=[draw.pk])))


# --- Moving and cancelling -------------------------------------------------------------------


@time_machine.travel(dt.datetime(2025, 10, 1, 9, 0, tzinfo=SAST), tick=False)
def test_moving_one_draw_leaves_the_other_draws_of_the_series_unchanged(manager, series):
    wednesdays = [dt.datetime(2025, 10, day, 13, 0, tzinfo=SAST) for day in (15, 22, 29)]
    first, middle, last = (make_draw(series, at) for at in wednesdays)

    form = manager.get(reverse("draws:move", args=[middle.pk]))
    assert 'value="2025-10-22 13:00"' in form.content.decode()  # the current time, local, 24-hour
    response = manager.post(
        reverse("draws:move", args=[middle.pk]),
        {"scheduled_at": "2025-10-21T13:00", "reason": "Diwali function on the stage on the 22nd"},
    )

    assert response.status_code == 302 and response["Location"] == reverse("draws:detail", args=[middle.pk])
    middle.refresh_from_db()
    assert middle.scheduled_at == dt.datetime(2025, 10, 21, 13, 0, tzinfo=SAST)
    assert middle.moved_from == wednesdays[1]
    windows = [(w.opens_at, w.closes_at) for w in middle.windows.all()]
    assert windows == [(dt.datetime(2025, 10, 21, 8, 0, tzinfo=SAST), dt.datetime(2025, 10, 21, 12, 55, tzinfo=SAST))]
    assert middle.proxies_close_at == dt.datetime(2025, 10, 21, 12, 45, tzinfo=SAST)
    for draw, at in ((first, wednesdays[0]), (last, wednesdays[2])):
        draw.refresh_from_db()
        assert (draw.scheduled_at, draw.moved_from) == (at, None)
        assert [(w.opens_at, w.closes_at) for w in draw.windows.all()] == [
            (at.replace(hour=8), at.replace(hour=12, minute=55))
        ]
    page = text(manager.get(response["Location"]))
    assert (
        "Moved from Wed 22 Oct 2025 13:00 to Tue 21 Oct 2025 13:00 because Diwali function on the stage on the 22nd"
        in page
    )
    assert AuditEvent.objects.filter(action="draw.moved", object_id=str(middle.pk)).exists()


def test_a_draw_with_activated_tickets_cannot_be_moved(manager, draw, queen):
    activate(draw, queen)
    response = manager.post(
        reverse("draws:move", args=[draw.pk]), {"scheduled_at": "2025-10-16T13:00", "reason": "Stage repairs"}
    )
    assert response.status_code == 200
    assert "no activated tickets yet can be moved." in text(response)
    draw.refresh_from_db()
    assert draw.scheduled_at == DRAW_AT


def test_cancelling_a_draw_keeps_the_reason_on_the_draw(manager, draw):
    response = manager.post(reverse("draws:cancel", args=[draw.pk]), {"reason": "Load-shedding stage 6"})
    assert response.status_code == 302
    draw.refresh_from_db()
    assert (draw.status, draw.change_reason) == (DrawStatus.CANCELLED, "Load-shedding stage 6")
    page = text(manager.get(reverse("draws:detail", args=[draw.pk])))
    assert "Cancelled." in page and "Load-shedding stage 6" in page


@pytest.mark.parametrize("status", [DrawStatus.DRAWN, DrawStatus.CANCELLED])
def test_a_drawn_or_cancelled_draw_can_be_neither_moved_nor_cancelled(manager, draw, status):
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=draw.pk).update(status=status, change_reason="As it was")
    moved = manager.post(
        reverse("draws:move", args=[draw.pk]), {"scheduled_at": "2025-10-16T13:00", "reason": "Stage repairs"}
    )
    assert "no activated tickets yet can be moved." in text(moved)
    cancelled = manager.post(reverse("draws:cancel", args=[draw.pk]), {"reason": "Load-shedding"})
    assert f"This draw is already {status.label.lower()}." in text(cancelled)
    draw.refresh_from_db()
    assert (draw.status, draw.scheduled_at, draw.change_reason) == (status, DRAW_AT, "As it was")


def test_a_move_needs_a_reason(manager, draw):
    response = manager.post(reverse("draws:move", args=[draw.pk]), {"scheduled_at": "2025-10-16T13:00", "reason": " "})
    assert response.status_code == 200 and "This field is required." in text(response)
    draw.refresh_from_db()
    assert draw.scheduled_at == DRAW_AT


# --- Who may do what -------------------------------------------------------------------------


def test_the_auditor_sees_the_draw_and_receipt_pages_but_may_not_change_or_activate(auditor, draw, queen):
    activation = activate(draw, queen)
    for name, args in [("detail", [draw.pk]), ("receipt", [activation.pk]), ("receipt_pdf", [activation.pk])]:
        assert auditor.get(reverse(f"draws:{name}", args=args)).status_code == 200, name
    for name in ("move", "cancel", "activate"):
        url = reverse(f"draws:{name}", args=[draw.pk])
        assert auditor.get(url).status_code == 403, name
        assert auditor.post(url, {"reason": "x", "card": queen.card_number}).status_code == 403, name
    draw.refresh_from_db()
    assert draw.status == DrawStatus.SCHEDULED and Activation.objects.count() == 1


def test_the_desk_may_not_move_or_cancel_and_the_manager_may_not_activate(desk, manager, draw):
    assert desk.get(reverse("draws:move", args=[draw.pk])).status_code == 403
    assert desk.post(reverse("draws:cancel", args=[draw.pk]), {"reason": "x"}).status_code == 403
    assert manager.get(reverse("draws:activate", args=[draw.pk])).status_code == 403


def test_the_cashier_sees_no_draw_or_receipt(cashier, draw, queen):
    activation = activate(draw, queen)
    assert cashier.get(reverse("draws:detail", args=[draw.pk])).status_code == 403
    assert cashier.get(reverse("draws:receipt", args=[activation.pk])).status_code == 403


# --- The list --------------------------------------------------------------------------------


@time_machine.travel(IN_WINDOW, tick=False)
def test_the_list_shows_upcoming_open_or_past_draws(desk, series):
    past = make_draw(series, DRAW_AT - dt.timedelta(days=7))
    today = make_draw(series, DRAW_AT)
    later = make_draw(series, DRAW_AT + dt.timedelta(days=7))

    def listed(when=None):
        response = desk.get(reverse("draws:list"), {"when": when} if when else {})
        return [row.draw for row in response.context["rows"]]

    assert listed() == [today, later]
    assert listed("open") == [today]
    assert listed("past") == [past]
    assert listed("all") == [later, today, past]
    # "Activate tickets" only where the desk could activate now: not for a window not yet open.
    page = text(desk.get(reverse("draws:list"), {"when": "all"}))
    assert reverse("draws:activate", args=[today.pk]) in page
    assert reverse("draws:activate", args=[later.pk]) not in page
    assert reverse("draws:activate", args=[past.pk]) not in page


# Pinned: at the wall clock's hour, a draw before 12h55 has no room for its 08h00-12h55 window.
@time_machine.travel(IN_WINDOW, tick=False)
def test_a_draw_cannot_be_moved_into_the_past(manager, reference_data):
    draw = make_draw(make_series(), DRAW_AT + dt.timedelta(days=3))
    yesterday = DRAW_AT - dt.timedelta(days=1)  # the window fits; only "in the past" is wrong
    response = manager.post(
        reverse("draws:move", args=[draw.pk]), {"scheduled_at": yesterday.strftime("%Y-%m-%dT%H:%M"), "reason": "Oops"}
    )
    assert "only be moved to a time that is still ahead" in text(response)
    draw.refresh_from_db()
    assert draw.moved_from is None
