"""The seeds' collection rules as data (PRIZES.md §3): 15 days everywhere, the place per
promotion, Royal Flush's bonus jackpot sessions paid at the device (r14, r29)."""

import pytest

from draws.seeds import emnotweni_daytime_playtime, golden_horse_prive_powerplay, grc_royal_flush
from promotions.models import DrawSeries, Promotion

pytestmark = pytest.mark.django_db


def test_royal_flush_pays_its_bonus_jackpot_sessions_at_the_device_and_nothing_else(seed):
    seed(grc_royal_flush)
    at_device = set(DrawSeries.objects.filter(paid_at_device=True).values_list("code", flat=True))
    assert at_device == {"wed-bonus-jackpot-raps", "sat-bonus-jackpot-raps"}
    promotion = Promotion.objects.get(code="grc-royal-flush")
    assert (promotion.collection_days, promotion.collection_place) == (15, "the Cash Desk")
    finale = DrawSeries.objects.get(code="grand-finale")
    assert finale.property.code == "MC"  # its letters name Montecasino: the draw's property
    assert "Rules 47, 65 and 77" in finale.rule.assumptions


@pytest.mark.parametrize(
    ("module", "place"),
    [
        (golden_horse_prive_powerplay, "the Cash Desk, with the prize letter from the Tsogo Rewards Desk"),
        (emnotweni_daytime_playtime, "the Customer Service Desk"),
    ],
)
def test_each_seed_says_where_its_prizes_are_collected(seed, module, place):
    seed(module)
    promotion = Promotion.objects.get(code=module.PROMOTION.code)
    assert (promotion.collection_days, promotion.collection_place) == (15, place)
