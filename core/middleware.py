"""Response headers every page carries."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class ContentSecurityPolicyMiddleware:
    """Adds settings.CONTENT_SECURITY_POLICY to every response that has not set its own.

    Django 5.2 has no built-in CSP, and the policy is one fixed string (no nonces: the
    templates load every script and style from static/), so a few lines do.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = settings.CONTENT_SECURITY_POLICY
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response
