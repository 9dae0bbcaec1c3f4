"""Card swipes arriving as text. A keyboard-wedge reader types the magnetic stripe as keystrokes:
track 1 "%B1000000017^KHUMALO/NALEDI^2812...?" (which holds the member's name), track 2
";1000000017=2812...?", or both in a row. The browser keeps only the card number (static/js/swipe.js);
this is the server's copy of the same rule, for a request that arrives with the raw stripe anyway
(no JavaScript, a script that failed): the stripe must never be echoed into a page, a URL or a log.
"""

import re
from collections.abc import Callable
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

_TRACK1 = re.compile(r"%B(\d{4,19})\^")
_TRACK2 = re.compile(r";(\d{4,19})[=?]")
# What only a stripe contains: the track 1 start "%B" or field separator "^", or track 2's start
# sentinel followed by digits. A name, card, ID or receipt number typed by hand has none of them.
_STRIPE_MARK = re.compile(r"%B|\^|;\d")


def looks_like_swipe(text: str) -> bool:
    return bool(text) and bool(_STRIPE_MARK.search(text))


def card_from_swipe(text: str) -> str | None:
    """The card number in a swipe, or None when the stripe was misread (swipe again)."""
    match = _TRACK1.search(text) or _TRACK2.search(text)
    return match.group(1) if match else None


def scrub(text: str) -> str:
    """A lookup text safe to search, show and put in a URL: a swipe becomes its card number (or ""
    when misread); anything else is returned trimmed."""
    text = (text or "").strip()
    if looks_like_swipe(text):
        return card_from_swipe(text) or ""
    return text


class SwipeInQueryMiddleware:
    """A GET whose query string holds a raw stripe is sent on at once to the same address with only
    the card number, so the stripe stays out of the browser's history and of every log written
    after this point (Django's request log, error reports). Goes first in MIDDLEWARE."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "GET" and request.GET and any(looks_like_swipe(v) for v in _values(request)):
            query = urlencode([(key, scrub(value)) for key, values in request.GET.lists() for value in values])
            return HttpResponseRedirect(request.path + (f"?{query}" if query else ""))
        return self.get_response(request)


def _values(request: HttpRequest):
    for values in request.GET.lists():
        yield from values[1]
