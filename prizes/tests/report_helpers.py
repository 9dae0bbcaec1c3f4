"""Pieces of the letters' report tests: complete draws whose winners were present, represented by
a proxy or declined; a letter paid as the cash desk leaves it (the paying service is the cash
desk's: these tests need only its rows)."""

import datetime as dt

import time_machine

from draws.engine import draw_start, pick_outcome_record
from draws.models import Draw, DrawPick, PickOutcome
from draws.tests.builders import MANAGER, closed_draw
from members.models import Member
from prizes.letter_models import LetterStatus, Payout, PayoutPlace, PrizeLetter
from promotions.models import DrawSeries
from proxies.tests.factories import decline_on_record, nomination_on_record


def complete_draw(
    series: DrawSeries, at: dt.datetime, outcomes: list[str], members: list[Member] | None = None
) -> tuple[Draw, list[DrawPick]]:
    """A draw at `at` run to one winner per outcome (present, proxy present, declined), the
    registers filled in as each outcome needs; the clock put back afterwards."""
    series.winners_per_draw = len(outcomes)
    series.save()
    with time_machine.travel(at + dt.timedelta(minutes=1), tick=False):
        draw, _ = closed_draw(series, at, [5] * (len(members) if members else len(outcomes) + 2), members)
        assert draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Thandi Witness")
        picks = []
        for outcome in outcomes:
            pick = DrawPick.objects.select_related("member").get(draw=draw, outcome="")
            registered = at - dt.timedelta(hours=3)
            if outcome == PickOutcome.DECLINED:
                decline_on_record(draw=draw, member=pick.member, at=registered)
            elif outcome == PickOutcome.PROXY_PRESENT:
                nomination_on_record(draw=draw, member=pick.member, at=registered)
            id_type = "sa_id" if outcome != PickOutcome.DECLINED else ""
            pick_outcome_record(actor=MANAGER, draw_id=draw.pk, pick_id=pick.pk, outcome=outcome, id_type_seen=id_type)
            picks.append(DrawPick.objects.select_related("member").get(pk=pick.pk))
    draw.refresh_from_db()
    assert draw.is_complete()
    return draw, picks


def pay(letter: PrizeLetter, *, at: dt.datetime, by: str) -> list[Payout]:
    """Every line of the letter paid at the cash desk at `at` by `by`, the letter marked paid."""
    payouts = [
        Payout.objects.create(
            prize_line=ll.prize_line,
            letter=letter,
            property=letter.property,
            kind=ll.prize_line.kind,
            amount_cents=ll.prize_line.amount_cents,
            paid_at=at,
            paid_by=by,
            where=PayoutPlace.CASH_DESK,
            id_type_seen="sa_id",
            id_last_digits="9087",
            signature_acknowledged=True,
        )
        for ll in letter.lines.select_related("prize_line")
    ]
    PrizeLetter.objects.filter(pk=letter.pk).update(status=LetterStatus.PAID, status_changed_at=at)
    return payouts


def letter_amount(letter: PrizeLetter) -> int:
    return sum(ll.prize_line.amount_cents for ll in letter.lines.select_related("prize_line"))
