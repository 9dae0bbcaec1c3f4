"""DayTime PlayTime's cards conducted from the run page (DT r10.1, r18-r20, PRIZES.md A21, §5
examples 24 and 25): the scores recorded in the order the finalists choose, the prizes by score."""

import datetime as dt

import pytest

from core.errors import DomainError
from core.roles import PROMOTIONS_MANAGER
from draws.engine import draw_start, pick_outcome_record
from draws.models import DrawPick, PickOutcome
from draws.tests.builders import MANAGER, closed_draw
from prizes.conduct import game_event_record, game_finish
from prizes.models import BoardGame, PrizeLine
from prizes.services import SlotDef, board_create
from prizes.tests.conftest import record_next_winner
from prizes.tests.test_conduct import LAST_THURSDAY, lines_of, on_stage  # noqa: F401
from promotions.tests.factories import make_series
from proxies.tests.factories import decline_on_record

pytestmark = pytest.mark.django_db

# DT r10.1.1-3, as the seed board (prizes/seed_boards.py DT) has them.
CARDS = [
    SlotDef("Highest score", 300_000, rule="r10.1"),
    SlotDef("Second highest score", 200_000, rule="r10.1"),
    SlotDef("Third highest score", 100_000, rule="r10.1"),
]


def finalists(*, declined: tuple[int, ...] = (), stand_ins: dict[int, str] | None = None, complete: bool = True):
    """A DayTime PlayTime draw of three finalists; `declined`: their indexes (0-2), on the decline
    register (r14-15) and recorded Declined, with the stand-in named then if `stand_ins` says."""
    series = make_series()
    series.winners_per_draw = 3
    series.save()
    board_create(actor=MANAGER, series=series, game=BoardGame.CARD_SCORE, slots=CARDS)
    draw, _ = closed_draw(series, LAST_THURSDAY, [3, 40, 7, 50, 9, 11])
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    picks = []
    for i in range(3 if complete else 2):
        pick = DrawPick.objects.get(draw=draw, outcome="")
        if i in declined:
            decline_on_record(draw=draw, member=pick.member, at=LAST_THURSDAY - dt.timedelta(hours=1))
            pick_outcome_record(
                actor=MANAGER,
                draw_id=draw.pk,
                pick_id=pick.pk,
                outcome=PickOutcome.DECLINED,
                stand_in_name=(stand_ins or {}).get(i, ""),
            )
            picks.append(DrawPick.objects.get(pk=pick.pk))
        else:
            picks.append(record_next_winner(draw))
    return draw, picks


def score(pick, value, **more):
    return game_event_record(actor=MANAGER, pick_id=pick.pk, event={"score": str(value), **more})


def test_example_24_scores_7_12_3_pay_w2_r3000_w1_r2000_w3_r1000(reference_data):
    """PRIZES.md §5 #24: DT 10 Sep, scores 7, 12, 3 (W1-W3) -> W2 R3,000, W1 R2,000, W3 R1,000."""
    _draw, (w1, w2, w3) = finalists()
    with pytest.raises(DomainError, match=f"Pick {w1.k} chooses first: the finalists choose in the order"):
        score(w2, 12)
    with pytest.raises(DomainError, match="is not a card score: write it as a whole number"):
        score(w1, "seven")
    score(w1, 7)
    with pytest.raises(DomainError, match="already recorded"):
        score(w1, 8)
    with pytest.raises(DomainError, match=r"Two cards have the score 7: each card's score is different \(A21\)"):
        score(w2, 7)
    score(w2, 12)
    score(w3, 3)
    game_finish(actor=MANAGER, pick_id=w1.pk)
    assert lines_of(w2) == [("cash", 300_000, "game")]
    assert lines_of(w1) == [("cash", 200_000, "game")]
    assert lines_of(w3) == [("cash", 100_000, "game")]
    assert PrizeLine.objects.get(pick=w2).words == "1st prize, the highest card score (12)"


def test_the_cards_are_chosen_once_the_three_finalists_are_drawn(reference_data):
    _draw, (w1, _w2) = finalists(complete=False)
    with pytest.raises(DomainError, match=r"once all three are drawn \(r10.1\)"):
        score(w1, 7)


def test_example_25_a_lone_declined_finalist_gets_the_card_left_over(reference_data):
    """PRIZES.md §5 #25, DT r19: W3 declined, not redrawn -> the last card's prize."""
    _draw, (w1, w2, w3) = finalists(declined=(0,))  # declined though drawn first: still the last card
    with pytest.raises(DomainError, match=r"their card is the one left over once the others have chosen \(r19\)"):
        score(w1, 12)
    score(w2, 3)
    score(w3, 7)
    score(w1, 12)
    game_finish(actor=MANAGER, pick_id=w2.pk)
    assert lines_of(w1) == [("cash", 300_000, "game")]
    words = PrizeLine.objects.get(pick=w1).words
    assert words == "1st prize, the highest card score (12); declined: the card left over (r19)"
    assert lines_of(w3) == [("cash", 200_000, "game")]
    assert lines_of(w2) == [("cash", 100_000, "game")]


def test_two_declined_audience_stand_ins_choose_in_pick_order_and_win_nothing(reference_data):
    """DT r18, r20: more than one declined -> a person from the audience chooses for each; the
    line is the finalist's, the stand-in is only named."""
    _draw, (w1, w2, w3) = finalists(declined=(0, 2), stand_ins={0: "Thabo from row C"})
    score(w1, 3)  # the stand-in's name was recorded with the outcome
    score(w2, 12)
    with pytest.raises(DomainError, match=r"name the person from the audience who chooses the card for them \(r18\)"):
        score(w3, 7)
    score(w3, 7, stand_in="Lerato")
    game_finish(actor=MANAGER, pick_id=w1.pk)
    lines = {line.pick_id: line for line in PrizeLine.objects.all()}
    assert {pick_id: line.member_id for pick_id, line in lines.items()} == {p.pk: p.member_id for p in (w1, w2, w3)}
    assert (lines[w3.pk].amount_cents, lines[w3.pk].data["stand_in"]) == (200_000, "Lerato")
    assert lines[w1.pk].data["stand_in"] == "Thabo from row C" and lines[w1.pk].amount_cents == 100_000
    assert "chosen by a stand-in from the audience (r18)" in lines[w3.pk].words
    assert PrizeLine.objects.count() == 3  # nothing for the stand-ins


def test_the_conductor_records_the_cards_from_the_run_page(reference_data, client_for):
    draw, (w1, w2, w3) = finalists(declined=(2,))
    client = client_for(PROMOTIONS_MANAGER)
    page = client.get(f"/draws/{draw.pk}/").content.decode()
    assert f'id="score-{w1.k}"' in page and f'id="stand-in-{w3.k}"' in page
    url = f"/prizes/draws/{draw.pk}/game/event/"
    client.post(url, {"pick": w1.pk, "score": "7"})
    page = client.post(url, {"pick": w3.pk, "score": "3"}, follow=True).content.decode()
    assert "their card is the one left over once the others have chosen (r19)" in page
    client.post(url, {"pick": w2.pk, "score": "12"})
    page = client.post(url, {"pick": w3.pk, "score": "3"}, follow=True).content.decode()
    assert "Card score 3, the card left over" in page
    page = client.post(f"/prizes/draws/{draw.pk}/game/finish/", {"pick": w1.pk}, follow=True).content.decode()
    assert "3 prize lines recorded" in page
    assert "1st prize, the highest card score (12)" in page
