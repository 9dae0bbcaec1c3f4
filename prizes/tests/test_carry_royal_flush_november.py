"""The Royal Flush wild cards of 24 November (issue 14, item 6; RF r67-r69, PRIZES.md A14): two
wild card draws from bins drawn by hand, after that night's bins and finalist draw, played once for
the module (test_carry_royal_flush.py has the rest of the finalist chain)."""

import datetime as dt

import pytest
import time_machine

from conftest import reference_rows
from core.errors import DomainError
from core.models import AuditEvent
from draws.engine import draw_start
from draws.entry_sources import carried_entries
from draws.models import Draw
from draws.seeds import grc_royal_flush
from draws.tests.builders import MANAGER
from members.models import Member
from prizes.lines import LineKind
from prizes.models import PrizeLine, WildCardBin
from prizes.tests.conftest import seed_load
from prizes.tests.test_carry import assert_verifies, load
from prizes.tests.test_carry_royal_flush import ace, entrants, give_place, run_bin, run_electronic_at, run_manual
from prizes.wild_card import wild_card_bin_record
from testing.db import shared_rows

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def module_november(django_db_setup, django_db_blocker):
    """24 November. Bin 1 (14h00): A, B, C win. Bin 2 (15h00): A and `heavy` (2 tickets) lose, 3
    others win. Bin 4 (17h00): `heavy` and one more lose. Bin 3 is not drawn. The 18h15 finalist
    draw (the 9 winners' receipts) is won by A, who holds a Grand Finale place. Played once for
    the module, each test's changes rolled back (testing.db.shared_rows)."""
    with shared_rows(django_db_blocker):
        reference_rows()
        find = load(seed_load, grc_royal_flush)
        bin1 = ace(3, 11)
        run_bin(find, 11, 24, 14, bin1)
        finalist = bin1[0]
        heavy = ace(1, 11, points=600)[0]
        bin2 = ace(3, 11)
        bin2_winners = run_bin(find, 11, 24, 15, [finalist, heavy, *bin2], losers=[finalist, heavy])
        bin4 = ace(4, 11)
        bin4_winners = run_bin(find, 11, 24, 17, [heavy, *bin4], losers=[heavy, bin4[0]])
        finalist_draw = find("month-end-finalist", 2024, 11, 24, 18, 15)
        (won,) = run_manual(finalist_draw, member=finalist)
        give_place(finalist_draw, won)
        yield {
            "find": find,
            "finalist": finalist.pk,
            "heavy": heavy.pk,
            "bin2_winners": {w.member_id for w in bin2_winners},
            "bin4_losers": {m.pk for m in [heavy, *bin4]} - {w.member_id for w in bin4_winners},
            "wild": [find("wild-card", 2024, 11, 24, 18, 30).pk, find("wild-card", 2024, 11, 24, 18, 35).pk],
        }


@pytest.fixture
def november(module_november, db):
    """The shared night with its members and draws read afresh: a test that ran a draw changed
    its own copies, not the next test's."""
    return {
        **module_november,
        "finalist": Member.objects.get(pk=module_november["finalist"]),
        "heavy": Member.objects.get(pk=module_november["heavy"]),
        "wild": [Draw.objects.get(pk=pk) for pk in module_november["wild"]],
    }


def test_a_wild_card_draw_does_not_start_until_its_bin_is_recorded(november):
    wild = november["wild"][0]
    refusal = "cannot start until the bin number drawn by hand on stage (1 to 5, rule 68) is recorded"
    assert refusal in wild.state(wild.scheduled_at).start_refusal
    with time_machine.travel(wild.scheduled_at, tick=False), pytest.raises(DomainError, match=refusal[:30]):
        draw_start(actor=MANAGER, draw_id=wild.pk)
    assert Draw.objects.get(pk=wild.pk).entries_frozen_at is None
    with time_machine.travel(wild.scheduled_at - dt.timedelta(minutes=5), tick=False):
        wild_card_bin_record(actor=MANAGER, draw_id=wild.pk, number=2)
    assert Draw.objects.get(pk=wild.pk).state(wild.scheduled_at).start_refusal is None


@pytest.mark.parametrize(
    ("number", "refused"),
    [
        (0, "numbered 1 to 5"),
        (6, "numbered 1 to 5"),
        (None, "a blank is not one"),
        (
            2,
            "Bin 2 was drawn for Wild Card finalist draw, Sun 24 Nov 2024 18:30: the two wild cards",
        ),  # the other wild card's number
        (3, r"Bin 3 \(16:00\) has not been drawn"),
    ],
)
def test_the_second_wild_card_refuses_a_bin_number(november, number, refused):
    first, second = november["wild"]
    wild_card_bin_record(actor=MANAGER, draw_id=first.pk, number=2)
    before = AuditEvent.objects.count()
    with pytest.raises(DomainError, match=refused):
        wild_card_bin_record(actor=MANAGER, draw_id=second.pk, number=number)
    assert not WildCardBin.objects.filter(draw=second).exists() and AuditEvent.objects.count() == before


def test_the_bin_may_be_corrected_before_the_freeze_but_never_after(november):
    first, _second = november["wild"]
    wild_card_bin_record(actor=MANAGER, draw_id=first.pk, number=4)
    row = wild_card_bin_record(actor=MANAGER, draw_id=first.pk, number=2)
    assert row.number == 2 and row.bin_draw == november["find"]("month-end-bins", 2024, 11, 24, 15, 0)
    event = AuditEvent.objects.filter(action="prize.wild_card_bin").latest("pk")
    assert (event.data["bin"], event.data["before"]) == (2, 4)
    run_electronic_at(first)
    with pytest.raises(DomainError, match=r"were frozen at .*: its bin can no longer change"):
        wild_card_bin_record(actor=MANAGER, draw_id=first.pk, number=4)
    assert WildCardBin.objects.get(draw=first).number == 2


def test_a_bin_number_for_a_draw_that_is_no_wild_card_is_refused(november):
    bins = november["find"]("month-end-finalist", 2024, 11, 24, 18, 15)
    with pytest.raises(DomainError, match="is not a wild card draw"):
        wild_card_bin_record(actor=MANAGER, draw_id=bins.pk, number=1)


def test_the_wild_cards_draw_from_their_bins_less_its_winners_and_the_finalists(november):
    """Bin 2: its 3 winners and the finalist A (a loser there) are out: `heavy` alone, with the 2
    tickets of bin 2. Bin 4: `heavy`, now a finalist (the first wild card), is out too."""
    first, second = november["wild"]
    heavy = november["heavy"]
    wild_card_bin_record(actor=MANAGER, draw_id=first.pk, number=2)
    bin2 = november["find"]("month-end-bins", 2024, 11, 24, 15, 0)
    assert november["finalist"].pk in set(bin2.activations.values_list("member_id", flat=True))
    (winner,) = run_electronic_at(first)
    assert entrants(first) == {heavy.pk: 2} and winner.member == heavy and first.win_once == "draw"
    why = first.activations.get(member=heavy).breakdown["carried"]
    assert [(w["kind"], w["bin"], w["draw"]) for w in why] == [("wild_card_bin", 2, bin2.pk)]
    give_place(first, winner)
    assert_verifies(first)

    wild_card_bin_record(actor=MANAGER, draw_id=second.pk, number=4)
    (second_winner,) = run_electronic_at(second)
    assert heavy.pk in november["bin4_losers"] and len(november["bin4_losers"]) == 2
    assert set(entrants(second)) == november["bin4_losers"] - {heavy.pk}
    assert second_winner.member_id in november["bin4_losers"] - {heavy.pk}
    assert_verifies(second)


def test_a_reversed_place_no_longer_excludes_its_holder(november, manager_actor):
    from prizes.services import prize_line_reverse

    first, _second = november["wild"]
    place = PrizeLine.objects.get(member=november["finalist"], kind=LineKind.PLACE)
    prize_line_reverse(actor=manager_actor, line_id=place.pk, reason="Not verified as a finalist")
    wild_card_bin_record(actor=MANAGER, draw_id=first.pk, number=2)
    carried = carried_entries(first)
    assert carried.only and {e.member_id for e in carried.entries} == {november["heavy"].pk, november["finalist"].pk}


# --- The draw page's form ----------------------------------------------------------------------


def test_the_draw_page_records_the_bin_and_says_so(november, client_for):
    from django.urls import reverse

    from core.roles import AUDITOR, PROMOTIONS_MANAGER

    wild = november["wild"][0]
    manager = client_for(PROMOTIONS_MANAGER)
    page = manager.get(reverse("draws:detail", args=[wild.pk])).content.decode()
    assert 'id="wild-card-bin-missing"' in page and 'id="wild-card-bin-form"' in page
    assert (
        'id="wild-card-bin-form"'
        not in client_for(AUDITOR).get(reverse("draws:detail", args=[wild.pk])).content.decode()
    )
    url = reverse("prizes:wild_card_bin", args=[wild.pk])
    refused = manager.post(url, {"bin_number": "7"}, follow=True).content.decode()
    assert "The bins are numbered 1 to 5 (rule 68): 7 is not one." in refused
    assert (
        "Type the number of the bin drawn by hand"
        in manager.post(url, {"bin_number": "x"}, follow=True).content.decode()
    )
    done = manager.post(url, {"bin_number": "2"}, follow=True).content.decode()
    assert "Bin 2 recorded" in done and "Wild card bin 2</strong> (15:00)" in done
    assert WildCardBin.objects.get(draw=wild).number == 2
