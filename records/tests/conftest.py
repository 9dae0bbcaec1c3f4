"""Fixtures of the record pack tests: a promotion with a complete draw whose three winners were
present, represented by a proxy and declined; one winner's letter paid, one expired, one never
issued; the rules set through the promotions service (so the audit log holds their digest)."""

import datetime as dt

import pytest
import time_machine

from core.audit import Actor
from draws.models import PickOutcome
from draws.tests.builders import sast
from prizes.letter_models import LetterStatus, PrizeLetter
from prizes.tests.letter_helpers import place, play, store
from prizes.tests.report_helpers import complete_draw, pay
from promotions.services import promotion_save
from promotions.tests.factories import make_series

DRAW_AT = sast(2025, 10, 15, 13, 0)
RULES = "1. The promoter is Gold Reef City.\n2. Winners collect within 15 days.\n3. Ünïcode is kept as written.\n"


def _letter(draw, pick, number: str, *, status=LetterStatus.ISSUED) -> PrizeLetter:
    letter = PrizeLetter.objects.create(
        number=number,
        draw=draw,
        pick=pick,
        member=pick.member,
        property=draw.property,
        collection_place="the Cash Desk",
        issued_at=DRAW_AT + dt.timedelta(days=1),
        issued_by="desk",
        id_type_seen="sa_id",
        expires_at=DRAW_AT + dt.timedelta(days=16),
        code="0" * 64,
        status=status,
        status_changed_at=DRAW_AT + dt.timedelta(days=16) if status == LetterStatus.EXPIRED else None,
    )
    for line in pick.prize_lines.all():
        letter.lines.create(prize_line=line)
    return letter


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def promotion(reference_data):
    series = make_series()
    promotion = series.promotion
    promotion.rules_text = RULES
    promotion_save(actor=Actor.system("test"), promotion=promotion, properties=list(promotion.properties.all()))
    outcomes = [PickOutcome.PRESENT, PickOutcome.PROXY_PRESENT, PickOutcome.DECLINED]
    draw, picks = complete_draw(series, DRAW_AT, outcomes)
    with time_machine.travel(DRAW_AT + dt.timedelta(minutes=30), tick=False):
        store(draw, picks[0], _cash(500_000), play(50_000))
        store(draw, picks[1], _cash(100_000))
        store(draw, picks[2], place())
    paid = _letter(draw, picks[0], "GRC-25-000001")
    pay(paid, at=DRAW_AT + dt.timedelta(days=2), by="cashier1")
    _letter(draw, picks[1], "GRC-25-000002", status=LetterStatus.EXPIRED)
    promotion.refresh_from_db()
    return promotion


def _cash(amount_cents: int):
    from prizes.tests.conftest import cash

    return cash(amount_cents)
