"""Turn Up the Heat 9pm safe (TH r124 "prizes ranging from R5, 000 to R10, 000", r125 "forfeit
R2, 000 … crack a digit safe", r126 "Base value of R100, 000 and increase by R20, 000 per cash draw
if not won"; A17) and the 21h30 share-out (r135 "if the safe has not been cracked … shared amongst
the 5 winners"; A18), PRIZES.md §5 examples 16 and 17."""

import datetime as dt

import pytest

from prizes.games.safe import (
    SAFE_BASE_CENTS,
    Attempt,
    NinePm,
    attempt_refusal,
    safe_draw,
    safe_value,
    share_out_lines,
)
from prizes.lines import GameRefused, LineKind, LineSource

SATURDAYS = [dt.date(2025, 10, 4) + dt.timedelta(weeks=week) for week in range(12)]
DEC_20 = dt.date(2025, 12, 20)
assert SATURDAYS[-1] == DEC_20


def uncracked(count):
    return [NinePm(on, cracked=False) for on in SATURDAYS[:count]]


@pytest.mark.parametrize(
    ("history", "value"),
    [
        ([], 10_000_000),  # r126: base R100,000
        ([False], 12_000_000),
        ([False, False], 14_000_000),  # §5 #16: 2 uncracked before -> R140,000
        ([False, False, True], 10_000_000),  # A17: back to base after a crack
        ([False, False, True, False], 12_000_000),
        ([True], 10_000_000),
        ([False] * 10, 30_000_000),
    ],
)
def test_the_safe_grows_r20000_per_9pm_draw_closing_uncracked_and_resets_after_a_crack(history, value):
    assert safe_value(closed=[NinePm(on, cracked) for on, cracked in zip(SATURDAYS, history, strict=False)]) == value


def test_example_16_a_crack_pays_podium_less_r2000_plus_the_safe_and_resets_it():
    """§5 #16: 2 uncracked before -> safe R140,000; podium R8,000; cracks -> R6,000 + R140,000;
    safe -> R100,000 (the add-ons R500 and +Play R500 are another module's lines)."""
    safe = safe_value(closed=uncracked(2))
    outcome = safe_draw(safe_cents=safe, attempts=[Attempt(podium_cents=800_000, tried=True, cracked=True)])
    ((kept, jackpot),) = outcome.lines
    assert (kept.amount_cents, kept.source, kept.kind) == (600_000, LineSource.GAME, LineKind.CASH)
    assert (jackpot.amount_cents, jackpot.source, jackpot.kind) == (14_000_000, LineSource.JACKPOT, LineKind.CASH)
    assert kept.words == "9pm podium R 8,000.00 less R 2,000.00 to try the safe: R 6,000.00"
    assert jackpot.words == "Safe cracked: R 140,000.00"
    assert (outcome.cracked, outcome.next_safe_cents) == (True, SAFE_BASE_CENTS)


@pytest.mark.parametrize(
    ("attempt", "paid", "words"),
    [
        (Attempt(800_000), [(800_000, LineSource.BOARD)], "9pm podium: R 8,000.00, no safe attempt"),
        (
            Attempt(500_000, tried=True),
            [(300_000, LineSource.GAME)],
            "9pm podium R 5,000.00 less R 2,000.00 to try the safe: R 3,000.00, not cracked",
        ),
        (
            Attempt(1_000_000, tried=True, cracked=True),
            [(800_000, LineSource.GAME), (12_000_000, LineSource.JACKPOT)],
            None,
        ),
    ],
)
def test_each_winner_keeps_the_podium_or_forfeits_r2000_to_try(attempt, paid, words):
    (lines,) = safe_draw(safe_cents=12_000_000, attempts=[attempt]).lines
    assert [(line.amount_cents, line.source) for line in lines] == paid
    if words:
        assert lines[0].words == words


def test_a_draw_with_no_crack_adds_r20000_whether_anyone_tried_or_not():
    """A17: "per Saturday 9pm draw closing uncracked, attempt or not"."""
    tried = safe_draw(safe_cents=12_000_000, attempts=[Attempt(600_000, tried=True)] + [Attempt(600_000)] * 4)
    untried = safe_draw(safe_cents=12_000_000, attempts=[Attempt(600_000)] * 5)
    assert (tried.cracked, tried.next_safe_cents) == (False, 14_000_000)
    assert untried.next_safe_cents == 14_000_000


@pytest.mark.parametrize(
    ("attempts", "message"),
    [
        (
            [Attempt(600_000, tried=True, cracked=True), Attempt(600_000, tried=True)],
            "Winner 1 cracked the safe tonight: it is empty until next Saturday's 9pm draw, so no one else may try it.",
        ),
        ([Attempt(600_000, cracked=True)], "Only a winner who forfeits R 2,000.00 to try the safe can crack it."),
        ([Attempt(499_999)], "A 9pm podium holds R 5,000.00 to R 10,000.00 (TH r124), not R 4,999.99."),
        ([Attempt(1_000_001, tried=True)], "A 9pm podium holds R 5,000.00 to R 10,000.00 (TH r124), not R 10,000.01."),
        ([Attempt(600_000)] * 6, "The 9pm draw has 5 winners (TH r120): there is no winner 6."),
    ],
)
def test_an_impossible_9pm_draw_is_refused_in_words(attempts, message):
    with pytest.raises(GameRefused) as refused:
        safe_draw(safe_cents=SAFE_BASE_CENTS, attempts=attempts)
    assert str(refused.value) == message


def test_after_a_crack_the_others_may_still_keep_their_podiums():
    attempts = [Attempt(600_000, tried=True, cracked=True), Attempt(700_000), Attempt(500_000), Attempt(1_000_000)]
    outcome = safe_draw(safe_cents=SAFE_BASE_CENTS, attempts=attempts)
    assert [sum(line.amount_cents for line in lines) for lines in outcome.lines] == [
        400_000 + SAFE_BASE_CENTS,
        700_000,
        500_000,
        1_000_000,
    ]
    assert attempt_refusal(attempts=attempts[:1], attempt=Attempt(500_000, tried=True)) is not None


def test_podium_edges_r5000_and_r10000_are_accepted():
    assert attempt_refusal(attempts=[], attempt=Attempt(500_000, tried=True)) is None
    assert attempt_refusal(attempts=[], attempt=Attempt(1_000_000)) is None


def test_example_17_share_out_after_10_uncracked_9pm_draws_is_r60000_each():
    """§5 #17: 21h30 20 Dec after 10 uncracked 9pm draws -> 5 x R60,000 (A18: with 20 Dec 9pm's
    increment; PRIZES.md §2: R20,000 + n x R4,000 each)."""
    history = [*uncracked(9), NinePm(DEC_20, cracked=False)]
    lines = share_out_lines(closed=history, on=DEC_20)
    assert [line.amount_cents for line in lines] == [6_000_000] * 5
    assert {(line.kind, line.source) for line in lines} == {(LineKind.CASH, LineSource.SHARE_OUT)}
    assert lines[0].words == "Safe share-out, 21h30 20 Dec 2025: one fifth of R 300,000.00, R 60,000.00"
    assert lines[4].data == {
        "game": "safe_share_out",
        "pot_cents": 30_000_000,
        "position": 5,
        "includes_last_increment": True,
    }


def test_example_17_a18_alternative_setting_shares_the_9pm_value_r56000_each():
    """§5 #17, A18 alt.: without 20 Dec 9pm's increment -> 5 x R56,000."""
    history = [*uncracked(9), NinePm(DEC_20, cracked=False)]
    lines = share_out_lines(closed=history, on=DEC_20, includes_last_increment=False)
    assert [line.amount_cents for line in lines] == [5_600_000] * 5


def test_no_share_out_once_the_safe_was_ever_cracked():
    """r135: "if the safe has not been cracked (Throughout the duration of the promotion)"; A17."""
    history = [*uncracked(3), NinePm(SATURDAYS[3], cracked=True), NinePm(SATURDAYS[4], cracked=False)]
    with pytest.raises(GameRefused) as refused:
        share_out_lines(closed=history, on=DEC_20)
    assert str(refused.value) == "The safe was cracked on 25 Oct 2025: there is no 21h30 share-out (TH r135)."


def test_a_pot_that_does_not_split_into_whole_cents_gives_the_spare_cents_to_the_earliest_picks(monkeypatch):
    """Never with the seed's amounts (multiples of R4,000 a share); money stays whole cents."""
    monkeypatch.setattr("prizes.games.safe.SAFE_BASE_CENTS", 10_000_003)
    lines = share_out_lines(closed=[], on=DEC_20)
    assert [line.amount_cents for line in lines] == [2_000_001] * 3 + [2_000_000] * 2


@pytest.mark.parametrize(("forfeit", "kept"), [(0, 600_000), (300_000, 300_000), (600_000, 0)])
def test_the_forfeit_is_the_boards_from_nothing_to_the_whole_podium(forfeit, kept):
    """r125's R2,000 is a default: the board's forfeit is what a try costs, up to the podium."""
    (lines,) = safe_draw(safe_cents=12_000_000, attempts=[Attempt(600_000, tried=True)], forfeit_cents=forfeit).lines
    assert [line.amount_cents for line in lines] == [kept]
    assert lines[0].data["forfeit_cents"] == forfeit


def test_a_forfeit_above_the_podium_is_refused():
    attempt = Attempt(600_000, tried=True)
    refusal = attempt_refusal(attempts=[], attempt=attempt, forfeit_cents=600_001)
    assert (
        refusal == "Trying the safe forfeits R 6,000.01, more than the podium's R 6,000.00: check the board's forfeit."
    )
    assert attempt_refusal(attempts=[], attempt=Attempt(600_000), forfeit_cents=600_001) is None  # kept: no forfeit
    with pytest.raises(GameRefused, match="more than the podium's"):
        safe_draw(safe_cents=12_000_000, attempts=[attempt], forfeit_cents=600_001)
