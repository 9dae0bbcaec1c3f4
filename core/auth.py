"""Signing in and out: who tried, from where, and what came of it, in the audit log; and the
login throttle (django-axes) wired to it."""

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpRequest

from core.audit import Actor, audit_log, client_ip
from core.swipe import CARD_SWIPE, looks_like_swipe


class LoginThrottleBackend(AxesStandaloneBackend):
    """Refuses any sign-in while the account or the address is locked out (axes).

    A call with no request is not a sign-in through a page (the test client's login(), a
    management command); there is no address to throttle, so it is let through to the
    password check like any backend would.
    """

    def authenticate(self, request: HttpRequest | None, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def clean_text(value: object, limit: int = 150) -> str:
    """What a person typed, safe to store: NUL bytes and lone surrogates cannot go into a
    PostgreSQL JSON value, and a 4 MB "username" must not fill the log."""
    text = str(value or "").replace("\x00", "")
    return text.encode("utf-8", "replace").decode("utf-8")[:limit]


def _username_text(value: object) -> str:
    """The username tried, as the audit log keeps it: a card swipe (a reader's stripe, which holds
    a member's name, typed into the username field) is kept only as "(card swipe)"."""
    text = clean_text(value)
    return CARD_SWIPE if looks_like_swipe(text) else text


def axes_username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """The username django-axes counts and keeps in its tables (settings.AXES_USERNAME_CALLABLE):
    axes' own choice (the credentials, else the posted form), but a card swipe as "(card swipe)".
    The sign-in forms refuse a swipe before the password check (core.forms.LoginForm); this
    keeps the stripe out of axes' tables whatever else calls authenticate()."""
    field = getattr(settings, "AXES_USERNAME_FORM_FIELD", "username")
    name = credentials.get(field) if credentials else getattr(request, "data", request.POST).get(field)
    return CARD_SWIPE if isinstance(name, str) and looks_like_swipe(name) else name


def _request_actor(request: HttpRequest | None, label: str, user=None) -> Actor:
    return Actor(label=label, user=user, ip=client_ip(request) if request is not None else None)


def on_logged_in(sender, request, user, **kwargs) -> None:
    with transaction.atomic():
        audit_log(actor=_request_actor(request, user.get_username(), user), action="auth.logged_in", obj=user)


def on_logged_out(sender, request, user, **kwargs) -> None:
    if user is None:  # the session had already expired: nobody to record
        return
    with transaction.atomic():
        audit_log(actor=_request_actor(request, user.get_username(), user), action="auth.logged_out", obj=user)


def on_login_failed(sender, credentials, request=None, **kwargs) -> None:
    # Django hands over the credentials with the password already masked; only the username
    # is kept, never anything from the password field.
    username = _username_text(credentials.get(get_user_model().USERNAME_FIELD))
    user = get_user_model().objects.filter(**{get_user_model().USERNAME_FIELD: username}).first()
    data = {"username": username}
    if request is not None and getattr(request, "axes_locked_out", False):
        data["locked_out"] = True
    with transaction.atomic():
        audit_log(actor=_request_actor(request, "anonymous"), action="auth.login_failed", obj=user, data=data)


def on_locked_out(sender, request, username, ip_address, **kwargs) -> None:
    with transaction.atomic():
        audit_log(
            actor=_request_actor(request, "anonymous"),
            action="auth.locked_out",
            data={"username": _username_text(username), "ip": clean_text(ip_address, 45)},
        )


def connect() -> None:
    from axes.signals import user_locked_out
    from django.contrib.auth import signals

    signals.user_logged_in.connect(on_logged_in, dispatch_uid="core.auth.logged_in")
    signals.user_logged_out.connect(on_logged_out, dispatch_uid="core.auth.logged_out")
    signals.user_login_failed.connect(on_login_failed, dispatch_uid="core.auth.login_failed")
    user_locked_out.connect(on_locked_out, dispatch_uid="core.auth.locked_out")
