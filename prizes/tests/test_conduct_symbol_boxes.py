"""Turn Up the Heat Saturday 3pm conducted from the run page (TH r102-r107, A19;
prizes/conducting/symbol_boxes.py): six randomisers, four cash podiums and two bonus symbols; the
two bonus winners open the 12 boxes alternately, the earlier pick first; the first to all three
own symbols wins R10,000, the other R7,500; a decline pays R5,000 and the other R10,000
(PRIZES.md §5 examples 18 and 19)."""

import datetime as dt

import pytest

from core.errors import DomainError
from core.roles import PROMOTIONS_MANAGER
from draws.engine import pick_outcome_record
from draws.models import DrawPick, PickOutcome
from draws.tests.builders import MANAGER as MANAGER_ACTOR
from prizes.conduct import game_event_record, game_finish
from prizes.conducting.symbol_boxes import BONUS_DECLINED, BONUS_FIRST, BONUS_RUNNER_UP
from prizes.models import BoardGame, GamePlay, PrizeLine
from prizes.services import SlotDef
from prizes.tests.test_conduct import LAST_THURSDAY, draw_of, lines_of, on_stage  # noqa: F401 (autouse: the stage's time)
from proxies.tests.factories import decline_on_record

pytestmark = pytest.mark.django_db

# r104: the four podiums' amounts are not given (cfg); the bonus slots are the seed's.
BOARD = [
    *(SlotDef(f"Podium {i}", amount) for i, amount in enumerate((400_000, 300_000, 200_000, 100_000), 1)),
    SlotDef("Bonus: first to all three symbols", 1_000_000),  # r105 "R10,000 Jackpot"
    SlotDef("Bonus: runner-up", 750_000),  # r105 "Runner up will win R7,500"
    SlotDef("Bonus: declined the bonus game", 500_000),  # r107 "consolation prize of R5,000"
]


def record(pick, **event):
    return game_event_record(actor=MANAGER_ACTOR, pick_id=pick.pk, event=event)


@pytest.fixture
def three_pm(reference_data):
    """Six winners (r102): picks 1-4 choose podiums, picks 5 (X, earlier) and 6 (Y) the bonus."""
    draw, picks = draw_of(6, BoardGame.SYMBOL_BOXES, BOARD)
    for pick, podium in zip(picks[:4], "1234", strict=True):
        record(pick, slot=podium)
    x, y = picks[4], picks[5]
    record(x, bonus="flame")
    record(y, bonus="Star")
    return draw, picks, x, y


def open_boxes(x, y, *shown: str):
    """Boxes 1, 2, 3… opened alternately, X first (r105)."""
    for n, shows in enumerate(shown, 1):
        record(x if n % 2 else y, box=str(n), shows=shows)


def test_example_18_x_opens_first_y_completes_first(three_pm):
    """§5 #18: X (earlier pick) opens first; Y completes first -> Y R10,000, X R7,500 (r105)."""
    _draw, picks, x, y = three_pm
    # X opens Star, blank, Star (Y's symbol counts for Y whoever opens it, A19); Y: Flame, Star.
    open_boxes(x, y, "Star", "Flame", "blank", "Star", "Star")
    game_finish(actor=MANAGER_ACTOR, pick_id=x.pk)
    assert lines_of(y) == [("cash", 1_000_000, "game")]
    assert lines_of(x) == [("cash", 750_000, "game")]
    assert PrizeLine.objects.get(pick=y).words == "Bonus boxes: first to all three Star symbols, R 10,000.00"
    assert [lines_of(p) for p in picks[:4]] == [
        [("cash", 400_000, "board")],
        [("cash", 300_000, "board")],
        [("cash", 200_000, "board")],
        [("cash", 100_000, "board")],
    ]


def test_the_boxes_are_opened_in_turn_within_what_they_hide(three_pm):
    """r105: X first, then alternately; A19: 3 of each symbol and 6 blanks, no other symbol."""
    _draw, picks, x, y = three_pm
    with pytest.raises(
        DomainError, match=f"It is the turn of the winner of pick {x.k} to open a box, not of pick {y.k}"
    ):
        record(y, box="1", shows="blank")
    with pytest.raises(DomainError, match="Box 1 cannot show Moon: the boxes hide Flame and Star symbols and blanks"):
        record(x, box="1", shows="Moon")
    with pytest.raises(DomainError, match="The boxes are numbered 1 to 12, not 13"):
        record(x, box="13", shows="blank")
    with pytest.raises(DomainError, match="numbered 1 to 12, not two"):
        record(x, box="two", shows="blank")
    record(x, box="1", shows="blank")
    with pytest.raises(DomainError, match=f"It is the turn of pick {y.k} to open a box"):
        record(x, box="2", shows="blank")
    with pytest.raises(DomainError, match="Box 1 is already open: choose another box"):
        record(y, box="1", shows="blank")
    for n in range(2, 7):  # five more blanks: six in all
        record(y if n % 2 == 0 else x, box=str(n), shows="blank")
    with pytest.raises(DomainError, match="the boxes hide only 6 blanks, all open"):
        record(x, box="7", shows="blank")
    with pytest.raises(DomainError, match=f"Pick {picks[0].k}'s randomiser gave podium 1: their prize is recorded"):
        record(picks[0], declines="1")  # a podium winner's turn is over
    with pytest.raises(DomainError, match=f"Record pick {x.k}'s turn first"):
        game_finish(actor=MANAGER_ACTOR, pick_id=x.pk)
    assert PrizeLine.objects.count() == 0


def test_randomisers_one_each_each_podium_once_two_bonuses_of_different_symbols(reference_data):
    """r103-r104: one randomiser a winner; 4 podiums, 2 bonuses with their own symbols."""
    _draw, picks = draw_of(6, BoardGame.SYMBOL_BOXES, BOARD)
    record(picks[0], slot="1")
    with pytest.raises(DomainError, match="Podium 1 was already given in this draw"):
        record(picks[1], slot="1")
    with pytest.raises(DomainError, match="There is no podium 9 on this board"):
        record(picks[1], slot="9")
    with pytest.raises(DomainError, match="Type the symbol on the bonus randomiser"):
        record(picks[1], bonus=" ")
    record(picks[1], bonus="Flame")
    with pytest.raises(DomainError, match="The boxes open once both bonus winners are known"):
        record(picks[1], box="1", shows="Flame")
    with pytest.raises(DomainError, match="different symbols: Flame is taken"):
        record(picks[2], bonus="flame")
    record(picks[2], bonus="Star")
    with pytest.raises(DomainError, match="Only 2 randomisers unlock the bonus feature"):
        record(picks[3], bonus="Moon")
    with pytest.raises(DomainError, match="Only a bonus winner opens a box"):
        record(picks[3], box="1", shows="Star")
    with pytest.raises(DomainError, match="Only a bonus winner declines the bonus game: record pick"):
        record(picks[3], declines="1")


def test_example_19_x_declines_y_gets_the_jackpot_without_a_box(three_pm):
    """§5 #19 and r107: X declines -> X R5,000, Y R10,000; no box is opened after."""
    _draw, _picks, x, y = three_pm
    record(x, declines="1")
    with pytest.raises(DomainError, match="A bonus winner declined or is absent: no box is opened"):
        record(y, box="1", shows="Star")
    game_finish(actor=MANAGER_ACTOR, pick_id=x.pk)
    assert lines_of(x) == [("cash", 500_000, "game")]
    assert lines_of(y) == [("cash", 1_000_000, "game")]


def test_example_19_both_decline_r5000_each(three_pm):
    """§5 #19 and r107: both decline -> R5,000 each."""
    _draw, _picks, x, y = three_pm
    record(y, declines="1")
    with pytest.raises(DomainError, match="declined or is absent: no box is opened"):
        record(x, box="1", shows="Star")
    record(x, declines="1")
    with pytest.raises(DomainError, match=f"Pick {x.k} does not play the bonus game"):
        record(x, declines="1")
    game_finish(actor=MANAGER_ACTOR, pick_id=x.pk)
    assert lines_of(x) == lines_of(y) == [("cash", 500_000, "game")]


def test_a_declined_winner_left_with_the_bonus_counts_as_absent(reference_data):
    """A19: a bonus winner not on stage gets R5,000, as one who declines; the other R10,000 (r107).
    The randomiser left over falls to them (r103)."""
    draw, picks = draw_of(6, BoardGame.SYMBOL_BOXES, BOARD, complete=False)
    last = DrawPick.objects.get(draw=draw, outcome="")
    decline_on_record(draw=draw, member=last.member, at=LAST_THURSDAY - dt.timedelta(hours=1))
    pick_outcome_record(actor=MANAGER_ACTOR, draw_id=draw.pk, pick_id=last.pk, outcome=PickOutcome.DECLINED)
    picks.append(DrawPick.objects.get(pk=last.pk))
    for pick, podium in zip(picks[:4], "1234", strict=True):
        record(pick, slot=podium)
    record(picks[4], bonus="Flame")
    game_finish(actor=MANAGER_ACTOR, pick_id=picks[0].pk)
    assert lines_of(picks[5]) == [("cash", 500_000, "game")]
    assert PrizeLine.objects.get(pick=picks[5]).words == "Bonus boxes: absent for the game, R 5,000.00"
    assert lines_of(picks[4]) == [("cash", 1_000_000, "game")]


def test_the_conductor_opens_the_boxes_from_the_run_page(three_pm, client_for):
    draw, _picks, x, y = three_pm
    client = client_for(PROMOTIONS_MANAGER)
    url = f"/prizes/draws/{draw.pk}/game/event/"
    page = client.get(f"/draws/{draw.pk}/").content.decode()
    assert f'id="box-record-{x.k}"' in page and f'id="box-record-{y.k}"' in page
    page = client.post(url, {"pick": y.pk, "box": "1", "shows": "Star"}, follow=True).content.decode()
    assert f"It is the turn of the winner of pick {x.k} to open a box, not of pick {y.k}." in page
    page = client.post(url, {"pick": x.pk, "box": "1", "shows": "Flame"}, follow=True).content.decode()
    assert "box 1: Flame" in page
    assert f'id="box-record-{x.k}"' not in page and f'id="box-record-{y.k}"' in page  # Y's turn (r105)


def test_once_every_podium_is_given_the_run_page_offers_only_the_bonus(reference_data, client_for):
    """No empty podium list with its Record button left for the last two randomisers (r104)."""
    draw, picks = draw_of(6, BoardGame.SYMBOL_BOXES, BOARD)
    for pick, podium in zip(picks[:3], "123", strict=True):
        record(pick, slot=podium)
    client = client_for(PROMOTIONS_MANAGER)
    page = client.get(f"/draws/{draw.pk}/").content.decode()
    assert f'id="podium-record-{picks[3].k}"' in page  # podium 4 is still to give
    record(picks[3], slot="4")
    page = client.get(f"/draws/{draw.pk}/").content.decode()
    assert f'id="podium-record-{picks[4].k}"' not in page and f'id="podium-{picks[5].k}"' not in page
    assert f'id="bonus-record-{picks[4].k}"' in page and f'id="bonus-record-{picks[5].k}"' in page


def test_the_bonus_amounts_are_the_boards_slots(reference_data):
    """r105/r107's amounts are the board's Bonus slots: a manager's R12,000 / R8,000 are paid."""
    board = [*BOARD[:4], SlotDef(BONUS_FIRST, 1_200_000), SlotDef(BONUS_RUNNER_UP, 800_000), BOARD[6]]
    _draw, picks = draw_of(6, BoardGame.SYMBOL_BOXES, board)
    for pick, podium in zip(picks[:4], "1234", strict=True):
        record(pick, slot=podium)
    x, y = picks[4], picks[5]
    record(x, bonus="Flame")
    record(y, bonus="Star")
    open_boxes(x, y, "Star", "Flame", "blank", "Star", "Star")
    game_finish(actor=MANAGER_ACTOR, pick_id=x.pk)
    assert (lines_of(y), lines_of(x)) == ([("cash", 1_200_000, "game")], [("cash", 800_000, "game")])
    assert PrizeLine.objects.get(pick=y).words == "Bonus boxes: first to all three Star symbols, R 12,000.00"


def test_a_declined_bonus_pays_the_boards_declined_slot_and_the_other_its_first(reference_data):
    board = [*BOARD[:4], SlotDef(BONUS_FIRST, 1_100_000), BOARD[5], SlotDef(BONUS_DECLINED, 450_000)]
    _draw, picks = draw_of(6, BoardGame.SYMBOL_BOXES, board)
    for pick, podium in zip(picks[:4], "1234", strict=True):
        record(pick, slot=podium)
    record(picks[4], bonus="Flame")
    record(picks[5], bonus="Star")
    record(picks[5], declines="1")
    game_finish(actor=MANAGER_ACTOR, pick_id=picks[4].pk)
    assert (lines_of(picks[4]), lines_of(picks[5])) == ([("cash", 1_100_000, "game")], [("cash", 450_000, "game")])


def test_the_boards_boxes_and_blanks_are_the_stages(reference_data):
    """r106's 12 boxes and A19's 6 blanks are settings: with 14 boxes (8 blank), box 14 opens and
    an eighth blank may show; box 15 does not exist."""
    draw, picks = draw_of(6, BoardGame.SYMBOL_BOXES, BOARD, settings={"boxes": 14, "blank_boxes": 8})
    for pick, podium in zip(picks[:4], "1234", strict=True):
        record(pick, slot=podium)
    x, y = picks[4], picks[5]
    record(x, bonus="Flame")
    record(y, bonus="Star")
    with pytest.raises(DomainError, match="The boxes are numbered 1 to 14, not 15"):
        record(x, box="15", shows="blank")
    for n in range(1, 8):  # 7 blanks, alternately: more than 12 boxes' 6
        record(x if n % 2 else y, box=str(n + 6), shows="blank")
    record(y, box="14", shows="blank")  # the eighth
    with pytest.raises(DomainError, match="the boxes hide only 8 blanks, all open"):
        record(x, box="1", shows="blank")
    assert GamePlay.objects.get(draw=draw).events[-1]["box"] == 14


def test_boxes_and_blanks_that_cannot_be_laid_out_are_refused_on_stage(reference_data):
    """A board saved around the page's check (12 boxes, 7 blanks) is refused in words, not played."""
    _draw, picks = draw_of(6, BoardGame.SYMBOL_BOXES, BOARD, settings={"boxes": 12, "blank_boxes": 7})
    for pick, podium in zip(picks[:4], "1234", strict=True):
        record(pick, slot=podium)
    record(picks[4], bonus="Flame")
    with pytest.raises(DomainError, match=r"7 blank boxes make 13 boxes, not 12\. Correct the prize board"):
        record(picks[5], bonus="Star")
