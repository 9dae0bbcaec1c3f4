"""Rewards card numbers: a 9-digit serial and a Luhn check digit, so that a mistyped
number is caught at the desk before it is looked up."""

from stdnum import luhn

from members.models import CardNumberCounter

FIRST_SERIAL = 100_000_000


def card_number_for(serial: int) -> str:
    body = f"{serial:09d}"
    return body + luhn.calc_check_digit(body)


def card_numbers_issue(count: int = 1) -> list[str]:
    """Take the next `count` card numbers. Call inside a transaction: the counter row stays
    locked until it commits, so two desks never issue the same number."""
    counter = CardNumberCounter.objects.select_for_update().filter(pk=1).first()
    if counter is None:
        counter = CardNumberCounter.objects.create(pk=1, last_serial=FIRST_SERIAL - 1)
        counter = CardNumberCounter.objects.select_for_update().get(pk=1)
    first = counter.last_serial + 1
    counter.last_serial += count
    counter.save(update_fields=["last_serial"])
    return [card_number_for(serial) for serial in range(first, first + count)]
