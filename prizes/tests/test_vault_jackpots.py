"""The seeds' jackpots (issue 14 item 5) and Golden Horse's vault prizes set per draw (GH r9, A4):
loaded once, never overwritten; the manager's form sets the tier's jackpot (a `set` entry naming
the draw) and consolation (the board) before the draw; the Start waits until both are right."""

import datetime as dt

import pytest
import time_machine
from django.urls import reverse

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.roles import AUDITOR, PROMOTIONS_MANAGER
from draws.engine import draw_start
from draws.models import Draw, DrawStatus
from draws.seeds import load_seed_promotions
from draws.services import draw_close_window
from draws.tests.builders import MANAGER, add_entries, sast
from members.models import Tier
from prizes.models import BoardSlot, PrizeBoard, Progressive
from prizes.progressives import progressive_reset, progressive_value
from prizes.seed_boards import load_seed_boards
from prizes.seed_progressives import load_seed_progressives
from prizes.vault_jackpots import vault_prizes_set, vault_start_refusal

pytestmark = pytest.mark.django_db
LOADER = Actor.system("test")
R = 100
GH = "golden-horse-prive-powerplay"


def jackpot(promotion: str, code: str) -> Progressive:
    return Progressive.objects.get(promotion__code=promotion, code=code)


@pytest.fixture(autouse=True)
def seeds(module_seed_boards, db):
    """Every test starts from the seed promotions and boards (loading them again adds nothing)."""


@pytest.fixture
def loaded(reference_data):
    return load_seed_progressives(actor=LOADER)


def test_the_seeds_jackpots_are_loaded_once_with_the_rules_amounts(loaded):
    assert loaded == {"grc-turn-up-the-heat": 1, "grc-fast-lane-to-fortune": 1, GH: 5}
    safe = jackpot("grc-turn-up-the-heat", "th-safe")
    # TH r126: "a Base value of R100, 000 and increase by R20, 000 per cash draw if not won" (A17: the 9pm).
    assert (safe.series.code, safe.base_cents, safe.increment_cents) == ("sat-cash-2100", 100_000 * R, 20_000 * R)
    assert safe.share_series.code == "sat-safe-share-2130"  # r135: 20 Dec 21h30, only if never cracked
    reveal = jackpot("grc-fast-lane-to-fortune", "fl-progressive-reveal")
    # FL r107 "A R20 000 progressive Jackpot"; growth not given: the board's setting, R0 (A11).
    assert (reveal.series.code, reveal.base_cents, reveal.increment_cents) == ("sat-cash-2100", 20_000 * R, 0)
    vaults = Progressive.objects.filter(promotion__code=GH).order_by("code")
    # GH r9 "Jackpot amounts and consolation amounts will differ for every tier", A4: set per draw, base R0.
    assert [(v.code, v.series.code, v.base_cents, v.increment_cents) for v in vaults] == [
        ("gh-vault-ace", "thu-2100-king-ace", 0, 0),
        ("gh-vault-jack", "thu-1900-ten-jack", 0, 0),
        ("gh-vault-king", "thu-2100-king-ace", 0, 0),
        ("gh-vault-queen", "thu-2000-queen", 0, 0),
        ("gh-vault-ten", "thu-1900-ten-jack", 0, 0),
    ]
    assert AuditEvent.objects.filter(action="progressive.created").count() == 7
    assert set(load_seed_progressives(actor=LOADER).values()) == {0}


def test_a_second_load_never_touches_a_jackpot_that_exists(loaded):
    safe = jackpot("grc-turn-up-the-heat", "th-safe")
    Progressive.objects.filter(pk=safe.pk).update(increment_cents=25_000 * R)  # changed since
    load_seed_progressives(actor=LOADER)
    safe.refresh_from_db()
    assert safe.increment_cents == 25_000 * R


def test_fast_lanes_reveal_grows_by_the_boards_setting_when_one_is_set_before_loading(reference_data):
    list(load_seed_promotions(actor=LOADER))
    load_seed_boards(actor=LOADER)
    board = PrizeBoard.objects.get(series__promotion__code="grc-fast-lane-to-fortune", series__code="sat-cash-2100")
    board.settings["progressive_increment_cents"] = 1_000 * R
    board.save()
    load_seed_progressives(actor=LOADER)
    assert jackpot("grc-fast-lane-to-fortune", "fl-progressive-reveal").increment_cents == 1_000 * R


@pytest.fixture
def queen(loaded) -> Draw:
    """GH Thursday 20h00 Queen draw of 16 Jul 2026 (a 15-ball night), its entries frozen."""
    draw = Draw.objects.get(
        series__promotion__code=GH, series__code="thu-2000-queen", scheduled_at=sast(2026, 7, 16, 20, 0)
    )
    add_entries(draw, [5, 9, 4, 7])
    assert draw_close_window(draw_id=draw.pk, now=draw.tickets_close_at)
    return Draw.objects.get(pk=draw.pk)


def vault_board(draw: Draw, day: dt.date = dt.date(2026, 7, 16)) -> PrizeBoard:
    return PrizeBoard.objects.get(series=draw.series, tier__code="QUEEN", draw_date=day)


@pytest.fixture
def boss(user_for) -> Actor:
    return Actor.for_user(user_for(PROMOTIONS_MANAGER))


def set_queen(actor: Actor, draw: Draw, jackpot_cents: int, consolation_cents: int = 2_000 * R):
    return vault_prizes_set(
        actor=actor,
        draw_id=draw.pk,
        tier_id=Tier.objects.get(code="QUEEN").pk,
        jackpot_cents=jackpot_cents,
        consolation_cents=consolation_cents,
    )


def test_a_vault_draw_starts_only_once_its_jackpot_is_set_for_it_not_with_the_board_alone(queen, boss):
    """GH r9: "the jackpot set on that day"; A4: per tier per date. PRIZES.md example 1's J and C."""
    BoardSlot.objects.filter(board=vault_board(queen)).update(amount_cents=3_000 * R)  # the board filled by hand
    refusal = vault_start_refusal(queen)
    assert refusal == (
        "The draw cannot start until its vault prizes are set: set the Queen vault jackpot for this draw. "
        "A promotions manager sets them on the draw's vault prizes page."
    )
    with time_machine.travel(sast(2026, 7, 16, 20, 1), tick=False):
        with pytest.raises(DomainError, match="Queen vault jackpot for this draw"):
            draw_start(actor=MANAGER, draw_id=queen.pk, witness_name="T. Nkosi")

        progressive = set_queen(boss, queen, 50_000 * R, 2_500 * R)
        board = vault_board(queen)
        assert {s.group: s.amount_cents for s in board.slots.all()} == {"white": 2_500 * R, "pink": 50_000 * R}
        [entry] = progressive.entries.all()
        assert (entry.kind, entry.draw_id, entry.balance_cents) == ("set", queen.pk, 50_000 * R)
        assert AuditEvent.objects.filter(action="progressive.set", object_id=str(progressive.pk)).exists()
        assert AuditEvent.objects.filter(action="prize.board_saved", object_id=str(board.pk)).exists()
        assert vault_start_refusal(queen) is None
        assert draw_start(actor=MANAGER, draw_id=queen.pk, witness_name="T. Nkosi")
        with pytest.raises(DomainError, match="has started"):
            set_queen(boss, queen, 60_000 * R)


def test_a_later_dates_jackpot_set_meanwhile_holds_this_draw_until_set_again(queen, boss):
    set_queen(boss, queen, 50_000 * R)
    later = Draw.objects.get(series=queen.series, scheduled_at=sast(2026, 7, 23, 20, 0))
    set_queen(boss, later, 70_000 * R)  # the jackpot now stands at 23 Jul's amount
    assert "set the Queen vault jackpot for this draw" in vault_start_refusal(queen)
    assert vault_start_refusal(later) is None
    set_queen(boss, queen, 50_000 * R)
    assert vault_start_refusal(queen) is None


def test_a_jackpot_put_back_to_base_or_a_board_changed_by_hand_holds_the_draw(queen, boss):
    progressive = set_queen(boss, queen, 50_000 * R)
    BoardSlot.objects.filter(board=vault_board(queen), group="pink").update(amount_cents=40_000 * R)
    assert "set the Queen vault jackpot again (the board says R 40,000.00, the jackpot R 50,000.00)" in (
        vault_start_refusal(queen)
    )
    set_queen(boss, queen, 40_000 * R)
    assert vault_start_refusal(queen) is None
    progressive_reset(actor=boss, progressive_id=progressive.pk, draw_id=queen.pk, reason="wrong tier's amount")
    assert progressive_value(progressive) == 0
    assert "for this draw" in vault_start_refusal(queen)


@pytest.mark.parametrize(
    ("jackpot_cents", "consolation_cents", "words"),
    [
        (50_000 * R, 0, "consolation in rand, above R0"),
        (2_000 * R, 2_000 * R, "jackpot must be more than the consolation of R 2,000.00"),
        (2_000 * R + 1, 2_000 * R, None),  # a cent more is a jackpot
    ],
)
def test_the_jackpot_is_above_the_consolation_which_is_above_r0(queen, boss, jackpot_cents, consolation_cents, words):
    if words is None:
        set_queen(boss, queen, jackpot_cents, consolation_cents)
        assert vault_start_refusal(queen) is None
        return
    with pytest.raises(DomainError, match=words):
        set_queen(boss, queen, jackpot_cents, consolation_cents)
    assert not jackpot(GH, "gh-vault-queen").entries.exists()


def test_only_a_manager_of_golden_horse_sets_its_vault(queen, user_for):
    with pytest.raises(DomainError, match="Only a promotions manager"):
        set_queen(Actor.for_user(user_for("rewards_desk")), queen, 50_000 * R)
    grc_only = Actor.for_user(user_for(PROMOTIONS_MANAGER, properties=("GRC",)))
    with pytest.raises(DomainError, match="Golden Horse"):
        set_queen(grc_only, queen, 50_000 * R)
    assert not jackpot(GH, "gh-vault-queen").entries.exists()
    assert {s.amount_cents for s in vault_board(queen).slots.all()} == {None}  # the board rolled back too


def test_the_draw_page_links_to_the_vault_form_which_sets_both_tiers(loaded, client_for):
    draw = Draw.objects.get(
        series__promotion__code=GH, series__code="thu-1900-ten-jack", scheduled_at=sast(2026, 7, 30, 19, 0)
    )
    manager = client_for(PROMOTIONS_MANAGER)
    page = manager.get(reverse("draws:detail", args=[draw.pk])).content.decode()
    assert reverse("prizes:vault", args=[draw.pk]) in page
    assert "Vault prizes: set the Ten vault jackpot for this draw, the Jack vault jackpot for this draw." in page
    url = reverse("prizes:vault", args=[draw.pk])
    ten, jack = Tier.objects.get(code="TEN"), Tier.objects.get(code="JACK")
    refused = manager.post(url, {f"jackpot_{ten.pk}": "R 10,000.00", f"consolation_{ten.pk}": "1000"})
    assert refused.status_code == 200 and "Type the jack jackpot in rand" in refused.content.decode()
    answer = manager.post(
        url,
        {
            f"jackpot_{ten.pk}": "R 10,000.00",
            f"consolation_{ten.pk}": "1000",
            f"jackpot_{jack.pk}": "15 000",
            f"consolation_{jack.pk}": "500",
        },
    )
    assert answer.status_code == 302 and answer["Location"] == reverse("draws:detail", args=[draw.pk])
    assert progressive_value(jackpot(GH, "gh-vault-ten")) == 10_000 * R
    assert progressive_value(jackpot(GH, "gh-vault-jack")) == 15_000 * R
    assert vault_start_refusal(draw) is None
    # A jackpot not above its consolation: refused on the form, and neither tier changes.
    again = manager.post(
        url,
        {
            f"jackpot_{ten.pk}": "20000",
            f"consolation_{ten.pk}": "1000",
            f"jackpot_{jack.pk}": "500",
            f"consolation_{jack.pk}": "500",
        },
    )
    assert "The jackpot must be more than the consolation of R 500.00" in again.content.decode()
    assert progressive_value(jackpot(GH, "gh-vault-ten")) == 10_000 * R
    assert client_for(AUDITOR).get(url).status_code == 403


def test_a_manager_puts_a_jackpot_back_to_base_with_a_reason_on_its_page(loaded, client_for):
    safe = jackpot("grc-turn-up-the-heat", "th-safe")
    manager = client_for(PROMOTIONS_MANAGER)
    page = manager.get(reverse("prizes:progressive", args=[safe.pk])).content.decode()
    url = reverse("prizes:progressive_reset", args=[safe.pk])
    assert url in page
    draw = Draw.objects.filter(series=safe.series).order_by("scheduled_at").first()
    refused = manager.post(url, {"draw": draw.pk, "reason": " "})
    assert refused.status_code == 200 and not safe.entries.exists()
    answer = manager.post(url, {"draw": draw.pk, "reason": "a test entry"})
    assert answer.status_code == 302
    assert "already at its base" in manager.get(answer["Location"]).content.decode()
    assert client_for(AUDITOR).get(url).status_code == 403
    assert draw.status == DrawStatus.SCHEDULED
