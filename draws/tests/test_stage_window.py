"""The stage's rules as the conductor meets them (issue 13, items 4 and 14): the page's buttons
and a posted outcome, on the server's own clock pinned with time_machine (no `now` passed in), at
the edges: the 89th and 90th second of the window, Proxy present after a revocation, Declined
without or after a revoked registration, No-show for a decliner. proxies/tests/
test_stage_outcomes.py holds the services' side of the same rules."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.errors import DomainError
from draws.engine import pick_outcome_record
from draws.models import DrawPick, PickOutcome
from draws.tests.builders import MANAGER
from proxies.services import decline_revoke, proxy_revoke
from proxies.tests.factories import decline, desk_actor, nominate
from proxies.tests.test_stage_outcomes import one_entrant_draw

pytestmark = pytest.mark.django_db


def at_second(pick: DrawPick, seconds: float):
    """The server's clock, pinned `seconds` after the stored time of the pick."""
    return time_machine.travel(pick.picked_at + dt.timedelta(seconds=seconds), tick=False)


def post_outcome(client, pick: DrawPick, outcome: str, **data) -> str:
    response = client.post(
        reverse("draws:outcome", args=[pick.draw_id]), {"pick": pick.pk, "outcome": outcome, **data}, follow=True
    )
    assert response.status_code == 200
    return response.content.decode()


def run_page(client, pick: DrawPick) -> str:
    return client.get(reverse("draws:run", args=[pick.draw_id])).content.decode()


def test_no_show_is_refused_at_the_89th_second_and_taken_at_the_90th(manager, reference_data):
    draw, _, pick = one_entrant_draw(winners=1, entrants=2)
    with at_second(pick, 89):
        page = run_page(manager, pick)
        assert 'id="outcome-no-show"' in page and 'data-key="N" disabled' in page
        assert 'data-countdown="1"' in page
        html = post_outcome(manager, pick, PickOutcome.NO_SHOW)
    assert "The winner has until 13:01:30 to come forward." in html
    assert DrawPick.objects.get(pk=pick.pk).outcome == "" and draw.picks.count() == 1  # no redraw
    with at_second(pick, 89.999), pytest.raises(DomainError, match="until 13:01:30"):
        pick_outcome_record(actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.NO_SHOW)

    with at_second(pick, 90):
        page = run_page(manager, pick)
        assert 'data-key="N">' in page and 'data-key="N" disabled' not in page
        html = post_outcome(manager, pick, PickOutcome.NO_SHOW)
    assert f"Pick {pick.k} recorded — No-show: redraw." in html
    assert DrawPick.objects.get(pk=pick.pk).outcome == PickOutcome.NO_SHOW
    assert draw.picks.filter(outcome="").exists()  # the redraw followed at once


def test_a_posted_proxy_present_is_refused_after_the_nomination_was_revoked(manager, reference_data):
    def nominate_then_revoke(draw, member):
        nomination = nominate(participant=member, draw=draw)
        proxy_revoke(actor=desk_actor(), nomination_id=nomination.pk, reason="Will come in person.")

    _, member, pick = one_entrant_draw(register=nominate_then_revoke)
    with at_second(pick, 10):
        page = run_page(manager, pick)
        assert 'id="outcome-proxy-present"' not in page and 'id="awaiting-nomination"' not in page
        html = post_outcome(manager, pick, PickOutcome.PROXY_PRESENT, id_type_seen="sa_id")
    assert f"{member.full_name} has no live proxy nomination for this draw: nobody may stand in." in html
    assert DrawPick.objects.get(pk=pick.pk).outcome == ""


def test_a_posted_declined_is_refused_without_a_registration(manager, reference_data):
    _, member, pick = one_entrant_draw()
    with at_second(pick, 10):
        assert 'id="outcome-declined"' not in run_page(manager, pick)
        html = post_outcome(manager, pick, PickOutcome.DECLINED)
    assert f"{member.full_name} is not on the decline register for this draw." in html
    assert DrawPick.objects.get(pk=pick.pk).outcome == ""


def test_declined_is_refused_after_the_registration_was_revoked_and_no_show_waits_again(reference_data):
    def decline_then_revoke(draw, member):
        registration = decline(member=member, draw=draw)
        decline_revoke(
            actor=desk_actor(),
            registration_id=registration.pk,
            reason="Will attend after all.",
            card_number=member.card_number,
        )

    draw, _, pick = one_entrant_draw(register=decline_then_revoke, entrants=2)
    with at_second(pick, 10), pytest.raises(DomainError, match="not on the decline register"):
        pick_outcome_record(actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.DECLINED)
    with at_second(pick, 90):  # an ordinary winner again: No-show once the window has passed
        recorded = pick_outcome_record(actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.NO_SHOW)
    assert recorded.outcome == PickOutcome.NO_SHOW


def test_a_decliner_is_never_offered_no_show_nor_taken_as_one_long_after_the_window(manager, reference_data):
    _, member, pick = one_entrant_draw(register=lambda d, m: decline(member=m, draw=d))
    with at_second(pick, 600):
        page = run_page(manager, pick)
        assert 'id="outcome-no-show"' not in page and 'id="outcome-declined"' in page
        html = post_outcome(manager, pick, PickOutcome.NO_SHOW)
    assert f"{member.full_name} registered that they decline to be present: they are a winner." in html
    assert DrawPick.objects.get(pk=pick.pk).outcome == ""
