"""Rewards card numbers: a 9-digit serial and a Luhn check digit, so that a mistyped
number is caught at the desk before it is looked up."""

from stdnum import luhn

from members.models import CardNumberCounter, Member

FIRST_SERIAL = 100_000_000


def card_number_for(serial: int) -> str:
    body = f"{serial:09d}"
    return body + luhn.calc_check_digit(body)


def card_numbers_issue(count: int = 1) -> list[str]:
    """Take the next `count` card numbers. Call inside a transaction: the counter row (made by
    migration 0003, or here after a test flush) stays locked until it commits, so two desks never issue the same number.
    Numbers already held by imported cards are skipped."""
    counter, _ = CardNumberCounter.objects.select_for_update().get_or_create(
        pk=1, defaults={"last_serial": FIRST_SERIAL - 1}
    )
    issued: list[str] = []
    serial = counter.last_serial
    while len(issued) < count:
        candidates = [card_number_for(s) for s in range(serial + 1, serial + 1 + count - len(issued))]
        serial += len(candidates)
        taken = set(Member.objects.filter(card_number__in=candidates).values_list("card_number", flat=True))
        issued += [c for c in candidates if c not in taken]
    counter.last_serial = serial
    counter.save(update_fields=["last_serial"])
    return issued
