"""The member's history (issue 13 item 13): activations, proxies and declines (revoked or not) and
wins, with the record's own changes, newest first, a page at a time. Here in proxies' tests: the
top app, whose tests may build every part of it."""

import datetime as dt
import html
import re

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.models import AuditEvent
from draws.engine import draw_start, pick_outcome_record
from draws.models import PickOutcome
from draws.services import activation_create, draw_close_window
from draws.tests.factories import make_draw
from members.tests.factories import MemberFactory, PointsEntryFactory
from promotions.tests.factories import make_series
from proxies.services import decline_revoke
from proxies.tests.factories import decline, desk_actor, nominate

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DAY = dt.datetime(2026, 3, 4, tzinfo=SAST)
WINDOWS = [{"day": -1, "open": "00:00", "close_before": 5}]


def _at(hour: int, minute: int = 0) -> dt.datetime:
    return DAY.replace(hour=hour, minute=minute)


@pytest.fixture
def sipho(reference_data):
    """Tickets for the 12:00 and the 16:00 draws (09:00, 09:30); a proxy for the 12:00 (10:00);
    a decline for the 16:00 (10:30), withdrawn at 11:00; the 12:00 draw won (12:05)."""
    member = MemberFactory(card_number="7300000001", first_name="Sipho", last_name="Dlamini")
    PointsEntryFactory(member=member, points=500, earned_at=DAY - dt.timedelta(days=1))
    series = make_series(windows=WINDOWS)
    noon, four = make_draw(series, _at(12)), make_draw(series, _at(16))
    with time_machine.travel(_at(9), tick=False):
        activation_create(actor=Actor.system("test"), draw_id=noon.pk, card_number="7300000001", channel="ehost")
    with time_machine.travel(_at(9, 30), tick=False):
        activation_create(actor=Actor.system("test"), draw_id=four.pk, card_number="7300000001", channel="ehost")
    nominate(participant=member, draw=noon, now=_at(10))
    registration = decline(member=member, draw=four, now=_at(10, 30))
    decline_revoke(
        actor=desk_actor(),
        registration_id=registration.pk,
        reason="Will be here.",
        card_number="7300000001",
        now=_at(11),
    )
    # Sipho is the noon draw's only entrant: its pick 1, and the proxy stands for him at 12:05.
    assert draw_close_window(draw_id=noon.pk, now=noon.tickets_close_at)
    assert draw_start(actor=Actor.system("test"), draw_id=noon.pk, now=_at(12))
    pick = noon.picks.get(outcome="")
    pick_outcome_record(
        actor=Actor.system("test"), draw_id=noon.pk, pick_id=pick.pk, outcome=PickOutcome.PROXY_PRESENT, now=_at(12, 5)
    )
    return {"member": member, "noon": noon, "four": four}


def _rows(page: str) -> list[str]:
    table = page[page.index('id="member-history"') :]
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", row)).split()) for row in rows]


def test_the_member_page_shows_activations_registers_and_wins_newest_first(desk, sipho):
    rows = _rows(desk.get(reverse("members:detail", args=[sipho["member"].pk])).content.decode())
    noon, four = sipho["noon"].name, sipho["four"].name
    assert [row.split()[5] for row in rows[:5]] == ["Win", "Decline", "Proxy", "Activation", "Activation"]
    assert rows[0].startswith("Wed 04 Mar 2026 12:05 Win Proxy present: a winner in " + noon)
    assert "represented by Lerato Khumalo" in rows[0]
    assert (
        f"Declines to be present at {four} — withdrawn" in rows[1]
        and "Withdrawn Wed 04 Mar 2026 11:00: Will be here." in rows[1]
    )
    last4 = sipho["member"].nominations_made.get().nominee_id_number[-4:]
    assert f"Lerato Khumalo (ID …{last4}) nominated as proxy for {noon}" in rows[2] and "revoked" not in rows[2]
    assert f"for {four}" in rows[3] and f"for {noon}" in rows[4]


def test_a_revoked_nomination_stays_in_the_history_marked_revoked(desk, sipho):
    from proxies.services import proxy_revoke

    evening = make_draw(sipho["noon"].series, _at(20))
    with time_machine.travel(_at(13), tick=False):
        activation_create(actor=Actor.system("test"), draw_id=evening.pk, card_number="7300000001", channel="ehost")
    nomination = nominate(participant=sipho["member"], draw=evening, now=_at(13, 30))
    proxy_revoke(actor=desk_actor(), nomination_id=nomination.pk, reason="Came back.", now=_at(14))
    rows = _rows(desk.get(reverse("members:detail", args=[sipho["member"].pk])).content.decode())
    proxy = next(row for row in rows if " Proxy " in row and evening.name in row)
    assert "— revoked" in proxy and "Revoked Wed 04 Mar 2026 14:00: Came back." in proxy


def test_the_cash_desk_sees_no_registers_in_the_history(cashier, sipho):
    rows = _rows(cashier.get(reverse("members:detail", args=[sipho["member"].pk])).content.decode())
    assert rows and not any(" Proxy " in row or " Decline " in row for row in rows)


def test_a_long_history_pages_newest_first(desk, sipho):
    member = sipho["member"]
    series = make_series(windows=WINDOWS)
    for day in range(1, 31):  # 30 more activations, one a day before
        draw = make_draw(series, _at(20) - dt.timedelta(days=day))
        PointsEntryFactory(member=member, points=500, earned_at=draw.scheduled_at - dt.timedelta(days=1))
        with time_machine.travel(_at(19) - dt.timedelta(days=day), tick=False):
            activation_create(actor=Actor.system("test"), draw_id=draw.pk, card_number="7300000001", channel="ehost")
    detail = desk.get(reverse("members:detail", args=[member.pk])).content.decode()
    assert len(_rows(detail)) == 10 and reverse("members:history", args=[member.pk]) in detail

    url = reverse("members:history", args=[member.pk])
    first = desk.get(url)
    total = first.context["page"].paginator.count
    record = AuditEvent.objects.filter(object_type="members.member", object_id=str(member.pk)).count()
    assert total == 32 + 1 + 1 + 1 + record  # activations, the proxy, the decline, the win, the record's own
    pages = [_rows(first.content.decode())] + [
        _rows(desk.get(url, {"page": n}).content.decode())
        for n in range(2, first.context["page"].paginator.num_pages + 1)
    ]
    assert [len(p) for p in pages[:-1]] == [25] * (len(pages) - 1)
    flat = [row for page in pages for row in page]
    assert len(flat) == total
    stamps = [dt.datetime.strptime(row[:21], "%a %d %b %Y %H:%M") for row in flat]
    assert stamps == sorted(stamps, reverse=True)
    assert flat[-1].split()[5] in ("Activation", "Record")  # the oldest last
