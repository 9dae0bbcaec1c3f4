"""The draw engine: electronic and manual picks per DRAWS.md, outcomes, redraws, completion."""

import datetime as dt

import pytest
import time_machine
from django.db import DatabaseError, connection, transaction

from core.errors import DomainError
from core.models import AuditEvent
from draws.engine import (
    draw_advance,
    draw_end_short,
    draw_key_serial,
    draw_start,
    draws_start_due,
    pick_outcome_record,
    serial_owner,
)
from draws.models import Draw, DrawPick, DrawStatus, PickOutcome
from draws.selection import electronic_serial
from draws.tests.builders import MANAGER, SAST, add_entries, closed_draw, pin_seed
from draws.tests.factories import make_draw
from members.models import Member
from members.tests.factories import ExclusionFactory
from promotions.models import DrawMethod
from promotions.tests.factories import make_series
from proxies.models import ProxyNomination

pytestmark = pytest.mark.django_db

DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)


@pytest.fixture(autouse=True)
def after_the_draw_time():
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=1), tick=False):
        yield


@pytest.fixture
def series(reference_data):
    return make_series()


def expected_serial(draw: Draw, k: int) -> int:
    return electronic_serial(
        seed=bytes.fromhex(draw.seed_hex), entries_sha256=draw.entries_sha256, k=k, tickets_total=draw.tickets_total
    )


def start(draw: Draw) -> DrawPick:
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    return draw.picks.get(outcome="")


def record(pick: DrawPick, outcome=PickOutcome.PRESENT, reason="") -> DrawPick:
    # A no-show is recorded once the presentation window (90 s from the pick) has passed.
    now = pick.picked_at + dt.timedelta(seconds=90) if outcome == PickOutcome.NO_SHOW else None
    seen = "sa_id" if outcome == PickOutcome.PRESENT else ""  # Present needs the ID type seen
    return pick_outcome_record(
        actor=MANAGER, draw_id=pick.draw_id, pick_id=pick.pk, outcome=outcome, reason=reason, id_type_seen=seen, now=now
    )


def test_start_makes_pick_one_as_draws_md_gives_it_and_waits_for_its_outcome(series):
    draw, _ = closed_draw(series, DRAW_AT, [3, 40, 7, 50])
    pick = start(draw)
    assert (pick.k, pick.seq, pick.pool) == (1, 1, "")
    assert pick.serial == expected_serial(draw, 1)
    assert pick.member == serial_owner(draw, pick.serial).member
    draw.refresh_from_db()
    assert draw.status == DrawStatus.RUNNING and draw.started_by == MANAGER.label
    assert (draw.winners_wanted, draw.win_once, draw.witness_name) == (5, "draw", "Thandi Witness")
    assert draw.revealed_seed() == ""  # secret until complete
    assert not draw_start(actor=MANAGER, draw_id=draw.pk)  # a second Start: the same run
    assert draw.picks.count() == 1


def test_owner_lookup_finds_the_range_edges(series):
    draw, members = closed_draw(series, DRAW_AT, [3, 4])
    assert [serial_owner(draw, s).member for s in (1, 3, 4, 7)] == [members[0], members[0], members[1], members[1]]
    assert serial_owner(draw, 8) is None


def test_a_no_show_is_redrawn_at_once_and_five_winners_complete_the_draw(series):
    draw, _ = closed_draw(series, DRAW_AT, [100] * 12)
    pick = start(draw)
    record(pick, PickOutcome.NO_SHOW)
    while (draw := Draw.objects.get(pk=draw.pk)).status == DrawStatus.RUNNING:
        record(draw.picks.get(outcome=""))
    picks = list(draw.picks.all())
    assert [p.k for p in picks] == list(range(1, len(picks) + 1))
    assert all(p.serial == expected_serial(draw, p.k) for p in picks)
    assert picks[0].outcome == PickOutcome.NO_SHOW and picks[1].k == 2
    assert sum(p.is_winner() for p in picks) == 5
    assert draw.revealed_seed() == draw.seed_hex and draw.completed_at is not None
    completed = AuditEvent.objects.get(action="draw.completed")
    assert completed.data["seed_hex"] == draw.seed_hex and len(completed.data["winners"]) == 5
    with pytest.raises(DomainError, match="not part of a running draw"):
        record(picks[-1])


def test_a_member_drawn_again_after_winning_is_redrawn_automatically(series):
    # Two entrants, one holding most tickets: their second selection is redrawn.
    draw, (big, small) = closed_draw(series, DRAW_AT, [20, 1])
    pin_seed(draw, lambda serials: serials[0] <= 20 and serials[1] <= 20)
    series.winners_per_draw = 2
    series.save()
    pick = start(draw)
    assert pick.member == big
    record(pick)
    picks = list(Draw.objects.get(pk=draw.pk).picks.all())
    redraws = [p for p in picks if p.outcome == PickOutcome.REDRAW_ALREADY_WINNER]
    assert redraws and all(p.member == big for p in redraws)
    assert f"already won pick {pick.k}" in redraws[0].reason
    assert picks[-1].member == small and picks[-1].awaits_outcome()
    assert [p.serial for p in picks] == [expected_serial(draw, p.k) for p in picks]


def test_a_disqualification_needs_a_reason_and_only_the_pick_awaiting_its_outcome_takes_one(series):
    draw, _ = closed_draw(series, DRAW_AT, [10] * 8)
    pick = start(draw)
    with pytest.raises(DomainError, match="Say why"):
        record(pick, PickOutcome.DISQUALIFIED)
    with pytest.raises(DomainError, match="present, proxy present, declined, no-show or disqualified"):
        record(pick, PickOutcome.REDRAW_IS_PROXY)
    record(pick, PickOutcome.DISQUALIFIED, "Card not theirs")
    with pytest.raises(DomainError, match="already has its outcome"):
        record(pick, PickOutcome.PRESENT)
    assert DrawPick.objects.get(pk=pick.pk).reason == "Card not theirs"


def test_won_earlier_the_same_promotional_day_is_redrawn_and_another_day_is_not(reference_data):
    series = make_series()
    series.win_once_scope = "day"
    series.winners_per_draw = 1
    series.save()
    three_pm, (winner, other) = closed_draw(series, DRAW_AT, [1, 1])
    first = start(three_pm)
    record(first)
    # The 7pm draw: the 3pm winner holds all but one ticket.
    loser = other if first.member == winner else winner
    seven_pm, _ = closed_draw(series, DRAW_AT.replace(hour=19), [20, 1], [first.member, loser])
    pin_seed(seven_pm, lambda serials: serials[0] <= 20)
    with time_machine.travel(DRAW_AT.replace(hour=19, minute=1), tick=False):
        assert draw_start(actor=MANAGER, draw_id=seven_pm.pk)
    picks = list(seven_pm.picks.all())
    scoped = [p for p in picks if p.outcome == PickOutcome.REDRAW_WON_IN_SCOPE]
    assert scoped and all(p.member == first.member for p in scoped)
    assert "once per promotional day" in scoped[0].reason and three_pm.name in scoped[0].reason
    assert picks[-1].member == loser and picks[-1].awaits_outcome()


def test_a_win_on_another_day_or_under_a_per_draw_rule_does_not_redraw(reference_data):
    per_draw = make_series()
    per_draw.winners_per_draw = 1
    per_draw.save()
    first_draw, (only,) = closed_draw(per_draw, DRAW_AT, [5])
    record(start(first_draw))
    second, _ = closed_draw(per_draw, DRAW_AT.replace(hour=19), [5], [only])
    with time_machine.travel(DRAW_AT.replace(hour=19, minute=1), tick=False):
        pick = start(second)
    assert pick.member == only and pick.awaits_outcome()


def test_present_needs_the_id_document_seen_in_the_service_not_only_the_form(series):
    draw, _ = closed_draw(series, DRAW_AT, [10] * 8)
    pick = start(draw)
    with pytest.raises(DomainError, match="Choose the ID document the winner showed") as refused:
        pick_outcome_record(actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome="present")
    assert refused.value.code == "id_type_required"
    assert DrawPick.objects.get(pk=pick.pk).outcome == ""  # nothing recorded
    recorded = pick_outcome_record(
        actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome="present", id_type_seen="passport"
    )
    assert (recorded.outcome, recorded.id_type_seen) == (PickOutcome.PRESENT, "passport")


def test_a_member_excluded_since_activating_is_redrawn(series):
    draw, (excluded, fine) = closed_draw(series, DRAW_AT, [20, 1])
    pin_seed(draw, lambda serials: serials[0] <= 20)
    ExclusionFactory(id_number=excluded.id_number, starts_at=DRAW_AT - dt.timedelta(minutes=30))
    pick = start(draw)
    picks = list(draw.picks.all())
    assert picks[0].member == excluded and picks[0].outcome == PickOutcome.REDRAW_INELIGIBLE
    assert "exclusion register" in picks[0].reason
    assert pick.member == fine


def test_the_proxy_of_another_participant_is_redrawn(series, user_for):
    draw, (participant, nominee_member, other) = closed_draw(series, DRAW_AT, [1, 20, 1])
    pin_seed(draw, lambda serials: 2 <= serials[0] <= 21)
    # Made straight in the table: the desk refuses a nominee who has tickets in the draw, so
    # this is a nomination from before the nominee's tickets (or a RAPS session's player).
    ProxyNomination.objects.create(
        draw=draw,
        participant=participant,
        nominee_name=nominee_member.full_name,
        nominee_id_type=nominee_member.id_type,
        nominee_id_number=nominee_member.id_number,
        nominee_member=nominee_member,
        participant_id_seen=True,
        nominee_id_seen=True,
        form_signed=True,
        batch="00000000-0000-0000-0000-000000000001",
        registered_by=user_for(None),
        registered_at=DRAW_AT - dt.timedelta(hours=2),
    )
    start(draw)
    picks = list(draw.picks.all())
    proxies = [p for p in picks if p.outcome == PickOutcome.REDRAW_IS_PROXY]
    assert proxies and proxies[0].member == nominee_member
    assert participant.card_number in proxies[0].reason
    assert picks[-1].member in (participant, other)


def test_when_nobody_left_can_win_the_draw_waits_to_be_ended_short(series):
    draw, _ = closed_draw(series, DRAW_AT, [4])
    record(start(draw))
    draw.refresh_from_db()
    assert draw.status == DrawStatus.RUNNING and draw.picks.count() == 1  # no endless redraws
    assert draw_advance(actor=MANAGER, draw_id=draw.pk) is None
    with pytest.raises(DomainError, match="Say why"):
        draw_end_short(actor=MANAGER, draw_id=draw.pk, reason=" ")
    draw_end_short(actor=MANAGER, draw_id=draw.pk, reason="Only one entrant.")
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN and draw.ended_short_reason == "Only one entrant."
    assert draw.revealed_seed() == draw.seed_hex


def test_a_draw_without_entries_completes_at_once_with_the_reason(series):
    draw, _ = closed_draw(series, DRAW_AT, [])
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    draw.refresh_from_db()
    assert draw.status == DrawStatus.DRAWN and "No entries" in draw.ended_short_reason


def test_start_is_refused_while_entries_are_open_and_for_a_cancelled_draw(series):
    draw, _ = closed_draw(series, DRAW_AT, [5])
    later = make_draw(series, DRAW_AT + dt.timedelta(days=7))
    with pytest.raises(DomainError, match="Entries are still open"):
        draw_start(actor=MANAGER, draw_id=later.pk)
    Draw.objects.filter(pk=draw.pk).update(status=DrawStatus.CANCELLED)
    with pytest.raises(DomainError, match="cancelled"):
        draw_start(actor=MANAGER, draw_id=draw.pk)


# --- Manual draws ----------------------------------------------------------------------------


@pytest.fixture
def manual_draw(reference_data):
    series = make_series()
    series.method = DrawMethod.MANUAL
    series.save()
    draw, members = closed_draw(series, DRAW_AT, [10, 20, 30])
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    assert not draw.picks.exists()  # a manual draw waits for the first serial
    return draw, members


def key(draw, serial):
    return draw_key_serial(actor=MANAGER, draw_id=draw.pk, serial=serial)


@pytest.mark.parametrize(
    ("keyed", "message"),
    [("abc", "not a ticket serial"), ("0", "run from 1 to 60"), ("61", "run from 1 to 60"), ("", "not a ticket")],
)
def test_a_keyed_serial_outside_the_draw_is_refused_and_logged(manual_draw, keyed, message):
    draw, _ = manual_draw
    with pytest.raises(DomainError, match=message):
        key(draw, keyed)
    assert not draw.picks.exists()
    assert AuditEvent.objects.filter(action="draw.serial_refused", object_id=str(draw.pk)).count() == 1


def test_keyed_serials_resolve_to_their_owners_and_cannot_be_drawn_twice(manual_draw):
    draw, members = manual_draw
    pick = key(draw, " 31 ")  # a scanner's padding
    assert (pick.k, pick.serial, pick.member) == (1, 31, members[2])
    with pytest.raises(DomainError, match="Record the outcome of pick 1 first"):
        key(draw, "1")
    record(pick, PickOutcome.NO_SHOW)
    assert not draw.picks.filter(outcome="").exists()  # no automatic pick in a manual draw
    with pytest.raises(DomainError, match="already drawn"):
        key(draw, "31")
    assert key(draw, "60").k == 2


# --- The tick ----------------------------------------------------------------------------------


def test_the_tick_starts_an_electronic_draw_at_its_time_not_a_second_before_and_once(series):
    draw, _ = closed_draw(series, DRAW_AT, [5, 5])
    assert draws_start_due(now=DRAW_AT - dt.timedelta(seconds=1)) == 0
    assert draws_start_due(now=DRAW_AT) == 1
    assert draws_start_due(now=DRAW_AT + dt.timedelta(seconds=30)) == 0
    draw.refresh_from_db()
    assert draw.status == DrawStatus.RUNNING and draw.started_by == "system:tick"
    assert draw.picks.count() == 1


def test_the_tick_leaves_a_draw_whose_time_passed_long_ago_to_a_manager(series):
    """A seed promotion's past season, loaded today, is not run by the first tick."""
    draw, _ = closed_draw(series, DRAW_AT, [5, 5])
    assert draws_start_due(now=DRAW_AT + dt.timedelta(hours=6)) == 0
    assert Draw.objects.get(pk=draw.pk).status == DrawStatus.CLOSED  # Start stays the manager's
    assert draws_start_due(now=DRAW_AT + dt.timedelta(hours=5, minutes=59)) == 1


def test_the_tick_leaves_manual_and_raps_draws_to_the_manager(reference_data):
    series = make_series()
    series.method = DrawMethod.MANUAL
    series.save()
    draw, _ = closed_draw(series, DRAW_AT, [5])
    assert draws_start_due(now=DRAW_AT + dt.timedelta(minutes=5)) == 0
    assert Draw.objects.get(pk=draw.pk).status == DrawStatus.CLOSED


# --- The record is append-only ---------------------------------------------------------------------


def test_the_database_refuses_to_edit_or_delete_a_pick(series):
    draw, _ = closed_draw(series, DRAW_AT, [5, 5])
    pick = start(draw)
    for statement in (
        "UPDATE draws_drawpick SET serial = serial + 1 WHERE id = %s",
        "UPDATE draws_drawpick SET picked_by = 'someone' WHERE id = %s",
        "DELETE FROM draws_drawpick WHERE id = %s",
    ):
        with pytest.raises(DatabaseError, match="never"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement, [pick.pk])
    record(pick)
    with pytest.raises(DatabaseError, match="never edited"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE draws_drawpick SET outcome = 'no_show' WHERE id = %s", [pick.pk])
    assert DrawPick.objects.get(pk=pick.pk).outcome == PickOutcome.PRESENT


def test_a_started_draw_cannot_be_cancelled(series):
    from draws.services import draw_cancel

    draw, _ = closed_draw(series, DRAW_AT, [5, 5])
    start(draw)
    with pytest.raises(DomainError, match="has started"):
        draw_cancel(actor=MANAGER, draw_id=draw.pk, reason="Power cut")


def test_an_early_start_closes_the_proxy_and_decline_registers(reference_data):
    from draws.engine import early_start_warning
    from proxies.services import decline_refusal

    series = make_series(windows=[{"day": 0, "open": "08:00", "close": "12:00"}])
    draw, (member, _) = closed_draw(series, DRAW_AT, [5, 5])  # tickets closed at 12:00, the draw at 13:00
    early = DRAW_AT - dt.timedelta(minutes=30)
    assert "closes the proxy and decline registers early" in early_start_warning(draw, early)
    assert early_start_warning(draw, DRAW_AT) is None
    assert decline_refusal(draw=draw, member=member, now=early) is None
    with time_machine.travel(early, tick=False):
        assert draw_start(actor=MANAGER, draw_id=draw.pk, early_start_reason="The stage is free early.")
    draw.refresh_from_db()
    assert "has started: decline registrations are closed" in decline_refusal(draw=draw, member=member, now=early)


def test_start_freezes_entries_the_tick_has_not_frozen_yet(series):
    draw = make_draw(series, DRAW_AT)
    add_entries(draw, [4, 6])  # the window closed at 12:55; no tick has run since
    assert draw_start(actor=MANAGER, draw_id=draw.pk)
    draw.refresh_from_db()
    assert draw.tickets_total == 10 and len(draw.entries_sha256) == 64 and draw.picks.count() == 1
    assert AuditEvent.objects.filter(action="draw.entries_frozen", object_id=str(draw.pk)).count() == 1


def test_an_exclusion_redraw_keeps_only_the_category_on_the_record(series):
    draw, (excluded, _) = closed_draw(series, DRAW_AT, [20, 1])
    pin_seed(draw, lambda serials: serials[0] <= 20)
    ExclusionFactory(id_number=excluded.id_number, reason="Gambling problem reported by spouse")
    start(draw)
    first = draw.picks.get(seq=1)
    assert first.reason == "On the exclusion register at the moment of the pick."


@pytest.mark.parametrize("keyed", ["\u00b2", "\u0661", "12345678901234567890", "1e3", "-1"])
def test_a_keyed_serial_must_be_plain_digits(manual_draw, keyed):
    draw, _ = manual_draw
    with pytest.raises(DomainError, match="not a ticket serial"):
        key(draw, keyed)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE draws_draw SET seed_hex = repeat('0', 64) WHERE id = %s",
        "UPDATE draws_draw SET entries_sha256 = repeat('a', 64) WHERE id = %s",
        "UPDATE draws_draw SET tickets_total = tickets_total + 1 WHERE id = %s",
        "UPDATE draws_draw SET winners_wanted = 1 WHERE id = %s",
        "UPDATE draws_activation SET last_serial = last_serial WHERE draw_id = %s",
        "DELETE FROM draws_activation WHERE draw_id = %s",
    ],
)
def test_the_database_keeps_a_started_draws_entries_and_seed(series, statement):
    draw, _ = closed_draw(series, DRAW_AT, [5, 5])
    start(draw)
    with pytest.raises(DatabaseError, match=r"never changed|frozen"), transaction.atomic(), connection.cursor() as c:
        c.execute(statement, [draw.pk])


def test_frozen_activations_are_kept_even_before_the_start_and_the_run_may_still_complete(series):
    draw, _ = closed_draw(series, DRAW_AT, [5, 5])
    with pytest.raises(DatabaseError, match="frozen"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM draws_activation WHERE draw_id = %s", [draw.pk])
    record(start(draw))  # the run's own fields (status, outcomes) still move on
    record(draw.picks.get(outcome=""))
    draw_end_short(actor=MANAGER, draw_id=draw.pk, reason="Only two entrants.")
    assert Draw.objects.get(pk=draw.pk).status == DrawStatus.DRAWN


def test_a_single_ticket_reads_as_one_serial(series):
    draw, _ = closed_draw(series, DRAW_AT, [1, 4])
    assert [a.serials() for a in draw.activations.order_by("first_serial")] == ["1", "2\N{EN DASH}5"]


def test_a_member_under_18_at_the_pick_is_redrawn_in_the_under_18_category(series):
    """The engine takes the category from the one eligibility rule (no second age check)."""
    draw, (young, fine) = closed_draw(series, DRAW_AT, [20, 1])
    pin_seed(draw, lambda serials: serials[0] <= 20)
    Member.objects.filter(pk=young.pk).update(date_of_birth=dt.date(2007, 10, 16))  # 18 tomorrow
    pick = start(draw)
    first = draw.picks.order_by("seq").first()
    assert (first.member, first.outcome) == (young, PickOutcome.REDRAW_INELIGIBLE)
    assert first.reason == "Under 18 at the moment of the pick."
    assert pick.member == fine
