"""The letters' reports (issue 15, items 8-10): letters by state per promotion and property, the
cash desk's payouts of a day (page, CSV, PDF), the winners still to collect, the member page's
wins, letters and payouts. Figures are worked out from the fixtures' lines, never typed in."""

import csv
import datetime as dt
import io

import pytest
import time_machine
from django.db import connection
from django.template import RequestContext, Template
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from conftest import give_properties, make_user
from core.audit import Actor
from core.formats import rand_cents
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from draws.models import PickOutcome
from draws.tests.builders import SAST
from prizes.letter_models import PrizeLetter
from prizes.letter_reports import letter_counts, payout_summary, uncollected_winners
from prizes.letter_services import letter_issue, letter_reissue
from prizes.tests.conftest import DRAW_AT, cash
from prizes.tests.letter_helpers import EXPIRES_AT, place, play, presented, store
from prizes.tests.report_helpers import complete_draw, letter_amount, pay
from promotions.tests.factories import make_series
from testing.pdf import pdf_text

pytestmark = pytest.mark.django_db

NEXT_DAY = DRAW_AT + dt.timedelta(days=1)  # Thu 16 Oct 2025 13:00: the letters are issued
EMN_AT = DRAW_AT + dt.timedelta(days=3)  # Sat 18 Oct 2025: a draw at Emnotweni, collected 3 days later


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def html_of(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


@pytest.fixture
def desk_actor(user_for) -> Actor:
    return Actor.for_user(user_for(REWARDS_DESK))


@pytest.fixture
def winners(reference_data):
    """Gold Reef City's draw of 15 Oct: a declined winner (R1,000 cash), one represented by a
    proxy (R200 +Play and a place) and one present (R300 cash, R50 +Play); Emnotweni's draw of
    18 Oct: one present winner (R700 cash)."""
    draw, (declined, proxied, present) = complete_draw(
        make_series(), DRAW_AT, [PickOutcome.DECLINED, PickOutcome.PROXY_PRESENT, PickOutcome.PRESENT]
    )
    store(draw, declined, cash(100_000))
    store(draw, proxied, play(20_000), place())
    store(draw, present, cash(30_000), play(5_000))
    emn_draw, (emn,) = complete_draw(make_series(property_code="EMN"), EMN_AT, [PickOutcome.PRESENT])
    store(emn_draw, emn, cash(70_000))
    return {"declined": declined, "proxied": proxied, "present": present, "emn": emn}


def issue(desk_actor, pick, now=NEXT_DAY) -> PrizeLetter:
    return letter_issue(actor=desk_actor, now=now, **presented(pick))


def collectable_cents(pick) -> int:
    return sum(line.amount_cents for line in pick.prize_lines.all() if line.kind not in ("place", "entries"))


def days_left(pick, now) -> int:
    promotion = pick.draw.series.promotion
    last_day = DRAW_AT.date() if pick.draw.scheduled_at == DRAW_AT else EMN_AT.date()
    return (last_day + dt.timedelta(days=promotion.collection_days) - now.astimezone(SAST).date()).days


# --- Winners still to collect -------------------------------------------------------------------


def test_every_winner_with_a_prize_to_collect_is_listed_the_most_urgent_first(winners, desk_actor):
    letter = issue(desk_actor, winners["present"])
    now = DRAW_AT + dt.timedelta(days=5)
    rows = uncollected_winners(now=now, property_ids=None)
    picks = [winners[name] for name in ("declined", "proxied", "present", "emn")]
    assert [row.pick.pk for row in rows] == [pick.pk for pick in picks]  # GRC's last day comes first
    for row, pick in zip(rows, picks, strict=True):
        assert row.total_cents == collectable_cents(pick)  # the place is not collected by letter
        assert row.days_left == days_left(pick, now)
    assert rows[2].letter == letter and rows[0].letter is None  # issued, not paid: still to collect
    assert [row.represented_or_declined for row in rows] == [True, True, False, False]
    assert "collects in person" in rows[0].in_person_words and "proxy" in rows[1].in_person_words


def test_a_paid_letter_or_a_lapsed_prize_leaves_the_list(winners, desk_actor):
    pay(issue(desk_actor, winners["present"]), at=NEXT_DAY, by="Cashier One")
    # A line stored after the letter was paid is not on it, and no second letter may be issued
    # (one live letter per winner): the winner is not sent to the desk for it.
    store(winners["present"].draw, winners["present"], cash(1_000, "Late add-on"))
    rows = uncollected_winners(now=EXPIRES_AT - dt.timedelta(seconds=1), property_ids=None)
    assert winners["present"].pk not in [row.pick.pk for row in rows]
    assert rows[0].days_left_words == "Last day today" and len(rows) == 3
    rows = uncollected_winners(now=EXPIRES_AT, property_ids=None)  # GRC's time has run out
    assert [row.pick.pk for row in rows] == [winners["emn"].pk]


def test_the_desk_sees_its_own_property_and_who_must_come_in_person(winners, reference_data):
    grc_desk = client_of(make_user(REWARDS_DESK, properties=["GRC"]))
    with time_machine.travel(NEXT_DAY, tick=False):
        html = html_of(grc_desk, reverse("prizes:uncollected"))
    assert winners["declined"].member.full_name in html and winners["emn"].member.full_name not in html
    assert "Declined to be present: collects in person" in html
    assert "Represented by a proxy: collects in person" in html
    assert reverse("prizes:letter_issue", args=[winners["declined"].pk]) in html
    with time_machine.travel(NEXT_DAY, tick=False):
        html = html_of(client_of(make_user(AUDITOR)), reverse("prizes:uncollected"))
    assert winners["emn"].member.full_name in html and "Issue letter" not in html  # auditors: every property


# --- Letters by state ---------------------------------------------------------------------------


@pytest.fixture
def letters(winners, desk_actor, manager_actor):
    """Present: paid the day after. Declined: issued, then voided and reissued. Proxied: issued.
    Emnotweni's winner: issued on the 19th."""
    paid = issue(desk_actor, winners["present"])
    pay(paid, at=NEXT_DAY + dt.timedelta(hours=1), by="Cashier One")
    first = issue(desk_actor, winners["declined"])
    with time_machine.travel(NEXT_DAY + dt.timedelta(hours=2), tick=False):
        reissued = letter_reissue(actor=manager_actor, letter_id=first.pk, reason="Lost in a taxi")
    issued = issue(desk_actor, winners["proxied"])
    emn = issue(desk_actor, winners["emn"], now=EMN_AT + dt.timedelta(days=1))
    return {"paid": paid, "voided": first, "reissued": reissued, "issued": issued, "emn": emn}


def figures(row, state: str) -> tuple[int, int]:
    got = getattr(row, state)
    return got.letters, got.amount_cents


def test_letters_are_counted_by_state_with_their_amounts(letters):
    amounts = {name: letter_amount(letter) for name, letter in letters.items()}
    rows, total = letter_counts(now=DRAW_AT + dt.timedelta(days=5), property_ids=None)
    by_property = {row.property: row for row in rows}
    assert list(by_property) == ["Emnotweni", "Gold Reef City"]  # by promotion, then property
    grc, emn = by_property["Gold Reef City"], by_property["Emnotweni"]
    assert figures(grc, "outstanding") == (2, amounts["reissued"] + amounts["issued"])
    assert figures(grc, "paid") == (1, amounts["paid"])
    assert figures(grc, "voided") == (1, amounts["voided"])
    assert figures(grc, "expiring") == (0, 0) and figures(grc, "expired") == (0, 0)
    assert figures(emn, "outstanding") == (1, amounts["emn"])
    assert figures(total, "outstanding") == (3, amounts["reissued"] + amounts["issued"] + amounts["emn"])


def test_a_letter_expires_soon_from_three_days_before_its_last_day_and_expired_after_it(letters):
    last_day = EXPIRES_AT.date() - dt.timedelta(days=1)
    four_left = dt.datetime.combine(last_day - dt.timedelta(days=4), dt.time(23, 59, 59), tzinfo=SAST)
    rows, _ = letter_counts(now=four_left, property_ids=[letters["issued"].property_id])
    assert figures(rows[0], "expiring") == (0, 0)
    rows, _ = letter_counts(now=four_left + dt.timedelta(seconds=1), property_ids=[letters["issued"].property_id])
    assert figures(rows[0], "expiring") == figures(rows[0], "outstanding") and rows[0].expiring.letters == 2
    rows, _ = letter_counts(now=EXPIRES_AT, property_ids=[letters["issued"].property_id])  # no tick ran
    assert figures(rows[0], "outstanding") == (0, 0)
    assert figures(rows[0], "expired") == (2, letter_amount(letters["reissued"]) + letter_amount(letters["issued"]))


def test_the_report_page_filters_by_property_and_keeps_staff_to_theirs(letters, reference_data):
    url = reverse("prizes:letter_report")
    grc_manager = client_of(make_user(PROMOTIONS_MANAGER, properties=["GRC"]))
    with time_machine.travel(NEXT_DAY + dt.timedelta(days=3), tick=False):
        html = html_of(grc_manager, url)
        assert "Gold Reef City" in html and "Emnotweni" not in html
        assert rand_cents(letter_amount(letters["paid"])) in html
        html = html_of(grc_manager, url + "?property=EMN")  # not theirs: not a choice, never shown
        assert "Emnotweni</td>" not in html and rand_cents(letter_amount(letters["emn"])) not in html
        auditor = client_of(make_user(AUDITOR))
        assert "Emnotweni" in html_of(auditor, url) and "Gold Reef City</td>" not in html_of(
            auditor, url + "?property=EMN"
        )


# --- The payouts of a day -----------------------------------------------------------------------


@pytest.fixture
def payouts_at_midnight(winners, desk_actor):
    """Present's letter paid at 23:59:59 on Mon 20 Oct by Cashier One; Declined's at 00:00:00
    on Tue 21 Oct by Cashier Two; Proxied's at 10:00 on the 20th by Cashier Two (Johannesburg)."""
    late = dt.datetime(2025, 10, 20, 23, 59, 59, tzinfo=SAST)
    first = pay(issue(desk_actor, winners["present"]), at=late, by="Cashier One")
    second = pay(issue(desk_actor, winners["declined"]), at=late + dt.timedelta(seconds=1), by="Cashier Two")
    third = pay(issue(desk_actor, winners["proxied"]), at=late.replace(hour=10, minute=0, second=0), by="Cashier Two")
    return {"20": third + first, "21": second}


def test_the_day_runs_midnight_to_midnight_in_johannesburg(payouts_at_midnight):
    day20 = payout_summary(day=dt.date(2025, 10, 20), property_ids=None)
    day21 = payout_summary(day=dt.date(2025, 10, 21), property_ids=None)
    assert [p.pk for p in day20.payouts] == [p.pk for p in payouts_at_midnight["20"]]
    assert [p.pk for p in day21.payouts] == [p.pk for p in payouts_at_midnight["21"]]
    paid = payouts_at_midnight["20"]
    assert day20.cash_cents == sum(p.amount_cents for p in paid if p.kind == "cash")
    assert day20.play_cents == sum(p.amount_cents for p in paid if p.kind == "play")
    assert day20.total_cents == sum(p.amount_cents for p in paid)
    by_cashier = {c.paid_by: c for c in day20.by_cashier}
    assert by_cashier["Cashier One"].cash_cents == sum(
        p.amount_cents for p in paid if p.paid_by == "Cashier One" and p.kind == "cash"
    )
    assert by_cashier["Cashier Two"].play_cents == sum(
        p.amount_cents for p in paid if p.paid_by == "Cashier Two" and p.kind == "play"
    )
    assert by_cashier["Cashier Two"].cash_cents == 0  # the proxied winner's prize is +Play only


def test_the_summary_page_csv_and_pdf_agree(payouts_at_midnight, cashier):
    url = reverse("prizes:payout_summary") + "?day=2025-10-20"
    paid = payouts_at_midnight["20"]
    total = rand_cents(sum(p.amount_cents for p in paid))
    html = html_of(cashier, url)
    assert total in html and "Cashier One" in html and "format=csv" in html
    response = cashier.get(url + "&format=csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][0] == "paid at" and len(rows) == 1 + len(paid)
    assert [row[2] for row in rows[1:]] == [p.letter.number for p in paid]
    assert [row[6] for row in rows[1:]] == [f"{p.amount_cents / 100:.2f}" for p in paid]
    assert rows[-1][0] == "Mon 20 Oct 2025 23:59" and rows[-1][8] == "Cashier One"
    response = cashier.get(url + "&format=pdf")
    assert response["Content-Type"] == "application/pdf"
    text = pdf_text(response.content, flat=True)
    assert "Cash desk payouts of 20 Oct 2025" in text and total in text
    assert all(p.letter.number in text for p in paid) and "Cashier Two" in text


def test_a_cashier_of_one_casino_sees_its_payouts_only(payouts_at_midnight, winners, desk_actor, reference_data):
    emn_payouts = pay(
        issue(desk_actor, winners["emn"], now=EMN_AT + dt.timedelta(days=1)),
        at=dt.datetime(2025, 10, 20, 12, 0, tzinfo=SAST),
        by="Cashier Three",
    )
    emn_cashier = make_user(CASH_DESK)
    give_properties(emn_cashier, ["EMN"])
    html = html_of(client_of(emn_cashier), reverse("prizes:payout_summary") + "?day=2025-10-20")
    assert "Cashier Three" in html and "Cashier One" not in html
    assert rand_cents(sum(p.amount_cents for p in emn_payouts)) in html
    assert "Cashier One" in html_of(client_of(make_user(AUDITOR)), reverse("prizes:payout_summary") + "?day=2025-10-20")


# --- The member page ----------------------------------------------------------------------------


def test_the_member_page_lists_letters_with_days_left_paid_by_whom_and_voided(letters, winners, desk, cashier):
    declined = winners["declined"].member
    with time_machine.travel(DRAW_AT + dt.timedelta(days=5), tick=False):
        html = html_of(cashier, reverse("members:detail", args=[declined.pk]))
    assert 'id="member-letters"' in html
    assert letters["voided"].number in html and "Lost in a taxi" in html
    assert (
        letters["reissued"].number in html
        and f"{days_left(winners['declined'], DRAW_AT + dt.timedelta(days=5))} days left" in html
    )
    html = html_of(desk, reverse("members:detail", args=[winners["present"].member_id]))
    assert letters["paid"].number in html and "by Cashier One" in html


def _prizes_panel_queries(user, member) -> tuple[int, str]:
    """The member page's prizes panel alone (the page's other panels are other apps')."""
    request = RequestFactory().get(reverse("members:detail", args=[member.pk]))
    request.user = user
    with CaptureQueriesContext(connection) as queries:
        html = Template("{% load prizes_tags %}{% member_prizes member %}").render(
            RequestContext(request, {"member": member})
        )
    return len(queries), html


def test_the_member_pages_prizes_read_as_many_queries_for_two_wins_as_for_five(reference_data, user_for):
    series = make_series()
    desk_actor = Actor.for_user(user_for(REWARDS_DESK))
    _, (pick,) = complete_draw(series, DRAW_AT, [PickOutcome.PRESENT])
    member = pick.member
    store(pick.draw, pick, cash(10_000))
    issue(desk_actor, pick)

    def win(days: int):
        _, (more,) = complete_draw(series, DRAW_AT + dt.timedelta(days=days), [PickOutcome.PRESENT], [member])
        store(more.draw, more, cash(10_000 * days), play(1_000))
        return more

    with time_machine.travel(NEXT_DAY, tick=False):
        win(1)  # a lettered win and one the desk may issue: every kind of read is made
        two, _ = _prizes_panel_queries(make_user(REWARDS_DESK), member)
        pay(issue(desk_actor, win(2), now=DRAW_AT + dt.timedelta(days=2, hours=1)), at=NEXT_DAY, by="Cashier")
        win(3), win(4)
        five, html = _prizes_panel_queries(make_user(REWARDS_DESK), member)  # a new request's user
    assert html.count('class="card mb-2 member-win"') == 5 and html.count("Issue letter") == 3
    assert html.count('id="member-letter-') == 2 and "by Cashier" in html
    assert five == two and two <= 10  # the user: 4 (permissions, staff profile); the prizes: 6


# --- Query budgets ------------------------------------------------------------------------------


REPORTS = {"prizes:letter_report": "", "prizes:uncollected": "", "prizes:payout_summary": "?day=2025-10-16"}


def _report_queries(client) -> dict[str, int]:
    counts = {}
    for name, query in REPORTS.items():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse(name) + query).status_code == 200
        counts[name] = len(queries)
    return counts


def test_the_reports_read_as_many_queries_however_many_letters(letters, desk_actor):
    manager = client_of(make_user(PROMOTIONS_MANAGER))
    with time_machine.travel(NEXT_DAY + dt.timedelta(hours=3), tick=False):
        before = _report_queries(manager)
        draw, picks = complete_draw(make_series(property_code="GH"), DRAW_AT, [PickOutcome.PRESENT] * 3)
        for i, pick in enumerate(picks):
            store(draw, pick, cash(10_000 * (i + 1)), play(500))
            letter = issue(desk_actor, pick)
            if i:
                pay(letter, at=NEXT_DAY + dt.timedelta(hours=2), by=f"Cashier {i}")
        after = _report_queries(manager)
    # Each: 8 of the request (session, user, permissions, staff profile, the session saved), the
    # rest the report's (letters: the counts, the two filter lists).
    assert after == before and all(n <= 12 for n in after.values()), after
