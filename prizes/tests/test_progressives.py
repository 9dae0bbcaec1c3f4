"""Progressive jackpots (issue 14, item 5): grow, won, back to base, set, share-out; each change
an append-only entry naming its draw and an audit event. TH r120-126, r135-141, A17, A18; FL r107,
A11; GH r9, A4. PRIZES.md §5 examples 8, 16, 17."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from draws.engine import draw_start, pick_outcome_record
from draws.models import Draw, DrawPick, DrawStatus, PickOutcome
from draws.tests.builders import MANAGER, SAST, closed_draw
from prizes.models import Progressive, ProgressiveEntry
from prizes.progressives import (
    jackpot_line,
    progressive_grow,
    progressive_reset,
    progressive_set,
    progressive_share_out,
    progressive_value,
    progressive_win,
    share_out_lines,
)
from promotions.tests.factories import make_series

pytestmark = pytest.mark.django_db
R = 100
FIRST = dt.datetime(2025, 10, 4, 21, 0, tzinfo=SAST)  # a Saturday 9pm


@pytest.fixture(autouse=True)
def _clock():
    with time_machine.travel(FIRST - dt.timedelta(days=1), tick=False) as traveller:
        yield traveller


def series_of(winners: int):
    series = make_series()
    series.winners_per_draw = winners
    series.save()
    return series


@pytest.fixture
def nine_pm(reference_data):
    return series_of(2)


@pytest.fixture
def safe(nine_pm) -> Progressive:
    """TH r126: base R100,000, +R20,000 per 9pm draw not cracked; r135: the 21h30 share-out."""
    share = series_of(5)
    return Progressive.objects.create(
        promotion=nine_pm.promotion,
        series=nine_pm,
        share_series=share,
        code="th-safe",
        name="Digit safe",
        base_cents=100_000 * R,
        increment_cents=20_000 * R,
    )


def draw_at(series, at: dt.datetime, _clock, winners: int = 2) -> Draw:
    """A draw of `series` at `at`, started, every pick recorded Present: running until the last."""
    _clock.move_to(at - dt.timedelta(hours=1))
    draw, _ = closed_draw(series, at, [5] * (winners + 1))
    _clock.move_to(at + dt.timedelta(seconds=5))
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    return draw


def record_all(draw: Draw) -> list[DrawPick]:
    while (pick := DrawPick.objects.filter(draw=draw, outcome="").first()) is not None:
        pick_outcome_record(
            actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=PickOutcome.PRESENT, id_type_seen="sa_id"
        )
    draw.refresh_from_db()
    return list(DrawPick.objects.filter(draw=draw, outcome=PickOutcome.PRESENT).order_by("seq"))


def closed(series, week: int, _clock) -> Draw:
    draw = draw_at(series, FIRST + dt.timedelta(weeks=week), _clock)
    record_all(draw)
    assert draw.status == DrawStatus.DRAWN
    return draw


def test_the_safe_grows_per_9pm_draw_closing_uncracked_and_each_change_names_its_draw(safe, nine_pm, _clock):
    """TH r126, A17: R100,000 + R20,000 per 9pm draw not cracked."""
    draws = [closed(nine_pm, week, _clock) for week in range(2)]
    for draw in draws:
        progressive_grow(actor=MANAGER, draw_id=draw.pk)
    assert progressive_value(safe) == 140_000 * R
    entries = list(safe.entries.all())
    assert [(e.kind, e.draw_id, e.change_cents, e.balance_cents) for e in entries] == [
        ("grow", draws[0].pk, 20_000 * R, 120_000 * R),
        ("grow", draws[1].pk, 20_000 * R, 140_000 * R),
    ]
    assert entries[1].words == f"Digit safe not won at {draws[1].name}: up R 20,000.00 to R 140,000.00"
    events = AuditEvent.objects.filter(action="progressive.grow", object_id=str(safe.pk))
    assert [e.data["balance_cents"] for e in events.order_by("pk")] == [120_000 * R, 140_000 * R]
    first = events.order_by("pk").first()
    assert first.data["draw"] == draws[0].pk and first.actor_label == MANAGER.label


def test_growing_twice_for_one_draw_changes_nothing_and_a_running_draw_does_not_grow_it(safe, nine_pm, _clock):
    draw = draw_at(nine_pm, FIRST, _clock)
    with pytest.raises(DomainError, match="has not finished"):
        progressive_grow(actor=MANAGER, draw_id=draw.pk)
    record_all(draw)
    assert len(progressive_grow(actor=MANAGER, draw_id=draw.pk)) == 1
    assert progressive_grow(actor=MANAGER, draw_id=draw.pk) == []
    assert progressive_value(safe) == 120_000 * R


def test_example_16_cracked_at_r140000_pays_it_and_the_safe_goes_back_to_base(safe, nine_pm, _clock):
    """§5 ex. 16: two uncracked before -> R140,000 won; safe -> R100,000; no growth that night."""
    for week in range(2):
        progressive_grow(actor=MANAGER, draw_id=closed(nine_pm, week, _clock).pk)
    draw = draw_at(nine_pm, FIRST + dt.timedelta(weeks=2), _clock)
    winner = record_all(draw)[0]
    won = progressive_win(actor=MANAGER, progressive_id=safe.pk, pick_id=winner.pk)
    assert (won.kind, won.change_cents, won.pick_id) == ("won", -140_000 * R, winner.pk)
    line = jackpot_line(won)
    assert (line.kind, line.amount_cents, line.source) == ("cash", 140_000 * R, "jackpot")
    assert progressive_value(safe) == 100_000 * R
    assert safe.entries.last().kind == "reset"
    with pytest.raises(DomainError, match="already won at"):
        progressive_win(actor=MANAGER, progressive_id=safe.pk, pick_id=record_all(draw)[1].pk)  # A17: one a draw
    assert progressive_grow(actor=MANAGER, draw_id=draw.pk) == []  # cracked: it does not grow
    assert progressive_value(safe) == 100_000 * R
    assert AuditEvent.objects.filter(action__in=["progressive.won", "progressive.reset"]).count() == 2


def test_example_17_never_cracked_the_21h30_shares_it_equally_among_five(safe, nine_pm, _clock):
    """§5 ex. 17: after 10 uncracked 9pm draws R300,000: 5 x R60,000 (TH r135, A18)."""
    for week in range(10):
        progressive_grow(actor=MANAGER, draw_id=closed(nine_pm, week, _clock).pk)
    share_draw = draw_at(safe.share_series, FIRST + dt.timedelta(weeks=10, minutes=30), _clock, winners=5)
    winners = record_all(share_draw)
    entry = progressive_share_out(actor=MANAGER, draw_id=share_draw.pk, pick_ids=[p.pk for p in winners])
    assert (entry.change_cents, entry.balance_cents, entry.data["each_cents"]) == (-300_000 * R, 0, 60_000 * R)
    lines = share_out_lines(entry)
    assert sorted(lines) == sorted(p.pk for p in winners)
    assert {(line.amount_cents, line.source) for line in lines.values()} == {(60_000 * R, "share_out")}
    with pytest.raises(DomainError, match="has been shared out"):
        progressive_share_out(actor=MANAGER, draw_id=share_draw.pk, pick_ids=[p.pk for p in winners])


def test_a_safe_cracked_once_is_never_shared_out(safe, nine_pm, _clock):
    """TH r135: "if the safe has not been cracked (Throughout the duration of the promotion)"."""
    draw = draw_at(nine_pm, FIRST, _clock)
    cracker = record_all(draw)[0]
    # Started before the crack is recorded: once cracked, its Start is refused (test_conduct_share_out).
    share_draw = draw_at(safe.share_series, FIRST + dt.timedelta(weeks=1), _clock, winners=5)
    progressive_win(actor=MANAGER, progressive_id=safe.pk, pick_id=cracker.pk)
    winners = record_all(share_draw)
    with pytest.raises(DomainError, match="there is no share-out"):
        progressive_share_out(actor=MANAGER, draw_id=share_draw.pk, pick_ids=[p.pk for p in winners])


def test_example_8_fl_progressive_reveal_at_base_does_not_grow_and_is_back_to_base_after_a_win(reference_data, _clock):
    """FL r107, A11: R20,000, increment 0 by default; base after a win."""
    rir = series_of(2)
    reveal = Progressive.objects.create(
        promotion=rir.promotion, series=rir, code="fl-progressive", name="Progressive reveal", base_cents=20_000 * R
    )
    draw = closed(rir, 0, _clock)
    assert progressive_grow(actor=MANAGER, draw_id=draw.pk) == []
    draw = draw_at(rir, FIRST + dt.timedelta(weeks=1), _clock)
    won = progressive_win(actor=MANAGER, progressive_id=reveal.pk, pick_id=record_all(draw)[0].pk)
    assert jackpot_line(won).amount_cents == 20_000 * R
    assert progressive_value(reveal) == 20_000 * R


@pytest.fixture
def vault(reference_data) -> Progressive:
    """GH r9, A4: the Queen vault's jackpot, set per date by a manager; no growth, no base."""
    queen = series_of(3)
    return Progressive.objects.create(
        promotion=queen.promotion, series=queen, code="gh-vault-queen", name="Queen vault jackpot", base_cents=0
    )


def test_gh_vault_jackpot_is_set_for_the_date_and_won_by_the_pink_ball(vault, user_for, _clock):
    manager = Actor.for_user(user_for("promotions_manager"))
    _clock.move_to(FIRST - dt.timedelta(hours=2))
    draw, _ = closed_draw(vault.series, FIRST, [5, 5, 5, 5])
    entry = progressive_set(actor=manager, progressive_id=vault.pk, draw_id=draw.pk, amount_cents=50_000 * R)
    assert (entry.kind, entry.balance_cents, entry.created_by) == ("set", 50_000 * R, manager.label)
    assert entry.words.startswith(f"Queen vault jackpot set to R 50,000.00 for {draw.name}")
    assert AuditEvent.objects.get(action="progressive.set").data["balance_cents"] == 50_000 * R
    _clock.move_to(FIRST + dt.timedelta(seconds=5))
    assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
    with pytest.raises(DomainError, match="set before the draw"):
        progressive_set(actor=manager, progressive_id=vault.pk, draw_id=draw.pk, amount_cents=60_000 * R)
    won = progressive_win(actor=MANAGER, progressive_id=vault.pk, pick_id=record_all(draw)[1].pk)
    assert jackpot_line(won).amount_cents == 50_000 * R
    assert progressive_value(vault) == 0
    assert [e.kind for e in vault.entries.all()] == ["set", "won"]


def test_a_jackpot_without_an_amount_cannot_be_won(vault, _clock, monkeypatch):
    # The Start refuses such a vault draw first (test_vault_jackpots); the service's own guard holds too.
    monkeypatch.setattr("prizes.vault_jackpots.vault_missing", lambda draw: [])
    draw = draw_at(vault.series, FIRST, _clock, winners=3)
    with pytest.raises(DomainError, match="a promotions manager sets it first"):
        progressive_win(actor=MANAGER, progressive_id=vault.pk, pick_id=record_all(draw)[0].pk)


@pytest.mark.parametrize("amount", [0, -5, 12.5])
def test_a_set_amount_is_whole_cents_above_zero(vault, amount, _clock):
    draw, _ = closed_draw(vault.series, FIRST, [5])
    with pytest.raises(DomainError, match="above R0"):
        progressive_set(actor=MANAGER, progressive_id=vault.pk, draw_id=draw.pk, amount_cents=amount)


def test_only_a_manager_sets_or_resets_and_a_growing_jackpot_is_never_set(safe, vault, user_for, _clock):
    desk = Actor.for_user(user_for("rewards_desk"))
    draw, _ = closed_draw(vault.series, FIRST, [5])
    with pytest.raises(DomainError, match="Only a promotions manager"):
        progressive_set(actor=desk, progressive_id=vault.pk, draw_id=draw.pk, amount_cents=R)
    with pytest.raises(DomainError, match="Only a promotions manager"):
        progressive_reset(actor=desk, progressive_id=vault.pk, draw_id=draw.pk, reason="typo")
    safe_draw, _ = closed_draw(safe.series, FIRST, [5])
    with pytest.raises(DomainError, match="grows by its rule"):
        progressive_set(actor=MANAGER, progressive_id=safe.pk, draw_id=safe_draw.pk, amount_cents=R)
    with pytest.raises(DomainError, match="is not a draw of"):
        progressive_set(actor=MANAGER, progressive_id=vault.pk, draw_id=safe_draw.pk, amount_cents=R)
    assert not ProgressiveEntry.objects.exists()


def test_a_manager_resets_by_hand_with_a_reason(safe, nine_pm, _clock):
    draw = closed(nine_pm, 0, _clock)
    progressive_grow(actor=MANAGER, draw_id=draw.pk)
    with pytest.raises(DomainError, match="Say why"):
        progressive_reset(actor=MANAGER, progressive_id=safe.pk, draw_id=draw.pk, reason=" ")
    entry = progressive_reset(actor=MANAGER, progressive_id=safe.pk, draw_id=draw.pk, reason="grown by mistake")
    assert (entry.change_cents, entry.balance_cents) == (-20_000 * R, 100_000 * R)
    assert "grown by mistake" in entry.words


def test_the_page_lists_each_jackpot_and_its_changes_with_draw_and_who(safe, nine_pm, _clock, client_for):
    draw = closed(nine_pm, 0, _clock)
    progressive_grow(actor=MANAGER, draw_id=draw.pk)
    auditor = client_for("auditor")
    listing = auditor.get(reverse("prizes:progressives")).content.decode()
    assert "Digit safe" in listing and "R 120,000.00" in listing and "R 20,000.00" in listing
    page = auditor.get(reverse("prizes:progressive", args=[safe.pk])).content.decode()
    assert 'Digit safe: <span id="progressive-value">R 120,000.00</span>' in page
    assert f"Grew: Digit safe not won at {draw.name}" in page
    assert reverse("draws:detail", args=[draw.pk]) in page and MANAGER.label in page
    assert client_for("rewards_desk").get(reverse("prizes:progressives")).status_code == 403
