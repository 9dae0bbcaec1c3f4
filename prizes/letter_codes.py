"""A prize letter's verification code and the text of its QR code (issue 15, item 4).

The code is HMAC-SHA256, under settings.PRIZE_LETTER_SECRET, of the letter's canonical text:
its number, the winner's card and ID numbers, the draw, each line (id, kind, amount in cents),
the issue and expiry instants (UTC, ISO 8601). A letter altered in any of them, or made up
without the key, fails; a letter reissued gets a new number and so a new code.

The QR holds "PL1:<number>:<code in upper case>": upper-case letters, digits, ":" and "-" are
all in the QR alphanumeric set, so the symbol stays small (about 90 characters). The cash desk's
keyboard-wedge scanner types exactly that text; the cashier may also key the number alone.
"""

import datetime as dt
import hashlib
import hmac
import re
from collections.abc import Iterable

from django.conf import settings

SCAN_PREFIX = "PL1"
_SCAN = re.compile(r"^\s*PL1:([A-Z0-9]{1,10}-\d{2}-\d{6}):([0-9A-F]{64})\s*$", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*([A-Z0-9]{1,10}-\d{2}-\d{6})\s*$", re.IGNORECASE)


def canonical_text(
    *,
    number: str,
    card_number: str,
    id_number: str,
    draw_id: int,
    lines: Iterable[tuple[int, str, int]],
    issued_at: dt.datetime,
    expires_at: dt.datetime,
) -> str:
    """The exact text signed: one field per line, the prize lines in id order."""
    rows = [
        f"{SCAN_PREFIX}",
        f"number={number}",
        f"card={card_number}",
        f"id={id_number}",
        f"draw={draw_id}",
        *(f"line={line_id}:{kind}:{amount}" for line_id, kind, amount in sorted(lines)),
        f"issued={_utc(issued_at)}",
        f"expires={_utc(expires_at)}",
    ]
    return "\n".join(rows)


def _utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat(timespec="microseconds")


def sign(text: str) -> str:
    return hmac.new(settings.PRIZE_LETTER_SECRET.encode(), text.encode("utf-8"), hashlib.sha256).hexdigest()


def letter_text(letter) -> str:
    """The canonical text of a stored letter, read from its rows as they are now."""
    lines = [
        (ll.prize_line_id, ll.prize_line.kind, ll.prize_line.amount_cents)
        for ll in letter.lines.select_related("prize_line")
    ]
    return canonical_text(
        number=letter.number,
        card_number=letter.member.card_number,
        id_number=letter.member.id_number,
        draw_id=letter.draw_id,
        lines=lines,
        issued_at=letter.issued_at,
        expires_at=letter.expires_at,
    )


def letter_code(letter) -> str:
    """The code the letter's fields give now."""
    return sign(letter_text(letter))


def scan_text(letter) -> str:
    return f"{SCAN_PREFIX}:{letter.number}:{letter.code.upper()}"


def parse_scan(text: str) -> tuple[str, str] | None:
    """(letter number, code) of a scanned QR text, (number, "") of a keyed letter number, or
    None when the text is neither."""
    match = _SCAN.match(text or "")
    if match:
        return match.group(1).upper(), match.group(2).lower()
    match = _NUMBER.match(text or "")
    if match:
        return match.group(1).upper(), ""
    return None
