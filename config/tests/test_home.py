"""The start page of each role (issue 9, item 3): the desk's draws of the day at its property,
the manager's list of what needs attention, the auditor's latest draws, the cash desk's note,
each within a query budget that does not grow with the data."""

import datetime as dt
import html
import re

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from core.audit import Actor
from core.models import WorkerHeartbeat
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK
from draws.models import Draw, DrawStatus
from draws.tests.builders import add_entries
from draws.tests.factories import make_draw
from members.models import ImportJob, ImportStatus
from members.staff import staff_profile_set
from promotions.models import EarningRule, Promotion, PromotionStatus
from promotions.tests.factories import make_series
from proxies.tests.factories import decline, nominate
from testing.db import triggers_off

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("clock")]

SAST = dt.timezone(dt.timedelta(hours=2))
NOW = dt.datetime(2026, 3, 4, 10, 50, tzinfo=SAST)
AFTERNOON = [{"day": 0, "open": "17:00", "close_before": 5}]
EARLY = [{"day": -1, "open": "00:00", "close_before": 5}]


@pytest.fixture
def clock():
    """Wed 4 Mar 2026 10:50 in Johannesburg, for the fixtures as much as for the test."""
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


def at(hour: int, minute: int = 0, days: int = 0) -> dt.datetime:
    return NOW.replace(hour=hour, minute=minute) + dt.timedelta(days=days)


def login(user_for, role: str | None, home: str | None = None, others: tuple[str, ...] = (), **kwargs) -> Client:
    from members.models import Property

    user = user_for(role, properties=(), **kwargs)
    if home:
        staff_profile_set(
            actor=Actor.system("test"),
            user=user,
            home_property=Property.objects.get(code=home),
            other_properties=list(Property.objects.filter(code__in=others)),
        )
    client = Client()
    client.force_login(user)
    return client


def page(client) -> str:
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def queries(client) -> int:
    with CaptureQueriesContext(connection) as captured:
        page(client)
    return len(captured)


def link(name: str, pk: int) -> str:
    return f'href="{reverse(name, args=[pk])}"'


# --- The desk --------------------------------------------------------------------------------


@pytest.fixture
def grc_day(clock, reference_data):
    """Today at Gold Reef City: a draw taking tickets now (two activations, a proxy, a decline),
    one whose window opens this afternoon, one whose window closed this morning; a Golden Horse
    draw today and a Gold Reef City draw tomorrow, which the GRC desk does not see today."""
    open_now = make_draw(make_series(property_code="GRC"), at(13))  # tickets 08:00-12:55
    first, second = add_entries(open_now, [3, 4])
    nominate(participant=first, draw=open_now, now=timezone.now())
    decline(member=second, draw=open_now, now=timezone.now())
    return {
        "open_now": open_now,
        "later": make_draw(make_series(property_code="GRC", windows=AFTERNOON), at(20)),
        "closed": make_draw(make_series(property_code="GRC", windows=EARLY), at(9)),
        "gh_today": make_draw(make_series(property_code="GH"), at(13, 30)),
        "tomorrow": make_draw(make_series(property_code="GRC"), at(13, days=1)),
    }


def test_the_desk_sees_todays_draws_at_its_property_with_windows_and_counts(user_for, grc_day):
    content = page(login(user_for, REWARDS_DESK, "GRC"))
    assert "Today's draws at Gold Reef City" in content
    for name in ("open_now", "later", "closed"):
        assert link("draws:detail", grc_day[name].pk) in content, name
    for name in ("gh_today", "tomorrow"):
        assert link("draws:detail", grc_day[name].pk) not in content, name
    assert "Open until 12:55 (2 h 05 min left)." in content
    assert "Opens at 17:00." in content and "Closed at 08:55." in content
    row = content[content.index(link("draws:detail", grc_day["open_now"].pk)) :].split("</tr>")[0]
    counts = [re.sub(r"<[^>]+>", "", cell.split("</td>")[0]) for cell in row.split('<td class="text-end">')[1:]]
    assert counts == ["2", "7", "1", "1"]  # activations, tickets, proxies, declines
    assert link("proxies:draw_register", grc_day["open_now"].pk) in row  # who they are, one click away
    # In the order of the day.
    positions = [content.index(link("draws:detail", grc_day[n].pk)) for n in ("closed", "open_now", "later")]
    assert positions == sorted(positions)


def test_a_desk_without_a_property_sees_every_propertys_draws_today(user_for, grc_day):
    content = page(login(user_for, REWARDS_DESK))
    assert "Today's draws at every property" in content
    assert link("draws:detail", grc_day["gh_today"].pk) in content
    assert link("draws:detail", grc_day["tomorrow"].pk) not in content


def test_a_draft_promotions_draws_stay_off_the_desks_page(user_for, grc_day):
    Promotion.objects.update(status=PromotionStatus.DRAFT)
    content = page(login(user_for, REWARDS_DESK, "GRC"))
    assert link("draws:detail", grc_day["open_now"].pk) not in content
    assert "No draws today at Gold Reef City" in content


def test_the_desk_reads_no_scheduler_jargon(user_for, grc_day):
    WorkerHeartbeat.objects.create(name="beat", last_tick_at=timezone.now() - dt.timedelta(seconds=12))
    content = page(login(user_for, REWARDS_DESK, "GRC"))
    assert not re.search(r"\btick\b|Scheduled jobs|Background jobs|scheduler", content)


def test_the_desk_is_told_in_plain_words_when_windows_may_not_close(user_for, reference_data):
    WorkerHeartbeat.objects.create(name="beat", last_tick_at=timezone.now() - dt.timedelta(minutes=30))
    content = page(login(user_for, REWARDS_DESK, "GRC"))
    assert "Tickets may not close by themselves right now. Tell the promotions manager." in content


# --- The manager -----------------------------------------------------------------------------


@pytest.fixture
def attention(clock, reference_data):
    """At Gold Reef City: a window closing today, a draw waiting for Start, a running one, a
    series without a rule, a promotion ending in 5 days, imports running and rejected."""
    closing = make_draw(make_series(property_code="GRC"), at(13))
    waiting = make_draw(make_series(property_code="GRC", windows=EARLY), at(9, 30))
    Draw.objects.filter(pk=waiting.pk).update(status=DrawStatus.CLOSED, entries_frozen_at=at(9, 25))
    running = make_draw(make_series(property_code="GRC", windows=EARLY), at(10))
    with triggers_off():  # a state the engine reaches in several steps
        Draw.objects.filter(pk=running.pk).update(status=DrawStatus.RUNNING, started_at=at(10), winners_wanted=3)
    no_rule = make_series(property_code="GRC")
    make_draw(no_rule, at(13, days=2))
    make_draw(no_rule, at(13, days=3))
    EarningRule.objects.filter(series=no_rule).delete()
    ending = Promotion.objects.create(
        name="Summer Spin", code="summer-spin", starts_on="2026-01-01", ends_on="2026-03-09", status="published"
    )
    ending.properties.add(reference_data["properties"]["GRC"])
    rejected = ImportJob.objects.create(
        kind="points", original_name="bad.csv", status=ImportStatus.FAILED, error_count=3
    )
    running_import = ImportJob.objects.create(
        kind="members", original_name="members.csv", status=ImportStatus.RUNNING, rows_total=1000, rows_imported=250
    )
    old_rejected = ImportJob.objects.create(kind="points", original_name="old.csv", status=ImportStatus.FAILED)
    ImportJob.objects.filter(pk=old_rejected.pk).update(created_at=timezone.now() - dt.timedelta(days=8))
    done = ImportJob.objects.create(kind="points", original_name="good.csv", status=ImportStatus.SUCCEEDED)
    gh_closing = make_draw(make_series(property_code="GH"), at(13, 15))
    # A past season's draw never run (a seed promotion loaded today): not on the start page.
    old_season = make_draw(make_series(property_code="GRC", windows=EARLY), at(9, 30, days=-8))
    Draw.objects.filter(pk=old_season.pk).update(status=DrawStatus.CLOSED, entries_frozen_at=at(9, 25, days=-8))
    return locals()


def test_the_manager_sees_what_needs_attention_at_their_properties(user_for, attention):
    content = page(login(user_for, PROMOTIONS_MANAGER, "GRC"))
    assert "Needs your attention at Gold Reef City" in content
    closing = content[content.index('id="closing-today"') :].split("</div></div></div>")[0]
    assert link("draws:detail", attention["closing"].pk) in closing and "Tickets close at 12:55." in closing
    assert link("draws:detail", attention["gh_closing"].pk) not in content  # another casino
    to_run = content[content.index('id="draws-to-run"') :].split("</div></div></div>")[0]
    assert "Was due at 09:30: waiting for Start." in to_run
    assert "Drawing now: 0 of 3 winners." in to_run
    assert link("draws:detail", attention["old_season"].pk) not in to_run
    assert to_run.index(link("draws:detail", attention["waiting"].pk)) < to_run.index(
        link("draws:detail", attention["running"].pk)
    )
    assert link("promotions:series_edit", attention["no_rule"].pk) in content
    assert "2 draws to come, the first Fri 06 Mar 2026 13:00" in content
    assert link("promotions:detail", attention["ending"].pk) in content and "ends 09 Mar 2026" in content
    imports = content[content.index('id="imports-to-watch"') :].split("</div></div></div>")[0]
    assert link("members:import_detail", attention["rejected"].pk) in imports
    assert "Rejected" in imports and "3 rows with errors" in imports
    assert "Running: 250 of 1,000 rows" in imports
    assert link("members:import_detail", attention["old_rejected"].pk) not in imports
    assert link("members:import_detail", attention["done"].pk) not in imports


def test_a_manager_of_two_casinos_sees_both(user_for, attention):
    content = page(login(user_for, PROMOTIONS_MANAGER, "GRC", others=("GH",)))
    assert "Needs your attention at Gold Reef City and Golden Horse" in content
    assert link("draws:detail", attention["gh_closing"].pk) in content


def test_a_promotion_elsewhere_or_ending_later_is_not_listed(user_for, attention, reference_data):
    attention["ending"].properties.set([reference_data["properties"]["GH"]])
    later = Promotion.objects.create(
        name="Winter", code="winter", starts_on="2026-01-01", ends_on="2026-03-19", status="published"
    )
    later.properties.add(reference_data["properties"]["GRC"])
    content = page(login(user_for, PROMOTIONS_MANAGER, "GRC"))
    assert link("promotions:detail", attention["ending"].pk) not in content
    assert link("promotions:detail", later.pk) not in content


def test_the_manager_reads_the_background_jobs_in_plain_words(user_for, reference_data):
    manager = login(user_for, PROMOTIONS_MANAGER, "GRC")
    assert "Background jobs have not run yet" in page(manager)
    beat = WorkerHeartbeat.objects.create(name="beat", last_tick_at=timezone.now() - dt.timedelta(seconds=12))
    content = page(manager)
    assert "Background jobs: running, last check 12 s ago." in content and not re.search(r"\btick\b", content)
    assert "Nothing needs your attention right now." in content
    beat.last_tick_at = timezone.now() - dt.timedelta(minutes=10)
    beat.save()
    assert "Background jobs have stopped: the last check was at Wed 04 Mar 2026 10:40." in page(manager)


# --- The auditor, the cash desk, no role -----------------------------------------------------


def test_the_auditor_sees_the_latest_draws_with_links_to_their_records(user_for, reference_data):
    series = make_series(property_code="GRC", windows=EARLY)
    done = make_draw(series, at(9))
    running = make_draw(series, at(10))
    with triggers_off():  # states the engine reaches in several steps
        Draw.objects.filter(pk=done.pk).update(
            status=DrawStatus.DRAWN, completed_at=at(9, 20), ended_short_reason="Only two members present."
        )
        Draw.objects.filter(pk=running.pk).update(status=DrawStatus.RUNNING, started_at=at(10))
    waiting = make_draw(series, at(13))
    content = page(login(user_for, AUDITOR))
    recent = content[content.index('id="recent-draws"') :].split("</table>")[0]
    assert link("draws:record", done.pk) in recent and link("draws:record_verify", done.pk) in recent
    assert "Wed 04 Mar 2026 09:20" in recent and "Ended with fewer winners: Only two members present." in recent
    assert link("draws:record", waiting.pk) not in content
    records = content[content.index('id="recent-records"') :].split("</ul>")[0]
    assert link("draws:record", running.pk) in records and "being drawn now" in records
    assert reverse("audit") in records


def test_the_cash_desk_scans_a_letter_from_its_start_page(user_for, reference_data):
    content = page(login(user_for, CASH_DESK, "GRC"))
    assert "not in the system yet" not in content
    assert 'id="scan-form"' in content and f'action="{reverse("prizes:cash_desk")}"' in content
    assert reverse("members:lookup") in content
    for other in ('id="desk-today"', 'id="manager-attention"', 'id="auditor-recent"'):
        assert other not in content


def test_a_user_without_a_role_is_told_to_ask_for_one(user_for, reference_data):
    content = page(login(user_for, None))
    assert "You have no role yet: ask a manager to give you one." in content
    assert 'id="cash-desk"' not in content and 'id="desk-today"' not in content


# --- Query budgets: a fixed number of statements whatever the data ---------------------------


def _more_of_everything(reference_data):
    """Another round of every kind of row each role's page reads."""
    for hour in (14, 15, 16):
        draw = make_draw(make_series(property_code="GRC"), at(hour))
        members = add_entries(draw, [2, 5])
        nominate(participant=members[0], draw=draw, now=timezone.now())
        decline(member=members[1], draw=draw, now=timezone.now())
        done = make_draw(make_series(property_code="GRC", windows=EARLY), at(hour - 8))
        with triggers_off():  # a state the engine reaches in several steps
            Draw.objects.filter(pk=done.pk).update(status=DrawStatus.DRAWN, completed_at=at(hour - 7))
        waiting = make_draw(make_series(property_code="GRC", windows=EARLY), at(hour - 6))
        with triggers_off():  # a state the engine reaches in several steps
            Draw.objects.filter(pk=waiting.pk).update(status=DrawStatus.CLOSED)
        ImportJob.objects.create(kind="points", original_name=f"{hour}.csv", status=ImportStatus.FAILED)
        no_rule = make_series(property_code="GRC")
        make_draw(no_rule, at(hour, days=2))
        EarningRule.objects.filter(series=no_rule).delete()
        ending = Promotion.objects.create(
            name=f"P{hour}", code=f"p{hour}", starts_on="2026-01-01", ends_on="2026-03-10", status="published"
        )
        ending.properties.add(reference_data["properties"]["GRC"])


@pytest.mark.parametrize(
    ("role", "budget"),
    # The manager, the auditor and a superuser read the audit log's latest seal too (1).
    [(REWARDS_DESK, 13), (PROMOTIONS_MANAGER, 17), (AUDITOR, 14), (CASH_DESK, 10), ("superuser", 15)],
)
def test_each_roles_start_page_stays_within_its_query_budget(role, budget, user_for, grc_day, attention):
    # Common to every page: the session (read, then saved: 3), the user, their permissions (2);
    # then the roles and the staff profile (2), and each section's own statements.
    client = login(user_for, role, "GRC", others=("GH",))
    WorkerHeartbeat.objects.create(name="beat", last_tick_at=timezone.now())
    before = queries(client)
    _more_of_everything(attention["reference_data"])
    assert queries(client) == before <= budget
