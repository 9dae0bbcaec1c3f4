"""Every error answer under /api/ is JSON {"code", "detail"}, whatever raised it.

django-ninja's exception handlers (draws/api.py) shape the errors of its operations. This
middleware shapes what never reaches them: Django's 404 for an unknown URL, ninja's plain-text
405, Django's 500 page, and a body over DATA_UPLOAD_MAX_MEMORY_SIZE, refused from its
Content-Length before anything reads it.
"""

import json
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

API_PREFIX = "/api/"

# The code and detail of an error answer when nothing more specific said why.
DEFAULT_PROBLEM = {
    400: ("bad_request", "The request is not valid."),
    401: ("unauthorized", "Missing, unknown or revoked device token."),
    403: ("forbidden", "This device may not do that."),
    404: ("not_found", "There is nothing at this address."),
    405: ("method_not_allowed", "This address does not accept that method."),
    413: ("payload_too_large", "The request body is too large."),
    422: ("bad_request", "The request is not valid."),
    429: ("too_many_requests", "Too many requests: try again shortly."),
    500: ("server_error", "Something went wrong on our side; it has been logged. Please try again."),
}
# Headers of the original answer that a client still needs once its body is replaced.
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


def clip(value: object, limit: int = 24) -> str:
    """A short, printable prefix of client input, the most an error detail may echo: no control
    characters, NUL bytes or lone surrogates, never the whole of a 4 MB string."""
    text = str(value)
    shown = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    return shown + ("…" if len(text) > limit else "")


def problem(code: str, detail: str, status: int) -> JsonResponse:
    return JsonResponse({"code": code, "detail": detail}, status=status)


def default_problem(status: int) -> JsonResponse:
    code, detail = DEFAULT_PROBLEM.get(status) or DEFAULT_PROBLEM[500 if status >= 500 else 400]
    return problem(code, detail, status)


def _is_problem(response: HttpResponse) -> bool:
    if response.streaming or not response.get("Content-Type", "").startswith("application/json"):
        return False
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return isinstance(body, dict) and isinstance(body.get("code"), str) and isinstance(body.get("detail"), str)


def _too_large(request: HttpRequest) -> bool:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False  # Django reads such a body as empty
    return limit is not None and length > limit


class ApiErrorMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path_info.startswith(API_PREFIX):
            return self.get_response(request)
        if _too_large(request):
            limit_mb = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / (1024 * 1024)
            return problem("payload_too_large", f"The request body is over the {limit_mb:g} MB limit.", 413)
        response = self.get_response(request)
        if response.status_code < 400 or _is_problem(response):
            return response
        # Whatever the page said (HTML, plain text, a traceback in DEBUG) is replaced: no
        # internals and no echo of the request.
        shaped = default_problem(response.status_code)
        for header in KEPT_HEADERS:
            if header in response:
                shaped[header] = response[header]
        return shaped
