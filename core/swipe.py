"""Card swipes arriving as text. A keyboard-wedge reader types the magnetic stripe as keystrokes:
track 1 "%B1000000017^KHUMALO/NALEDI^2812...?" (which holds the member's name), track 2
";1000000017=2812...?", or both in a row. The browser keeps only the card number (static/js/swipe.js);
this is the server's copy of the same rule, for a request that arrives with the raw stripe anyway
(no JavaScript, a script that failed): the stripe must never be echoed into a page, a URL or a log.
"""

import logging
import re
from collections.abc import Callable
from urllib.parse import unquote_plus, urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse

# The card number of a stripe: track 1 "%B<card>^", its start sentinel "%" maybe lost, or track 2
# ";<card>=" / ";<card>?" (its "=" is enough when the ";" was lost). Digits have no case; "%b"
# is what a reader types with Caps Lock on.
_TRACK1 = re.compile(r"[Bb](\d{4,19})\^")
_TRACK2 = re.compile(r";(\d{4,19})[=?]|(?<![\d^;])(\d{4,19})=")
# What only a stripe (whole, partial, with or without its sentinels, in either case) contains:
# track 1's field separator "^" (nobody types one by hand); its start "%B" followed by the card
# number, or by a name up to "/" (SURNAME/FIRST) or the end sentinel "?"; track 2's start ";"
# with the card number and its "=" or "?" (or at the very end: the stripe broke off); or track 2
# without its start: the card number, "=" and the four digits of the expiry. A name, card, ID,
# receipt number, reason or serial typed by hand has none of them.
_STRIPE_MARK = re.compile(
    r"\^"
    r"|%[Bb](?:\d|[A-Za-z' .-]*[/?])"
    r"|;\d{4,19}[=?]|(?<!\d);\d+\s*$|^\s*;\d"
    r"|\d{4,19}=\d{4}"
)
CARD_SWIPE = "(card swipe)"  # what a log, the audit log or a page keeps of a swipe's text


def looks_like_swipe(text: str) -> bool:
    """Whether `text` holds a card swipe anywhere in it (whole or partial)."""
    return bool(text) and isinstance(text, str) and bool(_STRIPE_MARK.search(text))


def card_from_swipe(text: str) -> str | None:
    """The card number in a swipe, or None when the stripe was misread (swipe again)."""
    match = _TRACK1.search(text) or _TRACK2.search(text)
    return next(group for group in match.groups() if group) if match else None


def scrub(text: str) -> str:
    """A lookup text safe to search, show and put in a URL: a swipe becomes its card number (or ""
    when misread); anything else is returned trimmed."""
    text = (text or "").strip()
    if looks_like_swipe(text):
        return card_from_swipe(text) or ""
    return text


def mask_swipes(text: str) -> str:
    """`text` with any card swipe in it replaced by "(card swipe)": for what is written to a log
    or shown from one. The stretch masked runs from the start of the first word holding a stripe
    mark to the end of the last one, or to the track's end sentinel "?" (a track 1 name may
    hold spaces); whatever else the text says is kept."""
    if not looks_like_swipe(text):
        return text
    marks = list(_STRIPE_MARK.finditer(text))
    start = max(text.rfind(" ", 0, marks[0].start()), text.rfind("\n", 0, marks[0].start())) + 1
    last = marks[-1].end()
    sentinel = text.find("?", last, last + 120)
    end = sentinel + 1 if sentinel != -1 else last
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[:start] + CARD_SWIPE + text[end:]


def mask_swipes_in(value):
    """A JSON-like value (the audit log's data) with every string in it masked (mask_swipes)."""
    if isinstance(value, str):
        return mask_swipes(value)
    if isinstance(value, dict):
        return {key: mask_swipes_in(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [mask_swipes_in(item) for item in value]
    return value


class SwipeLogFilter(logging.Filter):
    """Masks card swipes in every log record it sees (settings.LOGGING): Django's "Not Found: <path>"
    warning, the development server's request line, an error's message. The middleware keeps a
    swipe away from the views; this is the belt and braces for whatever logs the request anyway."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot be formatted is the handler's to report
            return True
        if looks_like_swipe(message):
            record.msg, record.args = mask_swipes(message), ()
        return True


SWIPE_IN_ADDRESS = "The address holds a card swipe: send only the card number."


class SwipeInQueryMiddleware:
    """A request whose address holds a raw stripe, in its path, a query key or a query value, is
    sent on at once to the clean address, before anything else reads or logs it (Django's request
    log, error reports, the links a list page rebuilds from its query): a query value becomes its
    card number, a query key with a stripe is dropped with its value, and a path is cut back to
    the folder before the stripe. Any method: a POST to such an address is not run but sent on
    (303) like a GET; under settings.SWIPE_REFUSED_PREFIXES (the API) the answer is 400 instead.
    Goes first in MIDDLEWARE, after SecurityMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path_swiped = looks_like_swipe(request.path)
        query_swiped = looks_like_swipe(unquote_plus(request.META.get("QUERY_STRING", ""))) or any(
            looks_like_swipe(key) or looks_like_swipe(value) for key, value in _pairs(request)
        )
        if not (path_swiped or query_swiped):
            return self.get_response(request)
        if request.path_info.startswith(tuple(settings.SWIPE_REFUSED_PREFIXES)):
            # A machine client follows no redirect: it is told its request is bad, in the API's
            # error shape.
            return JsonResponse({"code": "bad_request", "detail": SWIPE_IN_ADDRESS}, status=400)
        query = urlencode([(key, scrub(value)) for key, value in _pairs(request) if not looks_like_swipe(key)])
        if looks_like_swipe(unquote_plus(query)):  # a stripe split across a key and its value
            query = ""
        response = HttpResponseRedirect(clean_path(request.path) + (f"?{query}" if query else ""))
        if request.method not in ("GET", "HEAD"):
            response.status_code = 303
        return response


def clean_path(path: str) -> str:
    """`path` cut back to the last "/" before its first stripe mark (the address without the swipe)."""
    match = _STRIPE_MARK.search(path)
    if match is None:
        return path
    return path[: path.rfind("/", 0, match.start()) + 1] or "/"


def _pairs(request: HttpRequest):
    for key, values in request.GET.lists():
        for value in values:
            yield key, value
