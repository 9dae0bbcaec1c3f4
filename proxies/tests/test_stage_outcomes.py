"""Issue 13: the stage's outcomes follow the registers (DRAWS.md §3), asked through
draws.registers, and the 90-second presentation window is timed from the stored pick.

One entrant per draw, so pick 1 is theirs. The test series' 13h00 draw takes proxies
08h00-12h45, declines until 13h00, and freezes its entries at 12h55."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.errors import DomainError
from draws import registers
from draws.engine import draw_start, pick_outcome_record
from draws.models import Draw, DrawPick, DrawStatus, PickOutcome
from draws.services import draw_close_window
from draws.tests.builders import MANAGER, add_entries, pin_seed
from draws.tests.factories import make_draw
from promotions.tests.factories import make_series
from proxies.registers import PROVIDER
from proxies.services import proxy_revoke
from proxies.tests.factories import decline, desk_actor, nominate, nominee_for

pytestmark = pytest.mark.django_db

SAST = dt.timezone(dt.timedelta(hours=2))
DRAW_AT = dt.datetime(2025, 10, 15, 13, 0, tzinfo=SAST)
IN_WINDOW = dt.datetime(2025, 10, 15, 10, 0, tzinfo=SAST)


def one_entrant_draw(*, register=None, winners: int = 1, entrants: int = 1):
    """A 13h00 draw with `entrants` members; `register(draw, member)` runs in the registers'
    window; then the entries freeze and the draw starts at 13h00 (pick 1 is made)."""
    series = make_series()
    series.winners_per_draw = winners
    series.save()
    with time_machine.travel(IN_WINDOW, tick=False):
        draw = make_draw(series, DRAW_AT)
        members = add_entries(draw, [5] * entrants)
        if register:
            register(draw, members[0])
    assert draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    assert draw_start(actor=MANAGER, draw_id=draw.pk, now=DRAW_AT)
    draw.refresh_from_db()
    return draw, members[0], draw.picks.get(outcome="")


def record(pick: DrawPick, outcome: str, *, seconds: float = 0, **kwargs) -> DrawPick:
    return pick_outcome_record(
        actor=MANAGER,
        draw_id=pick.draw_id,
        pick_id=pick.pk,
        outcome=outcome,
        now=pick.picked_at + dt.timedelta(seconds=seconds),
        **kwargs,
    )


def test_the_draw_keeps_the_series_window_and_no_show_waits_for_its_90th_second(reference_data):
    draw, _, pick = one_entrant_draw(winners=1, entrants=2)
    assert draw.presentation_seconds == 90 and pick.picked_at == DRAW_AT
    with pytest.raises(DomainError, match=r"The winner has until 13:01:30 to come forward\."):
        record(pick, PickOutcome.NO_SHOW, seconds=89)
    with pytest.raises(DomainError, match="until 13:01:30"):
        record(pick, PickOutcome.NO_SHOW, seconds=89.999)
    assert record(pick, PickOutcome.NO_SHOW, seconds=90).outcome == PickOutcome.NO_SHOW
    assert draw.picks.filter(outcome="").exists()  # the redraw followed at once


def test_a_series_window_is_copied_at_the_start(reference_data):
    series = make_series()
    series.presentation_seconds = 30
    series.save()
    with time_machine.travel(IN_WINDOW, tick=False):
        draw = make_draw(series, DRAW_AT)
        add_entries(draw, [5, 5])
    draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    draw_start(actor=MANAGER, draw_id=draw.pk, now=DRAW_AT)
    pick = Draw.objects.get(pk=draw.pk).picks.get(outcome="")
    with pytest.raises(DomainError, match="until 13:00:30"):
        record(pick, PickOutcome.NO_SHOW, seconds=29)
    record(pick, PickOutcome.NO_SHOW, seconds=30)


def test_proxy_present_is_refused_without_a_nomination(reference_data):
    _, member, pick = one_entrant_draw()
    assert registers.live_nomination(pick.draw, member) is None
    with pytest.raises(DomainError, match="no live proxy nomination"):
        record(pick, PickOutcome.PROXY_PRESENT)


def test_proxy_present_is_refused_after_the_nomination_was_revoked(reference_data):
    def nominate_then_revoke(draw, member):
        nomination = nominate(participant=member, draw=draw)
        proxy_revoke(actor=desk_actor(), nomination_id=nomination.pk, reason="Will come in person.")

    _, _, pick = one_entrant_draw(register=nominate_then_revoke)
    with pytest.raises(DomainError, match="no live proxy nomination"):
        record(pick, PickOutcome.PROXY_PRESENT)


def test_proxy_present_records_the_nominee_of_the_live_nomination(reference_data):
    nominee = nominee_for(name="Lerato Khumalo")
    draw, member, pick = one_entrant_draw(register=lambda d, m: nominate(participant=m, draw=d, nominee=nominee))
    info = registers.live_nomination(draw, member)
    assert info.nominee_name == "Lerato Khumalo" and info.id_last_four == nominee.id_number[-4:]
    recorded = record(pick, PickOutcome.PROXY_PRESENT, id_type_seen="sa_id", seconds=20)
    assert recorded.nominee_name == "Lerato Khumalo" and recorded.nomination_id == info.nomination_id
    assert recorded.is_winner() and Draw.objects.get(pk=draw.pk).status == DrawStatus.DRAWN


def test_declined_is_refused_without_a_registration(reference_data):
    _, _, pick = one_entrant_draw()
    with pytest.raises(DomainError, match="not on the decline register"):
        record(pick, PickOutcome.DECLINED)


def test_a_decliner_is_never_a_no_show_and_stands_as_a_winner(reference_data):
    draw, _, pick = one_entrant_draw(register=lambda d, m: decline(member=m, draw=d))
    with pytest.raises(DomainError, match="decline to be present: they are a winner"):
        record(pick, PickOutcome.NO_SHOW, seconds=600)
    recorded = record(pick, PickOutcome.DECLINED, seconds=5)
    assert recorded.is_winner() and draw.picks.count() == 1  # no redraw
    assert Draw.objects.get(pk=draw.pk).status == DrawStatus.DRAWN


def test_present_keeps_the_id_seen_and_the_receipt(reference_data):
    _, _, pick = one_entrant_draw()
    with pytest.raises(DomainError, match="ID document seen"):
        record(pick, PickOutcome.PRESENT, id_type_seen="library_card")
    recorded = record(pick, PickOutcome.PRESENT, id_type_seen="driving_licence", receipt_seen=True)
    assert (recorded.id_type_seen, recorded.receipt_seen) == ("driving_licence", True)


def test_a_stand_in_is_named_only_for_a_declined_winner(reference_data):
    _, _, pick = one_entrant_draw(register=lambda d, m: decline(member=m, draw=d))
    with pytest.raises(DomainError, match="only for a declined winner"):
        record(pick, PickOutcome.PRESENT, id_type_seen="sa_id", stand_in_name="Thabo from row C")
    recorded = record(pick, PickOutcome.DECLINED, stand_in_name="Thabo from row C")
    assert recorded.stand_in_name == "Thabo from row C" and recorded.is_winner()


def test_the_engine_learns_of_proxies_through_the_registry(reference_data, monkeypatch):
    # draws never imports proxies: with the provider unregistered the registers are empty.
    draw, member, _ = one_entrant_draw(register=lambda d, m: decline(member=m, draw=d))
    assert registers.live_decline(draw, member)
    monkeypatch.setattr(registers, "_provider", None)
    assert not registers.live_decline(draw, member)
    monkeypatch.setattr(registers, "_provider", PROVIDER)
    assert registers.live_decline(draw, member)


def test_the_stage_page_shows_the_nominee_and_offers_only_what_the_service_accepts(manager, reference_data):
    nominee = nominee_for(name="Lerato Khumalo")
    draw, _, _ = one_entrant_draw(register=lambda d, m: nominate(participant=m, draw=d, nominee=nominee))
    with time_machine.travel(DRAW_AT + dt.timedelta(seconds=30), tick=False):
        html = manager.get(reverse("draws:run", args=[draw.pk])).content.decode()
    assert "Lerato Khumalo" in html and nominee.id_number[-4:] in html and nominee.id_number not in html
    assert 'id="outcome-proxy-present"' in html and 'id="outcome-declined"' not in html
    assert 'data-countdown="60"' in html and "The winner has until 13:01:30 to come forward." in html
    assert "<kbd>X</kbd>" in html and "<kbd>N</kbd>" in html


def test_the_polled_run_changes_after_a_pick(manager, reference_data):
    draw, _, pick = one_entrant_draw(winners=2, entrants=3)
    url = reverse("draws:run", args=[draw.pk])
    with time_machine.travel(DRAW_AT + dt.timedelta(seconds=10), tick=False):
        before = manager.get(url).content.decode()
        assert 'data-run-version="running:1::False"' in manager.get(url).content.decode()  # nothing happened
        record(pick, PickOutcome.PRESENT, id_type_seen="sa_id", seconds=10)
        after = manager.get(url).content.decode()
    version = 'data-run-version="running:1::False"'
    assert version in before and version not in after and "Present: a winner" in after


def test_an_early_start_needs_a_reason_kept_on_the_draw(reference_data):
    series = make_series()
    with time_machine.travel(IN_WINDOW, tick=False):
        draw = make_draw(series, DRAW_AT)
        add_entries(draw, [5, 5])
    draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    early = DRAW_AT - dt.timedelta(minutes=3)
    with pytest.raises(DomainError, match="needs a reason"):
        draw_start(actor=MANAGER, draw_id=draw.pk, now=early)
    with pytest.raises(DomainError, match="needs a reason"):
        draw_start(actor=MANAGER, draw_id=draw.pk, early_start_reason="   ", now=early)
    assert draw_start(actor=MANAGER, draw_id=draw.pk, early_start_reason="The MC is on stage early.", now=early)
    draw.refresh_from_db()
    assert draw.early_start_reason == "The MC is on stage early." and draw.started_at == early


def test_a_start_at_the_draw_time_keeps_no_early_reason(reference_data):
    draw, _, _ = one_entrant_draw()
    assert draw.early_start_reason == "" and draw.started_at == DRAW_AT


def test_one_selection_per_draw_redraws_a_member_picked_before_whatever_the_outcome(reference_data):
    series = make_series()
    series.one_selection_per_draw = True
    series.winners_per_draw = 2
    series.save()
    with time_machine.travel(IN_WINDOW, tick=False):
        draw = make_draw(series, DRAW_AT)
        add_entries(draw, [50, 1])  # the first member holds serials 1-50
    draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    draw.refresh_from_db()
    pin_seed(draw, lambda serials: serials[0] <= 50 and serials[1] <= 50, picks=2)  # picks 1 and 2: theirs
    draw_start(actor=MANAGER, draw_id=draw.pk, now=DRAW_AT)
    draw.refresh_from_db()
    assert draw.one_selection_per_draw
    first = draw.picks.get(outcome="")
    record(first, PickOutcome.NO_SHOW, seconds=90)
    picks = list(draw.picks.order_by("seq"))
    assert picks[1].member_id == first.member_id and picks[1].outcome == PickOutcome.REDRAW_ALREADY_DRAWN
    assert "already picked in this draw (pick 1)" in picks[1].reason
    assert all(p.outcome == PickOutcome.REDRAW_ALREADY_DRAWN for p in picks[1:] if p.member_id == first.member_id)


def test_the_desk_is_not_offered_the_stage_buttons(desk, reference_data):
    draw, _, _ = one_entrant_draw()
    html = desk.get(reverse("draws:run", args=[draw.pk])).content.decode()
    assert 'id="awaiting"' in html and 'id="outcome-form"' not in html
    assert Actor  # the desk reads the run only
